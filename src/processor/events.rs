//! Processor webhooks as the processor sends them and the gateway reads them: the event body
//! and its kinds. Sending them is the sandbox's (`crate::sandbox`).

use serde::{Deserialize, Serialize};

use crate::domain::time::Timestamp;

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
