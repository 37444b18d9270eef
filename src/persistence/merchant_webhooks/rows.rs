//! The one mapping between the merchant webhook tables' rows and the domain's endpoints,
//! deliveries and attempts.

use crate::domain::feed::FeedPosition;
use crate::domain::status::PaymentStatus;
use crate::domain::time::Timestamp;
use crate::domain::webhook_endpoint::{
    DeliveryStatus, WebhookAttempt, WebhookDelivery, WebhookEndpoint,
};
use crate::persistence::DbError;
use crate::persistence::entities::{webhook_attempts, webhook_deliveries, webhook_endpoints};

pub(super) fn endpoint(row: webhook_endpoints::Model) -> Result<WebhookEndpoint, DbError> {
    let statuses = row
        .statuses
        .split(',')
        .filter(|s| !s.is_empty())
        .map(|s| PaymentStatus::parse(s).ok_or_else(|| DbError::unreadable("payment status", s)))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(WebhookEndpoint {
        id: row.id,
        account_id: row.account_id,
        url: row.url,
        description: row.description,
        statuses,
        event_types: row
            .event_types
            .split(',')
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect(),
        secret: row.secret,
        previous_secret: row
            .previous_secret
            .zip(row.previous_secret_expires_at)
            .map(|(secret, until)| (secret, Timestamp::from_micros(until))),
        enabled: row.enabled,
        disabled_reason: row.disabled_reason,
        last_success_at: row.last_success_at.map(Timestamp::from_micros),
        feed_from: FeedPosition {
            txid: row.feed_txid,
            position: row.feed_position,
        },
        version: row.version,
        created_at: Timestamp::from_micros(row.created_at),
        updated_at: Timestamp::from_micros(row.updated_at),
    })
}

pub(super) fn endpoint_row(e: &WebhookEndpoint) -> webhook_endpoints::Model {
    webhook_endpoints::Model {
        id: e.id.clone(),
        account_id: e.account_id.clone(),
        url: e.url.clone(),
        description: e.description.clone(),
        statuses: e
            .statuses
            .iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join(","),
        event_types: e.event_types.join(","),
        secret: e.secret.clone(),
        previous_secret: e.previous_secret.as_ref().map(|(s, _)| s.clone()),
        previous_secret_expires_at: e.previous_secret.as_ref().map(|(_, at)| at.micros()),
        enabled: e.enabled,
        disabled_reason: e.disabled_reason.clone(),
        last_success_at: e.last_success_at.map(Timestamp::micros),
        feed_txid: e.feed_from.txid,
        feed_position: e.feed_from.position,
        version: e.version,
        created_at: e.created_at.micros(),
        updated_at: e.updated_at.micros(),
    }
}

pub(super) fn delivery(row: webhook_deliveries::Model) -> Result<WebhookDelivery, DbError> {
    Ok(WebhookDelivery {
        status: DeliveryStatus::parse(&row.status)
            .ok_or_else(|| DbError::unreadable("delivery status", &row.status))?,
        id: row.id,
        endpoint_id: row.endpoint_id,
        account_id: row.account_id,
        event_id: row.event_id,
        event_type: row.event_type,
        payment_id: row.payment_id,
        payment_version: row.payment_version,
        body: row.body,
        attempt_count: row.attempt_count,
        first_attempt_at: row.first_attempt_at.map(Timestamp::from_micros),
        next_attempt_at: row.next_attempt_at.map(Timestamp::from_micros),
        created_at: Timestamp::from_micros(row.created_at),
    })
}

pub(super) fn attempt(row: webhook_attempts::Model) -> WebhookAttempt {
    WebhookAttempt {
        id: row.id,
        delivery_id: row.delivery_id,
        at: Timestamp::from_micros(row.at),
        status_code: row.status_code,
        duration_ms: row.duration_ms,
        error: row.error,
    }
}
