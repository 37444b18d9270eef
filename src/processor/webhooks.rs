//! Processor webhooks as the processor sends them: the event body, and delivery with a
//! signature, after a delay, retried until the gateway accepts it.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::domain::time::Timestamp;
use crate::domain::webhook::{SIGNATURE_HEADER, sign};

/// Kinds of events.
pub const CHARGE_SUCCEEDED: &str = "charge.succeeded";
pub const CHARGE_FAILED: &str = "charge.failed";
pub const REFUND_SUCCEEDED: &str = "refund.succeeded";
pub const REFUND_FAILED: &str = "refund.failed";

/// One webhook event. `id` is unique per event; deliveries of the same event repeat it.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct WebhookEvent {
    pub id: String,
    #[serde(rename = "type")]
    pub kind: String,
    /// Unix seconds when the processor made the event.
    pub created: i64,
    pub data: WebhookData,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct WebhookData {
    /// The idempotency key the charge or refund was requested with.
    pub idempotency_key: String,
    pub reference: String,
    #[serde(default)]
    pub failure_code: Option<String>,
    #[serde(default)]
    pub failure_message: Option<String>,
}

impl WebhookEvent {
    pub fn new(kind: &str, data: WebhookData) -> Self {
        WebhookEvent {
            id: format!("evt_{}", ulid::Ulid::generate()),
            kind: kind.to_string(),
            created: Timestamp::now().micros() / 1_000_000,
            data,
        }
    }
}

/// Where and how a processor delivers its webhooks.
#[derive(Clone, Debug)]
pub struct WebhookTarget {
    pub url: String,
    pub secret: Vec<u8>,
    pub delay: Duration,
}

const DELIVERY_ATTEMPTS: u32 = 8;

impl WebhookTarget {
    /// Sends `event` in the background after the delay, retrying with backoff until the
    /// gateway answers 2xx.
    pub fn deliver_later(
        &self,
        event: WebhookEvent,
        before: impl Future<Output = ()> + Send + 'static,
    ) {
        let target = self.clone();
        tokio::spawn(async move {
            tokio::time::sleep(target.delay).await;
            before.await;
            target.deliver(&event).await;
        });
    }

    /// Sends `event` now, retrying until the gateway accepts it or the attempts run out.
    pub async fn deliver(&self, event: &WebhookEvent) -> bool {
        let client = reqwest::Client::new();
        let Ok(body) = serde_json::to_vec(event) else {
            return false;
        };
        let mut wait = Duration::from_millis(100);
        for attempt in 1..=DELIVERY_ATTEMPTS {
            let now = Timestamp::now().micros() / 1_000_000;
            let sent = client
                .post(&self.url)
                .header(SIGNATURE_HEADER, sign(&self.secret, now, &body))
                .header("content-type", "application/json")
                .body(body.clone())
                .timeout(Duration::from_secs(5))
                .send()
                .await;
            match sent {
                Ok(response) if response.status().is_success() => return true,
                Ok(response) => {
                    tracing::warn!(attempt, status = %response.status(), event = %event.id, "webhook refused")
                }
                Err(err) => {
                    tracing::warn!(attempt, error = %err, event = %event.id, "webhook not delivered")
                }
            }
            tokio::time::sleep(wait).await;
            wait = (wait * 2).min(Duration::from_secs(5));
        }
        false
    }
}
