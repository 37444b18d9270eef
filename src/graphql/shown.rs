//! What a field of `Payment` shows, answered from the payment's row without a resolver: every
//! scalar field and `nextAction`, each with the columns it needs read. The values are those
//! the resolvers of `Payment` (`objects.rs`) give, and a test compares the two answers byte
//! for byte over sweeps of selections.

use async_graphql::resolver_utils::enum_value;
use async_graphql::{OutputType, ScalarType, Value};

use super::json::{self, Key};
use super::lifecycle::{CancellationReason, CaptureMethod, NextAction, NextActionType};
use super::listed::text;
use super::objects::{Payment, PaymentStatus};
use super::scalars::{Currency, DateTime};
use super::selection::{Collected, Document};
use crate::domain::payment;
use crate::persistence::payment_pages::{PaymentColumns, PaymentDetail};

/// A field of `Payment` answered from the row.
#[derive(Clone, Debug)]
pub enum Shown {
    Typename,
    Id,
    Amount,
    Currency,
    Status,
    AmountRefunded,
    CaptureMethod,
    AmountCapturable,
    AmountCaptured,
    CaptureBefore,
    CancellationReason,
    AmountRefundable,
    Source,
    Description,
    Reference,
    /// `metadata`, with what its selection shows of each entry.
    Metadata(Vec<(Key, EntryPart)>),
    FailureCode,
    FailureMessage,
    CreatedAt,
    UpdatedAt,
    /// `nextAction`, with what its selection shows.
    NextAction(Vec<(Key, ActionPart)>),
}

/// What the selection of an object field (of type `type_name`) shows, each response key with
/// the part `part` names; `None` unless every field of it is a plain leaf `part` knows.
fn parts_of<P>(
    doc: Document<'_>,
    collected: &Collected<'_>,
    type_name: &str,
    part: impl Fn(&str) -> Option<P>,
) -> Option<Vec<(Key, P)>> {
    let sets = collected.fields.iter().map(|f| &f.node.selection_set.node);
    doc.collect(sets, type_name)?
        .iter()
        .map(|field| {
            if !field.is_plain() || !field.is_leaf() {
                return None;
            }
            Some((Key::new(field.key.clone()).ok()?, part(field.name())?))
        })
        .collect()
}

/// A field of `MetadataEntry`.
#[derive(Clone, Copy, Debug)]
pub enum EntryPart {
    Typename,
    Key,
    Value,
}

/// A field of `NextAction`.
#[derive(Clone, Copy, Debug)]
pub enum ActionPart {
    Typename,
    Type,
    RedirectUrl,
}

impl Shown {
    /// The leaf field `name` of `Payment`, if it is answered from the row.
    pub fn named(name: &str) -> Option<Shown> {
        Some(match name {
            "__typename" => Shown::Typename,
            "id" => Shown::Id,
            "amount" => Shown::Amount,
            "currency" => Shown::Currency,
            "status" => Shown::Status,
            "amountRefunded" => Shown::AmountRefunded,
            "captureMethod" => Shown::CaptureMethod,
            "amountCapturable" => Shown::AmountCapturable,
            "amountCaptured" => Shown::AmountCaptured,
            "captureBefore" => Shown::CaptureBefore,
            "cancellationReason" => Shown::CancellationReason,
            "amountRefundable" => Shown::AmountRefundable,
            "source" => Shown::Source,
            "description" => Shown::Description,
            "reference" => Shown::Reference,
            "failureCode" => Shown::FailureCode,
            "failureMessage" => Shown::FailureMessage,
            "createdAt" => Shown::CreatedAt,
            "updatedAt" => Shown::UpdatedAt,
            _ => return None,
        })
    }

    /// What the (plain) field of one response key shows, when it is answered from the row.
    pub fn planned(doc: Document<'_>, collected: &Collected<'_>) -> Option<Shown> {
        if collected.is_leaf() {
            return Shown::named(collected.name());
        }
        if collected.name() == "metadata" {
            return Shown::metadata(doc, collected);
        }
        if collected.name() != "nextAction" {
            return None;
        }
        let parts = parts_of(doc, collected, "NextAction", |name| {
            Some(match name {
                "__typename" => ActionPart::Typename,
                "type" => ActionPart::Type,
                "redirectUrl" => ActionPart::RedirectUrl,
                _ => return None,
            })
        })?;
        Some(Shown::NextAction(parts))
    }

    fn metadata(doc: Document<'_>, collected: &Collected<'_>) -> Option<Shown> {
        let parts = parts_of(doc, collected, "MetadataEntry", |name| {
            Some(match name {
                "__typename" => EntryPart::Typename,
                "key" => EntryPart::Key,
                "value" => EntryPart::Value,
                _ => return None,
            })
        })?;
        Some(Shown::Metadata(parts))
    }

    /// The columns the field `name` of `Payment` needs read, beyond the listing's: every
    /// column for a field not known here (its resolver may read any).
    pub fn columns_of(name: &str) -> PaymentColumns {
        let listing = PaymentColumns::LISTING;
        let detail = match name {
            "captureMethod" => PaymentDetail::CaptureMethod,
            "amountCapturable" => PaymentDetail::AmountCapturable,
            "captureBefore" => PaymentDetail::CaptureBefore,
            "cancellationReason" => PaymentDetail::CancellationReason,
            "source" => PaymentDetail::Source,
            "description" => PaymentDetail::Description,
            "reference" => PaymentDetail::Reference,
            "metadata" => PaymentDetail::Metadata,
            "failureCode" => PaymentDetail::FailureCode,
            "failureMessage" => PaymentDetail::FailureMessage,
            "nextAction" => PaymentDetail::NextActionUrl,
            // The events of a page are loaded by the payments' ids.
            "events" => return listing,
            _ if Shown::named(name).is_some() => return listing,
            // `refunds` shows each refund's payment in full; anything else may read any
            // column.
            _ => return PaymentColumns::ALL,
        };
        listing.with(detail)
    }

    /// Whether the field is a leaf (not `metadata` or `nextAction`, which are objects).
    pub fn is_leaf(&self) -> bool {
        !matches!(self, Shown::Metadata(_) | Shown::NextAction(_))
    }

    /// [`Shown::value`] as JSON text: the fields of a page's listing written from the row
    /// (the rest through their value, so that both agree by construction).
    pub fn write(&self, payment: &payment::Payment, out: &mut Vec<u8>) -> serde_json::Result<()> {
        match self {
            Shown::Typename => json::string(out, &Payment::type_name()),
            Shown::Id => json::string(out, &payment.id),
            Shown::Amount => json::integer(out, payment.amount.get()),
            Shown::Currency => json::string(out, payment.currency.code_str()),
            Shown::Status => json::enumerated(out, PaymentStatus::from(payment.status)),
            Shown::Source => json::string(out, &payment.source),
            Shown::Description => json::optional(out, payment.description.as_deref()),
            Shown::Reference => json::optional(out, payment.reference.as_deref()),
            Shown::FailureCode => json::optional(out, payment.failure_code.as_deref()),
            Shown::FailureMessage => json::optional(out, payment.failure_message.as_deref()),
            Shown::CreatedAt => json::timestamp(out, payment.created_at),
            Shown::UpdatedAt => json::timestamp(out, payment.updated_at),
            _ => json::write_value(out, &self.value(payment)),
        }
    }

    /// The field's value, as `Payment`'s resolver of the same name gives it.
    pub fn value(&self, payment: &payment::Payment) -> Value {
        match self {
            Shown::Typename => Value::String(Payment::type_name().into_owned()),
            Shown::Id => Value::String(payment.id.clone()),
            Shown::Amount => Value::from(payment.amount.get()),
            Shown::Currency => Currency(payment.currency).to_value(),
            Shown::Status => enum_value(PaymentStatus::from(payment.status)),
            Shown::AmountRefunded => Value::from(payment.amount_refunded),
            Shown::CaptureMethod => enum_value(CaptureMethod::from(payment.capture_method)),
            Shown::AmountCapturable => Value::from(payment.amount_capturable),
            Shown::AmountCaptured => Value::from(payment.amount_captured),
            Shown::CaptureBefore => payment
                .capture_before
                .map_or(Value::Null, |at| DateTime(at).to_value()),
            Shown::CancellationReason => {
                payment.cancellation_reason.map_or(Value::Null, |reason| {
                    enum_value(CancellationReason::from(reason))
                })
            }
            Shown::AmountRefundable => Value::from(payment.amount_refundable()),
            Shown::Source => Value::String(payment.source.clone()),
            Shown::Description => text(&payment.description),
            Shown::Reference => text(&payment.reference),
            Shown::Metadata(parts) => Value::List(
                payment
                    .metadata
                    .entries()
                    .iter()
                    .map(|(key, value)| {
                        super::listed::object(parts.iter().map(|(name, part)| {
                            let shown = match part {
                                EntryPart::Typename => Value::String(
                                    super::merchant_data::MetadataEntry::type_name().into_owned(),
                                ),
                                EntryPart::Key => Value::String(key.clone()),
                                EntryPart::Value => Value::String(value.clone()),
                            };
                            (name.name().clone(), shown)
                        }))
                    })
                    .collect(),
            ),
            Shown::FailureCode => text(&payment.failure_code),
            Shown::FailureMessage => text(&payment.failure_message),
            Shown::CreatedAt => DateTime(payment.created_at).to_value(),
            Shown::UpdatedAt => DateTime(payment.updated_at).to_value(),
            Shown::NextAction(parts) => match &payment.next_action_url {
                None => Value::Null,
                Some(url) => super::listed::object(parts.iter().map(|(key, part)| {
                    let value = match part {
                        ActionPart::Typename => Value::String(NextAction::type_name().into_owned()),
                        ActionPart::Type => enum_value(NextActionType::RedirectToUrl),
                        ActionPart::RedirectUrl => Value::String(url.clone()),
                    };
                    (key.name().clone(), value)
                })),
            },
        }
    }
}
