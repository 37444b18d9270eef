//! A page's `edges` and `nodes` written straight into the response when their selection holds
//! only what a payment's row answers: every scalar field of each payment (and `nextAction`),
//! `__typename`, and each edge's cursor, however the document asks for them (through named or
//! inline fragments, with aliases, a response key given more than once).
//!
//! async-graphql resolves an object by making a future for each selected field and gathering
//! them, about 400 futures for a page of 50 edges, and that was most of the gateway's work on
//! a page read. These values need no waiting, so they are written in order instead, to the
//! same answer: the selection is first collected as execution would ([`super::selection`]).
//! A selection with anything else (`events`, `refunds`, a directive) is resolved the usual way.
//! Over HTTP, a query's rows of leaves are written as JSON text, without a value tree
//! ([`super::json`]). A payment on its own takes the same path ([`super::direct`]).

use std::borrow::Cow;
use std::marker::PhantomData;
use std::sync::Arc;

use async_graphql::parser::types::{Field, OperationType, SelectionSet};
use async_graphql::registry::Registry;
use async_graphql::{
    ContextBase, ContextSelectionSet, Name, OutputType, Positioned, QueryPathSegment, ServerResult,
    Value,
};

use super::connection::{PaymentConnection, PaymentEdge};
use super::json;
use super::selection::{Collected, Document};
use super::shown::Shown;
use crate::domain::cursor::{CursorCodec, Signer};
use crate::domain::payment;
use crate::persistence::payment_pages::PaymentColumns;

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

/// What a payment's selection (the merged selection sets of one response key, or one set)
/// shows, key by key, when every field in it is answered from the row.
pub(super) fn node_plan<'a>(
    doc: Document<'a>,
    sets: impl IntoIterator<Item = &'a SelectionSet>,
) -> Option<Vec<(Name, Shown)>> {
    doc.collect(sets, "Payment")?
        .iter()
        .map(|collected| {
            if !collected.is_plain() {
                return None;
            }
            Some((collected.key.clone(), Shown::planned(doc, collected)?))
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

/// The columns a page reads for what `connection` (the connection field's selection)
/// shows of its payments, under every `edges { node }` and `nodes`: the listing's and each
/// field's own; every column when a field is not known to need only these.
pub(super) fn columns_shown(doc: Document<'_>, connection: &SelectionSet) -> PaymentColumns {
    let nodes = || -> Option<Vec<Collected<'_>>> {
        let mut nodes = Vec::new();
        for part in doc.collect([connection], "PaymentConnection")? {
            match part.name() {
                "edges" => {
                    for edge in doc.collect(sets(&part), "PaymentEdge")? {
                        if edge.name() == "node" {
                            nodes.extend(doc.collect(sets(&edge), "Payment")?);
                        }
                    }
                }
                "nodes" => nodes.extend(doc.collect(sets(&part), "Payment")?),
                _ => {}
            }
        }
        Some(nodes)
    };
    let Some(nodes) = nodes() else {
        return PaymentColumns::ALL;
    };
    nodes
        .iter()
        .fold(PaymentColumns::LISTING, |columns, field| {
            columns.and(Shown::columns_of(field.name()))
        })
}

/// An object of these fields, as async-graphql writes one: null when nothing is selected.
pub(super) fn object(fields: impl Iterator<Item = (Name, Value)>) -> Value {
    let fields: async_graphql::indexmap::IndexMap<Name, Value> = fields.collect();
    if fields.is_empty() {
        Value::Null
    } else {
        Value::Object(fields)
    }
}

fn node_value(plan: &[(Name, Shown)], payment: &payment::Payment) -> Value {
    object(
        plan.iter()
            .map(|(key, shown)| (key.clone(), shown.value(payment))),
    )
}

fn write_node(
    plan: &[(Name, Shown)],
    payment: &payment::Payment,
    out: &mut Vec<u8>,
) -> serde_json::Result<()> {
    json::object(out, plan, |out, shown| shown.write(payment, out))
}

fn shows_leaves_only(plan: &[(Name, Shown)]) -> bool {
    plan.iter().all(|(_, shown)| shown.is_leaf())
}

/// A list of a page's payments, each shown as `S` shows it.
pub struct Listed<'c, S> {
    connection: &'c PaymentConnection,
    shape: PhantomData<S>,
}

impl<'c, S> Listed<'c, S> {
    pub fn new(connection: &'c PaymentConnection) -> Self {
        Listed {
            connection,
            shape: PhantomData,
        }
    }
}

/// What a list of a page's payments shows of each: an edge or a node.
pub trait Shape: Send + Sync {
    /// The list's type, resolved the usual way.
    type Usual: OutputType;
    /// What a selection shows of each payment.
    type Plan: Send;
    fn plan(doc: Document<'_>, set: &SelectionSet) -> Option<Self::Plan>;
    fn value(
        plan: &Self::Plan,
        connection: &PaymentConnection,
        signer: &Signer,
        payment: &Arc<payment::Payment>,
    ) -> Value;
    /// [`Shape::value`] as JSON text.
    fn write(
        plan: &Self::Plan,
        connection: &PaymentConnection,
        signer: &Signer,
        payment: &Arc<payment::Payment>,
        out: &mut Vec<u8>,
    ) -> serde_json::Result<()>;
    /// Whether the plan shows leaves only (no object of a payment's, such as `metadata`):
    /// then its rows cost nothing of their own, and are not read back from the answer.
    fn leaves_only(plan: &Self::Plan) -> bool;
    fn usual(connection: &PaymentConnection, signer: &Signer) -> Self::Usual;
}

/// `edges`: a cursor and a node per payment.
pub struct Edges;

pub enum EdgePart {
    Typename,
    Cursor,
    Node(Vec<(Name, Shown)>),
}

impl Shape for Edges {
    type Usual = Vec<PaymentEdge>;
    type Plan = Vec<(Name, EdgePart)>;

    fn plan(doc: Document<'_>, set: &SelectionSet) -> Option<Self::Plan> {
        doc.collect([set], "PaymentEdge")?
            .iter()
            .map(|collected| {
                if !collected.is_plain() {
                    return None;
                }
                let part = match collected.name() {
                    "__typename" => EdgePart::Typename,
                    "cursor" => EdgePart::Cursor,
                    "node" => EdgePart::Node(node_plan(doc, sets(collected))?),
                    _ => return None,
                };
                Some((collected.key.clone(), part))
            })
            .collect()
    }

    fn value(
        plan: &Self::Plan,
        connection: &PaymentConnection,
        signer: &Signer,
        payment: &Arc<payment::Payment>,
    ) -> Value {
        object(plan.iter().map(|(key, part)| {
            let value = match part {
                EdgePart::Typename => Value::String(PaymentEdge::type_name().into_owned()),
                EdgePart::Cursor => Value::String(connection.cursor(signer, payment)),
                EdgePart::Node(shown) => node_value(shown, payment),
            };
            (key.clone(), value)
        }))
    }

    fn write(
        plan: &Self::Plan,
        connection: &PaymentConnection,
        signer: &Signer,
        payment: &Arc<payment::Payment>,
        out: &mut Vec<u8>,
    ) -> serde_json::Result<()> {
        json::object(out, plan, |out, part| match part {
            EdgePart::Typename => json::string(out, &PaymentEdge::type_name()),
            EdgePart::Cursor => {
                connection.write_cursor(signer, payment, out);
                Ok(())
            }
            EdgePart::Node(shown) => write_node(shown, payment, out),
        })
    }

    fn leaves_only(plan: &Self::Plan) -> bool {
        plan.iter().all(|(_, part)| match part {
            EdgePart::Node(shown) => shows_leaves_only(shown),
            EdgePart::Typename | EdgePart::Cursor => true,
        })
    }

    fn usual(connection: &PaymentConnection, signer: &Signer) -> Self::Usual {
        connection.edge_list(signer)
    }
}

/// `nodes`: the payments themselves.
pub struct Nodes;

impl Shape for Nodes {
    type Usual = Vec<super::objects::Payment>;
    type Plan = Vec<(Name, Shown)>;

    fn plan(doc: Document<'_>, set: &SelectionSet) -> Option<Self::Plan> {
        node_plan(doc, [set])
    }

    fn value(
        plan: &Self::Plan,
        _: &PaymentConnection,
        _: &Signer,
        payment: &Arc<payment::Payment>,
    ) -> Value {
        node_value(plan, payment)
    }

    fn write(
        plan: &Self::Plan,
        _: &PaymentConnection,
        _: &Signer,
        payment: &Arc<payment::Payment>,
        out: &mut Vec<u8>,
    ) -> serde_json::Result<()> {
        write_node(plan, payment, out)
    }

    fn leaves_only(plan: &Self::Plan) -> bool {
        shows_leaves_only(plan)
    }

    fn usual(connection: &PaymentConnection, _: &Signer) -> Self::Usual {
        connection.node_list()
    }
}

impl<S: Shape> Listed<'_, S> {
    /// The page's rows as JSON text, one `Binary` per row (see [`super::json`]).
    fn written(&self, plan: &S::Plan, signer: &Signer) -> serde_json::Result<Value> {
        let rows = self.connection.rows();
        let mut out = Vec::with_capacity(rows.len() * 256);
        let mut ends = Vec::with_capacity(rows.len());
        for payment in rows {
            S::write(plan, self.connection, signer, payment, &mut out)?;
            ends.push(out.len());
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

impl<S: Shape> OutputType for Listed<'_, S> {
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
        let plan = match ctx.data_opt::<FieldByField>() {
            Some(_) => None,
            None => S::plan(document(ctx), &ctx.item.node),
        };
        match plan {
            Some(plan) if as_json(ctx) && S::leaves_only(&plan) => {
                self.written(&plan, &signer).map_err(|err| {
                    tracing::error!(error = %err, "could not write a page's rows");
                    async_graphql::Error::from(crate::error::ApiError::Internal)
                        .into_server_error(field.pos)
                })
            }
            Some(plan) => Ok(Value::List(
                self.connection
                    .rows()
                    .iter()
                    .map(|payment| S::value(&plan, self.connection, &signer, payment))
                    .collect(),
            )),
            None => S::usual(self.connection, &signer).resolve(ctx, field).await,
        }
    }
}
