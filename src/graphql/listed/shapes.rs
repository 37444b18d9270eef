//! The two lists a connection shows its rows in, `edges` and `nodes`, planned, valued and
//! written for any listed type ([`Rows`]).

use async_graphql::parser::types::SelectionSet;
use async_graphql::{OutputType, Value};

use super::{
    Fields, PartOf, RowOf, Rows, node_answered, node_value, object, plan_of, sets, write_node,
};
use crate::domain::cursor::Signer;
use crate::graphql::json::{self, Key};
use crate::graphql::selection::Document;

/// What a list of a page's rows shows of each: an edge or a node.
pub trait Shape<C: Rows>: Send + Sync {
    /// The list's type, resolved the usual way.
    type Usual: OutputType;
    /// What a selection shows of each row (kept with the document, [`crate::graphql::kept`]).
    type Plan: Send + Sync + 'static;
    fn plan(doc: Document<'_>, set: &SelectionSet) -> Option<Self::Plan>;
    /// How many fields a plan holds.
    fn weight(plan: &Self::Plan) -> usize;
    fn value(plan: &Self::Plan, connection: &C, signer: &Signer, row: &RowOf<C>) -> Value;
    /// [`Shape::value`] as JSON text.
    fn write(
        plan: &Self::Plan,
        connection: &C,
        signer: &Signer,
        row: &RowOf<C>,
        out: &mut Vec<u8>,
    ) -> serde_json::Result<()>;
    /// Whether the plan shows leaves only (no object, such as a payment's `metadata`): then
    /// its rows cost nothing of their own, and are not read back from the answer.
    fn leaves_only(plan: &Self::Plan) -> bool;
    /// Whether `row` answers every field of the plan.
    fn answered(plan: &Self::Plan, row: &RowOf<C>) -> bool;
    fn usual(connection: &C, signer: &Signer) -> Self::Usual;
}

/// `edges`: a cursor and a node per row.
pub struct Edges;

pub enum EdgePart<P> {
    Typename,
    Cursor,
    Node(Vec<(Key, P)>),
}

impl<C: Rows> Shape<C> for Edges {
    type Usual = Vec<C::Edge>;
    type Plan = Vec<(Key, EdgePart<PartOf<C>>)>;

    fn plan(doc: Document<'_>, set: &SelectionSet) -> Option<Self::Plan> {
        doc.collect([set], &C::Edge::type_name())?
            .iter()
            .map(|collected| {
                if !collected.is_plain() {
                    return None;
                }
                let part = match collected.name() {
                    "__typename" => EdgePart::Typename,
                    "cursor" => EdgePart::Cursor,
                    "node" => EdgePart::Node(plan_of::<C::Fields>(doc, sets(collected))?),
                    _ => return None,
                };
                Some((Key::new(collected.key.clone()).ok()?, part))
            })
            .collect()
    }

    fn weight(plan: &Self::Plan) -> usize {
        plan.iter()
            .map(|(_, part)| match part {
                EdgePart::Node(shown) => 1 + shown.len(),
                EdgePart::Typename | EdgePart::Cursor => 1,
            })
            .sum()
    }

    fn value(plan: &Self::Plan, connection: &C, signer: &Signer, row: &RowOf<C>) -> Value {
        object(plan.iter().map(|(key, part)| {
            let value = match part {
                EdgePart::Typename => Value::String(C::Edge::type_name().into_owned()),
                EdgePart::Cursor => Value::String(connection.paged().cursor_by(signer, row)),
                EdgePart::Node(shown) => node_value::<C::Fields>(shown, row),
            };
            (key.name().clone(), value)
        }))
    }

    fn write(
        plan: &Self::Plan,
        connection: &C,
        signer: &Signer,
        row: &RowOf<C>,
        out: &mut Vec<u8>,
    ) -> serde_json::Result<()> {
        json::object(out, plan, |out, part| match part {
            EdgePart::Typename => json::string(out, &C::Edge::type_name()),
            EdgePart::Cursor => {
                connection.paged().write_cursor(signer, row, out);
                Ok(())
            }
            EdgePart::Node(shown) => write_node::<C::Fields>(shown, row, out),
        })
    }

    fn leaves_only(plan: &Self::Plan) -> bool {
        plan.iter().all(|(_, part)| match part {
            EdgePart::Node(shown) => shown.iter().all(|(_, part)| C::Fields::is_leaf(part)),
            EdgePart::Typename | EdgePart::Cursor => true,
        })
    }

    fn answered(plan: &Self::Plan, row: &RowOf<C>) -> bool {
        plan.iter().all(|(_, part)| match part {
            EdgePart::Node(shown) => node_answered::<C::Fields>(shown, row),
            EdgePart::Typename | EdgePart::Cursor => true,
        })
    }

    fn usual(connection: &C, signer: &Signer) -> Self::Usual {
        connection.edge_list(signer)
    }
}

/// `nodes`: the listed objects themselves.
pub struct Nodes;

impl<C: Rows> Shape<C> for Nodes {
    type Usual = Vec<C::Node>;
    type Plan = Vec<(Key, PartOf<C>)>;

    fn plan(doc: Document<'_>, set: &SelectionSet) -> Option<Self::Plan> {
        plan_of::<C::Fields>(doc, [set])
    }

    fn weight(plan: &Self::Plan) -> usize {
        plan.len()
    }

    fn value(plan: &Self::Plan, _: &C, _: &Signer, row: &RowOf<C>) -> Value {
        node_value::<C::Fields>(plan, row)
    }

    fn write(
        plan: &Self::Plan,
        _: &C,
        _: &Signer,
        row: &RowOf<C>,
        out: &mut Vec<u8>,
    ) -> serde_json::Result<()> {
        write_node::<C::Fields>(plan, row, out)
    }

    fn leaves_only(plan: &Self::Plan) -> bool {
        plan.iter().all(|(_, part)| C::Fields::is_leaf(part))
    }

    fn answered(plan: &Self::Plan, row: &RowOf<C>) -> bool {
        node_answered::<C::Fields>(plan, row)
    }

    fn usual(connection: &C, _: &Signer) -> Self::Usual {
        connection.node_list()
    }
}
