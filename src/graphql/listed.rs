//! A page's `edges` and `nodes` written straight into the response when their selection holds
//! only what each row answers: the listed object's fields its row holds (every scalar field of
//! a payment, an event's, a webhook endpoint's or delivery's), `__typename`, and each edge's
//! cursor, however the document asks for them (through named or inline fragments, with
//! aliases, a response key given more than once).
//!
//! async-graphql resolves an object by making a future for each selected field and gathering
//! them, about 400 futures for a page of 50 edges, and that was most of the gateway's work on
//! a page read. These values need no waiting, so they are written in order instead, to the
//! same answer: the selection is first collected as execution would ([`super::selection`]),
//! and the plan made from it is kept with the document ([`super::kept`]).
//! A selection with anything else (a payment's `events`, a field with arguments, a directive)
//! is resolved the usual way: a page's payments then each as a payment on its own
//! ([`super::direct`]: the row's fields written, `events` and `refunds` by the page's
//! loaders). Over HTTP, a query's rows of leaves are written as JSON text, without a value
//! tree ([`super::json`]). What each listed type's rows answer is in this module's children.

mod events;
mod payments;
mod shapes;
mod webhooks;

use std::borrow::Cow;
use std::marker::PhantomData;

use async_graphql::parser::types::{Field, OperationType, SelectionSet};
use async_graphql::registry::Registry;
use async_graphql::{
    ContextBase, ContextSelectionSet, Name, OutputType, Positioned, QueryPathSegment, ServerResult,
    Value,
};

use super::json::{self, Key};
use super::paging::Paged;
use super::selection::{Collected, Document};
use crate::domain::cursor::{CursorCodec, Signer};
use crate::persistence::keyset::Keyset;

pub use events::{EventFields, shows_snapshots};
pub use payments::{PaymentFields, columns_shown};
pub use shapes::{Edges, Nodes, Shape};
pub use webhooks::{DeliveryFields, EndpointFields};

/// Present in the schema's data when pages are to be resolved field by field only: the
/// operator's switch for comparing the two ways of answering (they must agree to the byte).
#[derive(Clone, Copy, Debug)]
pub struct FieldByField;

/// The document a selection belongs to, as `ctx` executes it.
pub(super) fn document<'a, T>(ctx: &ContextBase<'a, T>) -> Document<'a> {
    Document {
        fragments: &ctx.query_env.fragments,
        registry: &ctx.schema_env.registry,
    }
}

/// An object type some of whose fields its row answers, without a resolver.
pub trait Fields: Send + Sync {
    /// What a page holds of each object.
    type Row: Send + Sync;
    /// A field the row answers.
    type Part: Send + Sync + 'static;
    /// The type's name in the schema.
    const TYPE: &'static str;

    /// What the (plain) field of one response key shows, when the row answers it.
    fn part(doc: Document<'_>, collected: &Collected<'_>) -> Option<Self::Part>;
    /// The field's value, as the type's resolver of the same name gives it.
    fn value(part: &Self::Part, row: &Self::Row) -> Value;
    /// [`Fields::value`] as JSON text.
    fn write(part: &Self::Part, row: &Self::Row, out: &mut Vec<u8>) -> serde_json::Result<()>;
    /// Whether the field is a leaf: an object has a cost of its own, read back from the
    /// answer, so rows that show one are kept as values.
    fn is_leaf(part: &Self::Part) -> bool;
    /// Whether this row answers the field (an event written before the log kept its payment
    /// does not: its resolver loads the payment).
    fn answers(_part: &Self::Part, _row: &Self::Row) -> bool {
        true
    }
}

/// What a selection (the merged selection sets of one response key, or one set) shows of an
/// object of `F`, key by key, when its row answers every field in it.
pub(super) fn plan_of<'a, F: Fields>(
    doc: Document<'a>,
    sets: impl IntoIterator<Item = &'a SelectionSet>,
) -> Option<Vec<(Key, F::Part)>> {
    doc.collect(sets, F::TYPE)?
        .iter()
        .map(|collected| {
            if !collected.is_plain() {
                return None;
            }
            Some((
                Key::new(collected.key.clone()).ok()?,
                F::part(doc, collected)?,
            ))
        })
        .collect()
}

/// The selection sets of a response key's fields.
pub(super) fn sets<'a>(collected: &Collected<'a>) -> impl Iterator<Item = &'a SelectionSet> {
    collected
        .fields
        .iter()
        .map(|field| &field.node.selection_set.node)
}

/// The fields a connection's selection (`connection`, of type `C`) shows of its objects
/// (of type `F`), under every `edges { node }` and `nodes`, merged by key within each;
/// `None` where the selection is not collected (see [`Document::collect`]).
pub(super) fn fields_shown<'a>(
    doc: Document<'a>,
    connection: &'a SelectionSet,
    types: [&str; 3],
) -> Option<Vec<Collected<'a>>> {
    let [connection_type, edge_type, node_type] = types;
    let mut shown = Vec::new();
    for part in doc.collect([connection], connection_type)? {
        match part.name() {
            "edges" => {
                for edge in doc.collect(sets(&part), edge_type)? {
                    if edge.name() == "node" {
                        shown.extend(doc.collect(sets(&edge), node_type)?);
                    }
                }
            }
            "nodes" => shown.extend(doc.collect(sets(&part), node_type)?),
            _ => {}
        }
    }
    Some(shown)
}

/// A text field's value: its string, or null.
pub(super) fn text(text: &Option<String>) -> Value {
    text.clone().map_or(Value::Null, Value::String)
}

/// An object of these fields (empty when every field was skipped).
pub(super) fn object(fields: impl Iterator<Item = (Name, Value)>) -> Value {
    Value::Object(fields.collect())
}

fn node_value<F: Fields>(plan: &[(Key, F::Part)], row: &F::Row) -> Value {
    object(
        plan.iter()
            .map(|(key, part)| (key.name().clone(), F::value(part, row))),
    )
}

fn write_node<F: Fields>(
    plan: &[(Key, F::Part)],
    row: &F::Row,
    out: &mut Vec<u8>,
) -> serde_json::Result<()> {
    json::object(out, plan, |out, part| F::write(part, row, out))
}

fn node_answered<F: Fields>(plan: &[(Key, F::Part)], row: &F::Row) -> bool {
    plan.iter().all(|(_, part)| F::answers(part, row))
}

/// A connection whose page [`Listed`] lists.
pub trait Rows: Sync {
    type Query: Keyset<Row = <Self::Fields as Fields>::Row> + Sync;
    /// The listed type.
    type Fields: Fields;
    /// The edge and node types, resolved the usual way.
    type Edge: OutputType;
    type Node: OutputType;

    fn paged(&self) -> &Paged<Self::Query>;
    /// A row's node, to be resolved field by field.
    fn node(&self, row: &<Self::Fields as Fields>::Row) -> Self::Node;
    /// An edge of a cursor and a node.
    fn edge(cursor: String, node: Self::Node) -> Self::Edge;

    /// The edges, to be resolved field by field.
    fn edge_list(&self, signer: &Signer) -> Vec<Self::Edge> {
        let paged = self.paged();
        paged
            .rows()
            .iter()
            .map(|row| Self::edge(paged.cursor_by(signer, row), self.node(row)))
            .collect()
    }
    /// The nodes, to be resolved field by field.
    fn node_list(&self) -> Vec<Self::Node> {
        self.paged()
            .rows()
            .iter()
            .map(|row| self.node(row))
            .collect()
    }
}

/// `edges`, `nodes` and `pageInfo` for a connection that implements [`Rows`]: each list
/// charged for its rows, then answered by [`Listed`].
macro_rules! listed_connection {
    ($connection:ty) => {
        #[async_graphql::Object]
        impl $connection {
            async fn edges(
                &self,
                ctx: &async_graphql::Context<'_>,
            ) -> async_graphql::Result<
                $crate::graphql::listed::Listed<'_, Self, $crate::graphql::listed::Edges>,
            > {
                let rows = $crate::graphql::listed::Rows::paged(self).rows();
                $crate::graphql::limits::fields::charge_list(ctx, rows.len())?;
                Ok($crate::graphql::listed::Listed::new(self))
            }
            async fn nodes(
                &self,
                ctx: &async_graphql::Context<'_>,
            ) -> async_graphql::Result<
                $crate::graphql::listed::Listed<'_, Self, $crate::graphql::listed::Nodes>,
            > {
                let rows = $crate::graphql::listed::Rows::paged(self).rows();
                $crate::graphql::limits::fields::charge_list(ctx, rows.len())?;
                Ok($crate::graphql::listed::Listed::new(self))
            }
            async fn page_info(
                &self,
                ctx: &async_graphql::Context<'_>,
            ) -> $crate::graphql::paging::PageInfo<'_> {
                $crate::graphql::listed::Rows::paged(self)
                    .page_info(ctx)
                    .await
            }
        }
    };
}
pub(crate) use listed_connection;

type RowOf<C> = <<C as Rows>::Fields as Fields>::Row;
type PartOf<C> = <<C as Rows>::Fields as Fields>::Part;

/// A list of a page's rows, each shown as `S` shows it.
pub struct Listed<'c, C, S> {
    connection: &'c C,
    shape: PhantomData<S>,
}

impl<'c, C, S> Listed<'c, C, S> {
    pub fn new(connection: &'c C) -> Self {
        Listed {
            connection,
            shape: PhantomData,
        }
    }
}

impl<C: Rows, S: Shape<C>> Listed<'_, C, S> {
    /// The page's rows as JSON text, one `Binary` per row (see [`super::json`]).
    fn written(&self, plan: &S::Plan, signer: &Signer) -> serde_json::Result<Value> {
        let rows = self.connection.paged().rows();
        let mut out = Vec::with_capacity(512);
        let mut ends = Vec::with_capacity(rows.len());
        for (i, row) in rows.iter().enumerate() {
            S::write(plan, self.connection, signer, row, &mut out)?;
            ends.push(out.len());
            if i == 0 {
                // The rest of the page, sized by its first row: rows of one selection differ
                // only in the lengths of their values.
                out.reserve((out.len() + out.len() / 4) * (rows.len() - 1));
            }
        }
        let text = bytes::Bytes::from(out);
        let mut start = 0;
        Ok(Value::List(
            ends.into_iter()
                .map(|end| {
                    let row = text.slice(start..end);
                    start = end;
                    Value::Binary(row)
                })
                .collect(),
        ))
    }
}

/// Whether rows may be carried as JSON text in this request's answer: one written by
/// [`json::write_value`] (over HTTP), of a query (a mutation's answer may be kept as a value),
/// where no other field of the same response key is merged into the list on the way down.
fn as_json(ctx: &ContextSelectionSet<'_>) -> bool {
    if ctx.data_opt::<json::RowsAsJson>().is_none()
        || ctx.query_env.operation.node.ty != OperationType::Query
    {
        return false;
    }
    let mut path = Vec::new();
    let mut node = ctx.path_node.as_ref();
    while let Some(at) = node {
        if let QueryPathSegment::Name(key) = at.segment {
            path.push(key);
        }
        node = at.parent;
    }
    path.reverse();
    document(ctx).given_once(&ctx.query_env.operation.node.selection_set.node, &path)
}

impl<C: Rows + 'static, S: Shape<C> + 'static> OutputType for Listed<'_, C, S> {
    fn type_name() -> Cow<'static, str> {
        S::Usual::type_name()
    }

    fn qualified_type_name() -> String {
        S::Usual::qualified_type_name()
    }

    fn create_type_info(registry: &mut Registry) -> String {
        S::Usual::create_type_info(registry)
    }

    async fn resolve(
        &self,
        ctx: &ContextSelectionSet<'_>,
        field: &Positioned<Field>,
    ) -> ServerResult<Value> {
        let signer = ctx
            .data::<CursorCodec>()
            .map_err(|err| err.into_server_error(field.pos))?
            .signer();
        let rows = self.connection.paged().rows();
        let kept;
        let plan = match ctx.data_opt::<FieldByField>() {
            Some(_) => None,
            None => {
                kept = super::kept::planned::<(C, S), _, _>(
                    ctx,
                    field.pos,
                    || S::plan(document(ctx), &ctx.item.node),
                    |plan| plan.as_ref().map_or(1, S::weight),
                );
                Option::as_ref(&kept).filter(|plan| rows.iter().all(|row| S::answered(plan, row)))
            }
        };
        match plan {
            Some(plan) if as_json(ctx) && S::leaves_only(plan) => {
                self.written(plan, &signer).map_err(|err| {
                    tracing::error!(error = %err, "could not write a page's rows");
                    async_graphql::Error::from(crate::error::ApiError::Internal)
                        .into_server_error(field.pos)
                })
            }
            Some(plan) => Ok(Value::List(
                rows.iter()
                    .map(|row| S::value(plan, self.connection, &signer, row))
                    .collect(),
            )),
            None => S::usual(self.connection, &signer).resolve(ctx, field).await,
        }
    }
}
