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

use std::borrow::Cow;
use std::marker::PhantomData;
use std::sync::Arc;

use async_graphql::parser::types::{Field, SelectionSet};
use async_graphql::registry::Registry;
use async_graphql::{
    ContextBase, ContextSelectionSet, Name, OutputType, Positioned, ServerResult, Value,
};

use super::connection::{PaymentConnection, PaymentEdge};
use super::selection::{Collected, Document};
use super::shown::Shown;
use crate::domain::cursor::CursorCodec;
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
        codec: &CursorCodec,
        payment: &Arc<payment::Payment>,
    ) -> Value;
    fn usual(connection: &PaymentConnection, codec: &CursorCodec) -> Self::Usual;
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
        codec: &CursorCodec,
        payment: &Arc<payment::Payment>,
    ) -> Value {
        object(plan.iter().map(|(key, part)| {
            let value = match part {
                EdgePart::Typename => Value::String(PaymentEdge::type_name().into_owned()),
                EdgePart::Cursor => Value::String(connection.cursor(codec, payment)),
                EdgePart::Node(shown) => node_value(shown, payment),
            };
            (key.clone(), value)
        }))
    }

    fn usual(connection: &PaymentConnection, codec: &CursorCodec) -> Self::Usual {
        connection.edge_list(codec)
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
        _: &CursorCodec,
        payment: &Arc<payment::Payment>,
    ) -> Value {
        node_value(plan, payment)
    }

    fn usual(connection: &PaymentConnection, _: &CursorCodec) -> Self::Usual {
        connection.node_list()
    }
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
        let codec = ctx
            .data::<CursorCodec>()
            .map_err(|err| err.into_server_error(field.pos))?;
        let plan = match ctx.data_opt::<FieldByField>() {
            Some(_) => None,
            None => S::plan(document(ctx), &ctx.item.node),
        };
        match plan {
            Some(plan) => Ok(Value::List(
                self.connection
                    .rows()
                    .iter()
                    .map(|payment| S::value(&plan, self.connection, codec, payment))
                    .collect(),
            )),
            None => S::usual(self.connection, codec).resolve(ctx, field).await,
        }
    }
}

/// A payment answered on its own (`payment(id)`): the fields selected that its row answers
/// are written straight into the answer, as a page's nodes are, and `events` and `refunds`
/// are resolved by their loaders beside them (see [`one_payment`]).
pub struct Direct(pub super::objects::Payment);

impl OutputType for Direct {
    fn type_name() -> Cow<'static, str> {
        super::objects::Payment::type_name()
    }

    fn qualified_type_name() -> String {
        super::objects::Payment::qualified_type_name()
    }

    fn create_type_info(registry: &mut Registry) -> String {
        super::objects::Payment::create_type_info(registry)
    }

    async fn resolve(
        &self,
        ctx: &ContextSelectionSet<'_>,
        field: &Positioned<Field>,
    ) -> ServerResult<Value> {
        match one_payment(ctx, &self.0).await {
            Some(value) => Ok(value),
            None => OutputType::resolve(&self.0, ctx, field).await,
        }
    }
}

/// What a payment's selection shows of one payment: fields answered from the row, and the
/// others (`events`, `refunds`) resolved as the payment's own resolvers resolve them.
enum Part<'a> {
    Row(Shown),
    Resolved(&'a Positioned<Field>),
}

/// One payment's answer, `ctx` being its selection: the fields answered from the row written
/// straight in, the others resolved by the payment's resolvers (a failed one leaves its key
/// out and its error in the response, as the usual path does), in the selection's order.
/// `None` when the selection is to be resolved the usual way (a directive, a field given
/// twice under one key that is not answered from the row, or field-by-field resolution).
async fn one_payment(
    ctx: &ContextSelectionSet<'_>,
    payment: &super::objects::Payment,
) -> Option<Value> {
    use async_graphql::ContainerType;
    if ctx.data_opt::<FieldByField>().is_some() {
        return None;
    }
    let doc = document(ctx);
    let plan = doc
        .collect([&ctx.item.node], "Payment")?
        .into_iter()
        .map(|collected| {
            if !collected.is_plain() {
                return None;
            }
            let part = match Shown::planned(doc, &collected) {
                Some(shown) => Part::Row(shown),
                None if collected.fields.len() == 1 => Part::Resolved(collected.fields[0]),
                None => return None,
            };
            Some((collected.key.clone(), part))
        })
        .collect::<Option<Vec<_>>>()?;
    // The resolved fields together, so that their loaders gather their loads into one batch.
    let resolved = futures_util::future::join_all(plan.iter().filter_map(|(_, part)| match part {
        Part::Resolved(field) => {
            Some(async move { payment.resolve_field(&ctx.with_field(field)).await })
        }
        Part::Row(_) => None,
    }))
    .await;
    let mut resolved = resolved.into_iter();
    let mut fields = async_graphql::indexmap::IndexMap::with_capacity(plan.len());
    for (key, part) in plan {
        match part {
            Part::Row(shown) => {
                fields.insert(key, shown.value(&payment.payment));
            }
            Part::Resolved(_) => match resolved.next()? {
                Ok(value) => {
                    fields.insert(key, value.unwrap_or_default());
                }
                Err(err) => ctx.add_error(err),
            },
        }
    }
    Some(object(fields.into_iter()))
}

/// An object found by id (`node`, `nodes`): a payment is answered as [`Direct`] answers one,
/// through fragments on `Payment` or `Node`; any other object is resolved the usual way.
pub struct DirectNode(pub super::node::Node);

impl OutputType for DirectNode {
    fn type_name() -> Cow<'static, str> {
        super::node::Node::type_name()
    }

    fn qualified_type_name() -> String {
        super::node::Node::qualified_type_name()
    }

    fn create_type_info(registry: &mut Registry) -> String {
        super::node::Node::create_type_info(registry)
    }

    async fn resolve(
        &self,
        ctx: &ContextSelectionSet<'_>,
        field: &Positioned<Field>,
    ) -> ServerResult<Value> {
        if let super::node::Node::Payment(payment) = &self.0
            && let Some(value) = one_payment(ctx, payment).await
        {
            return Ok(value);
        }
        OutputType::resolve(&self.0, ctx, field).await
    }
}
