//! Processor webhooks: check the signature and the time window, then apply each event at most
//! once; duplicates, unknown objects and events that arrive out of order are recorded and
//! ignored, never applied.

use std::time::Duration;

use super::ServiceError;
use super::feed::PaymentFeed;
use super::stale::StaleRetries;
use crate::domain::processor_event::{self, EventKind, WebhookRejection};
use crate::domain::status::PaymentStatus;
use crate::domain::time::Timestamp;
use crate::persistence::Db;
use crate::persistence::payment_writes::Written;
use crate::persistence::processor_events::{self, IncomingEvent};

pub use crate::persistence::processor_events::EventOutcome;
use crate::processor::events::WebhookEvent;

/// Why a delivery was refused: the processor should fix it, not retry it as is.
#[derive(Debug)]
pub enum Refusal {
    Signature(WebhookRejection),
    Malformed(String),
}

/// What became of a delivery.
#[derive(Debug)]
pub enum Received {
    /// Verified and recorded: what it did.
    Handled(EventOutcome),
    /// Not accepted: why.
    Refused(Refusal),
}

/// Checks and applies one delivery.
#[tracing::instrument(skip_all)]
pub async fn receive(
    db: &Db,
    feed: &PaymentFeed,
    authorization_ttl: Duration,
    secret: &[u8],
    signature: Option<&str>,
    body: &[u8],
) -> Result<Received, ServiceError> {
    let now = Timestamp::now().micros() / 1_000_000;
    if let Err(rejection) = processor_event::verify(secret, signature, body, now) {
        tracing::warn!(?rejection, "webhook refused");
        return Ok(Received::Refused(Refusal::Signature(rejection)));
    }
    let event: WebhookEvent = match serde_json::from_slice(body) {
        Ok(event) => event,
        Err(err) => {
            return Ok(Received::Refused(Refusal::Malformed(format!(
                "not a webhook event: {err}"
            ))));
        }
    };
    let Some(kind) = EventKind::parse(&event.kind) else {
        return Ok(Received::Refused(Refusal::Malformed(format!(
            "unknown event type {:?}",
            event.kind
        ))));
    };
    if event.id.is_empty() || event.id.len() > 255 {
        return Ok(Received::Refused(Refusal::Malformed(
            "event id must be 1 to 255 characters".into(),
        )));
    }
    let payload = String::from_utf8_lossy(body);
    let incoming = IncomingEvent {
        id: &event.id,
        kind,
        kind_name: &event.kind,
        processor_key: &event.data.idempotency_key,
        reference: &event.data.reference,
        failure_code: event.data.failure_code.as_deref(),
        failure_message: event.data.failure_message.as_deref(),
        payload: &payload,
        capture_before: Timestamp::now()
            .plus_seconds(i64::try_from(authorization_ttl.as_secs()).unwrap_or(i64::MAX)),
    };
    let mut retries = StaleRetries::default();
    loop {
        if let Written::Done(outcome) = processor_events::apply(db, &incoming).await? {
            match &outcome {
                EventOutcome::Applied(_) => feed.nudge(),
                EventOutcome::CustomerAnswered(payment) => {
                    let answer = if payment.status == PaymentStatus::Failed {
                        "declined"
                    } else {
                        "approved"
                    };
                    crate::metrics::record_lifecycle("customer_action", answer);
                    feed.nudge();
                }
                EventOutcome::Duplicate | EventOutcome::Ignored(_) => {}
            }
            log_handled(&event.id, &event.kind, &outcome);
            return Ok(Received::Handled(outcome));
        }
        retries.again(|| ServiceError::internal("webhook kept losing to concurrent writers"))?;
    }
}

/// One line per handled event: ids, statuses and what was done, never the payment itself (its
/// description is the merchant's free text, its source a payment instrument).
fn log_handled(event: &str, kind: &str, outcome: &EventOutcome) {
    match outcome {
        EventOutcome::Applied(payment) | EventOutcome::CustomerAnswered(payment) => tracing::info!(
            event,
            kind,
            outcome = "applied",
            payment = %payment.id,
            status = %payment.status,
            "webhook handled"
        ),
        EventOutcome::Duplicate => {
            tracing::info!(event, kind, outcome = "duplicate", "webhook handled")
        }
        EventOutcome::Ignored(_) => {
            tracing::info!(event, kind, outcome = "ignored", "webhook handled")
        }
    }
}
