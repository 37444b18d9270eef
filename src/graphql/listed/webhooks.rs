//! Pages of webhook endpoints and of an endpoint's deliveries: their fields answered from the
//! row. A delivery's `payment` and `attempts` are resolved the usual way (a loader, the
//! page's attempts).

use std::sync::Arc;

use async_graphql::resolver_utils::enum_value;
use async_graphql::{OutputType, ScalarType, Value};

use super::{Fields, text};
use crate::domain::time::Timestamp;
use crate::domain::webhook_endpoint as domain;
use crate::graphql::json;
use crate::graphql::merchant_webhooks::{WebhookDelivery, WebhookDeliveryStatus, WebhookEndpoint};
use crate::graphql::objects::PaymentStatus;
use crate::graphql::scalars::DateTime;
use crate::graphql::selection::{Collected, Document};

fn instant(at: Option<Timestamp>) -> Value {
    at.map_or(Value::Null, |at| DateTime(at).to_value())
}

/// `WebhookEndpoint`, from its row.
pub struct EndpointFields;

/// A field of `WebhookEndpoint` answered from the row.
pub enum EndpointPart {
    Typename,
    Id,
    Url,
    Description,
    Statuses,
    EventTypes,
    Enabled,
    DisabledReason,
    PreviousSecretExpiresAt,
    CreatedAt,
}

impl Fields for EndpointFields {
    type Row = Arc<domain::WebhookEndpoint>;
    type Part = EndpointPart;
    const TYPE: &'static str = "WebhookEndpoint";

    fn part(_: Document<'_>, collected: &Collected<'_>) -> Option<EndpointPart> {
        if !collected.is_leaf() {
            return None;
        }
        Some(match collected.name() {
            "__typename" => EndpointPart::Typename,
            "id" => EndpointPart::Id,
            "url" => EndpointPart::Url,
            "description" => EndpointPart::Description,
            "statuses" => EndpointPart::Statuses,
            "eventTypes" => EndpointPart::EventTypes,
            "enabled" => EndpointPart::Enabled,
            "disabledReason" => EndpointPart::DisabledReason,
            "previousSecretExpiresAt" => EndpointPart::PreviousSecretExpiresAt,
            "createdAt" => EndpointPart::CreatedAt,
            _ => return None,
        })
    }

    fn value(part: &EndpointPart, row: &Self::Row) -> Value {
        match part {
            EndpointPart::Typename => Value::String(WebhookEndpoint::type_name().into_owned()),
            EndpointPart::Id => Value::String(row.id.clone()),
            EndpointPart::Url => Value::String(row.url.clone()),
            EndpointPart::Description => text(&row.description),
            EndpointPart::Statuses => Value::List(
                row.statuses
                    .iter()
                    .map(|status| enum_value(PaymentStatus::from(*status)))
                    .collect(),
            ),
            EndpointPart::EventTypes => {
                Value::List(row.event_types.iter().cloned().map(Value::String).collect())
            }
            EndpointPart::Enabled => Value::Boolean(row.enabled),
            EndpointPart::DisabledReason => text(&row.disabled_reason),
            EndpointPart::PreviousSecretExpiresAt => {
                instant(row.previous_secret_expires_at(Timestamp::now()))
            }
            EndpointPart::CreatedAt => DateTime(row.created_at).to_value(),
        }
    }

    fn write(part: &EndpointPart, row: &Self::Row, out: &mut Vec<u8>) -> serde_json::Result<()> {
        match part {
            EndpointPart::Id => json::string(out, &row.id),
            EndpointPart::Url => json::string(out, &row.url),
            EndpointPart::CreatedAt => json::timestamp(out, row.created_at),
            _ => json::write_value(out, &Self::value(part, row)),
        }
    }

    fn is_leaf(_: &EndpointPart) -> bool {
        true
    }
}

/// `WebhookDelivery`, from its row.
pub struct DeliveryFields;

/// A field of `WebhookDelivery` answered from the row.
pub enum DeliveryPart {
    Typename,
    Id,
    EventId,
    EventType,
    Status,
    NextAttemptAt,
    CreatedAt,
}

impl Fields for DeliveryFields {
    type Row = Arc<domain::WebhookDelivery>;
    type Part = DeliveryPart;
    const TYPE: &'static str = "WebhookDelivery";

    fn part(_: Document<'_>, collected: &Collected<'_>) -> Option<DeliveryPart> {
        if !collected.is_leaf() {
            return None;
        }
        Some(match collected.name() {
            "__typename" => DeliveryPart::Typename,
            "id" => DeliveryPart::Id,
            "eventId" => DeliveryPart::EventId,
            "eventType" => DeliveryPart::EventType,
            "status" => DeliveryPart::Status,
            "nextAttemptAt" => DeliveryPart::NextAttemptAt,
            "createdAt" => DeliveryPart::CreatedAt,
            _ => return None,
        })
    }

    fn value(part: &DeliveryPart, row: &Self::Row) -> Value {
        match part {
            DeliveryPart::Typename => Value::String(WebhookDelivery::type_name().into_owned()),
            DeliveryPart::Id => Value::String(row.id.clone()),
            DeliveryPart::EventId => Value::String(row.event_id.clone()),
            DeliveryPart::EventType => Value::String(row.event_type.clone()),
            DeliveryPart::Status => enum_value(WebhookDeliveryStatus::from(row.status)),
            DeliveryPart::NextAttemptAt => match row.status {
                domain::DeliveryStatus::Pending => instant(row.next_attempt_at),
                _ => Value::Null,
            },
            DeliveryPart::CreatedAt => DateTime(row.created_at).to_value(),
        }
    }

    fn write(part: &DeliveryPart, row: &Self::Row, out: &mut Vec<u8>) -> serde_json::Result<()> {
        match part {
            DeliveryPart::Id => json::string(out, &row.id),
            DeliveryPart::EventId => json::string(out, &row.event_id),
            DeliveryPart::EventType => json::string(out, &row.event_type),
            DeliveryPart::CreatedAt => json::timestamp(out, row.created_at),
            DeliveryPart::Status => json::enumerated(out, WebhookDeliveryStatus::from(row.status)),
            _ => json::write_value(out, &Self::value(part, row)),
        }
    }

    fn is_leaf(_: &DeliveryPart) -> bool {
        true
    }
}
