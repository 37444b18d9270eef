//! A page's `edges` and `nodes` written straight into the response when the selection holds
//! only what a listing shows: each payment's id, money, status, times and `__typename`, and
//! each edge's cursor.
//!
//! async-graphql resolves an object by making a future for each selected field and gathering
//! them, about 400 futures for a page of 50 edges, and that was most of the gateway's work on
//! a page read. These values need no waiting, so they are written in order instead, to the
//! same answer. Any other selection (a fragment, an argument, a directive, a field beyond the
//! listing's, a response key given twice) is resolved the usual way.

use std::borrow::Cow;
use std::marker::PhantomData;
use std::sync::Arc;

use async_graphql::parser::types::{Field, Selection, SelectionSet};
use async_graphql::registry::Registry;
use async_graphql::resolver_utils::enum_value;
use async_graphql::{
    ContextSelectionSet, Name, OutputType, Positioned, ScalarType, ServerResult, Value,
};

use super::connection::{PaymentConnection, PaymentEdge};
use super::objects::{Payment, PaymentStatus};
use super::scalars::{Currency, DateTime};
use crate::domain::cursor::CursorCodec;
use crate::domain::payment;

/// A field of `Payment` that a listing shows: answered from the columns a listing reads
/// (`PaymentColumns::Listing`), without a future of its own.
#[derive(Clone, Copy, Debug)]
pub enum Shown {
    Typename,
    Id,
    Amount,
    Currency,
    Status,
    AmountRefunded,
    AmountRefundable,
    CreatedAt,
    UpdatedAt,
}

impl Shown {
    pub fn named(name: &str) -> Option<Shown> {
        Some(match name {
            "__typename" => Shown::Typename,
            "id" => Shown::Id,
            "amount" => Shown::Amount,
            "currency" => Shown::Currency,
            "status" => Shown::Status,
            "amountRefunded" => Shown::AmountRefunded,
            "amountRefundable" => Shown::AmountRefundable,
            "createdAt" => Shown::CreatedAt,
            "updatedAt" => Shown::UpdatedAt,
            _ => return None,
        })
    }

    /// The field's value, as `Payment`'s resolver of the same name gives it.
    fn value(self, payment: &payment::Payment) -> Value {
        match self {
            Shown::Typename => Value::String(Payment::type_name().into_owned()),
            Shown::Id => Value::String(payment.id.clone()),
            Shown::Amount => Value::from(payment.amount.get()),
            Shown::Currency => Currency(payment.currency).to_value(),
            Shown::Status => enum_value(PaymentStatus::from(payment.status)),
            Shown::AmountRefunded => Value::from(payment.amount_refunded),
            Shown::AmountRefundable => Value::from(payment.amount_refundable()),
            Shown::CreatedAt => DateTime(payment.created_at).to_value(),
            Shown::UpdatedAt => DateTime(payment.updated_at).to_value(),
        }
    }
}

/// The response keys of a selection set and what each shows, when every selection in it is a
/// plain field (no fragment, argument or directive) with a key of its own that `part` knows.
fn plan<T>(set: &SelectionSet, part: impl Fn(&Field) -> Option<T>) -> Option<Vec<(Name, T)>> {
    let mut planned: Vec<(Name, T)> = Vec::with_capacity(set.items.len());
    for selection in &set.items {
        let Selection::Field(field) = &selection.node else {
            return None;
        };
        let field = &field.node;
        if !field.arguments.is_empty() || !field.directives.is_empty() {
            return None;
        }
        let key = &field.response_key().node;
        if planned.iter().any(|(planned, _)| planned == key) {
            return None;
        }
        planned.push((key.clone(), part(field)?));
    }
    Some(planned)
}

fn node_plan(set: &SelectionSet) -> Option<Vec<(Name, Shown)>> {
    plan(set, |field| {
        if field.selection_set.node.items.is_empty() {
            Shown::named(&field.name.node)
        } else {
            None
        }
    })
}

/// An object of these fields, as async-graphql writes one: null when nothing is selected.
fn object(fields: impl Iterator<Item = (Name, Value)>) -> Value {
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
    fn plan(set: &SelectionSet) -> Option<Self::Plan>;
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

    fn plan(set: &SelectionSet) -> Option<Self::Plan> {
        plan(set, |field| match field.name.node.as_str() {
            "__typename" => Some(EdgePart::Typename),
            "cursor" => Some(EdgePart::Cursor),
            "node" => node_plan(&field.selection_set.node).map(EdgePart::Node),
            _ => None,
        })
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
    type Usual = Vec<Payment>;
    type Plan = Vec<(Name, Shown)>;

    fn plan(set: &SelectionSet) -> Option<Self::Plan> {
        node_plan(set)
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
        match S::plan(&ctx.item.node) {
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
