//! A page of the event log: `Event`'s fields answered from the logged change, and its
//! `payment` (as the change left it) from the payment the log kept with it.

use std::sync::Arc;

use async_graphql::parser::types::SelectionSet;
use async_graphql::{OutputType, ScalarType, Value};

use super::{Fields, PaymentFields, fields_shown, object, plan_of, sets};
use crate::graphql::events::Event;
use crate::graphql::json::{self, Key};
use crate::graphql::scalars::DateTime;
use crate::graphql::selection::{Collected, Document};
use crate::graphql::shown::Shown;
use crate::persistence::event_log::LoggedEvent;

/// `Event`, from the logged change.
pub struct EventFields;

/// A field of `Event` answered from the logged change.
pub enum EventPart {
    Typename,
    Id,
    Type,
    CreatedAt,
    /// `payment`, with what its selection shows of the payment.
    Payment(Vec<(Key, Shown)>),
}

impl Fields for EventFields {
    type Row = Arc<LoggedEvent>;
    type Part = EventPart;
    const TYPE: &'static str = "Event";

    fn part(doc: Document<'_>, collected: &Collected<'_>) -> Option<EventPart> {
        if collected.name() == "payment" && !collected.is_leaf() {
            return Some(EventPart::Payment(plan_of::<PaymentFields>(
                doc,
                sets(collected),
            )?));
        }
        if !collected.is_leaf() {
            return None;
        }
        Some(match collected.name() {
            "__typename" => EventPart::Typename,
            "id" => EventPart::Id,
            "type" => EventPart::Type,
            "createdAt" => EventPart::CreatedAt,
            _ => return None,
        })
    }

    fn value(part: &EventPart, row: &Self::Row) -> Value {
        let event = &row.event;
        match part {
            EventPart::Typename => Value::String(Event::type_name().into_owned()),
            EventPart::Id => Value::String(event.id.clone()),
            EventPart::Type => Value::String(event.event_type.clone()),
            EventPart::CreatedAt => DateTime(event.created_at).to_value(),
            EventPart::Payment(plan) => match &row.payment {
                Some(payment) => object(
                    plan.iter()
                        .map(|(key, shown)| (key.name().clone(), shown.value(payment))),
                ),
                // Not reached: such a row does not answer it (see `answers`).
                None => Value::Null,
            },
        }
    }

    fn write(part: &EventPart, row: &Self::Row, out: &mut Vec<u8>) -> serde_json::Result<()> {
        match part {
            EventPart::Id => json::string(out, &row.event.id),
            EventPart::Type => json::string(out, &row.event.event_type),
            EventPart::CreatedAt => json::timestamp(out, row.event.created_at),
            _ => json::write_value(out, &Self::value(part, row)),
        }
    }

    fn is_leaf(part: &EventPart) -> bool {
        !matches!(part, EventPart::Payment(_))
    }

    fn answers(part: &EventPart, row: &Self::Row) -> bool {
        match part {
            // An event written before the log kept its payment: its resolver loads the
            // payment as it is now.
            EventPart::Payment(_) => row.payment.is_some(),
            _ => true,
        }
    }
}

/// Whether the events connection's selection (`connection`) shows an event's `payment` or
/// `refund`, which are read from the rows' snapshots; true where it is not known.
pub fn shows_snapshots(doc: Document<'_>, connection: &SelectionSet) -> bool {
    let types = ["EventConnection", "EventEdge", "Event"];
    fields_shown(doc, connection, types).is_none_or(|fields| {
        fields
            .iter()
            .any(|field| matches!(field.name(), "payment" | "refund"))
    })
}
