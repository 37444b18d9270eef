//! A page of payments: every scalar field of `Payment` (and `metadata`, `nextAction`) answered
//! from the row ([`Shown`]), and the columns a page reads for what its selection shows.

use std::sync::Arc;

use async_graphql::Value;
use async_graphql::parser::types::SelectionSet;

use super::{Fields, fields_shown};
use crate::graphql::selection::{Collected, Document};
use crate::graphql::shown::Shown;
use crate::persistence::payment_pages::PaymentColumns;
use crate::persistence::payments;

/// `Payment`, from its row.
pub struct PaymentFields;

impl Fields for PaymentFields {
    type Row = Arc<payments::Payment>;
    type Part = Shown;
    const TYPE: &'static str = "Payment";

    fn part(doc: Document<'_>, collected: &Collected<'_>) -> Option<Shown> {
        Shown::planned(doc, collected)
    }

    fn value(part: &Shown, row: &Self::Row) -> Value {
        part.value(row)
    }

    fn write(part: &Shown, row: &Self::Row, out: &mut Vec<u8>) -> serde_json::Result<()> {
        part.write(row, out)
    }

    fn is_leaf(part: &Shown) -> bool {
        part.is_leaf()
    }
}

/// The columns a page reads for what `connection` (the connection field's selection)
/// shows of its payments, under every `edges { node }` and `nodes`: the listing's and each
/// field's own; every column when a field is not known to need only these.
pub fn columns_shown(doc: Document<'_>, connection: &SelectionSet) -> PaymentColumns {
    let types = ["PaymentConnection", "PaymentEdge", "Payment"];
    let Some(nodes) = fields_shown(doc, connection, types) else {
        return PaymentColumns::ALL;
    };
    nodes
        .iter()
        .fold(PaymentColumns::LISTING, |columns, field| {
            columns.and(Shown::columns_of(field.name()))
        })
}
