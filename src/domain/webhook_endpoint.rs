//! Merchant webhooks: the endpoints a merchant registers, the deliveries of payment events to
//! them, and every attempt made.

use super::feed::FeedPosition;
use super::payment;
use super::status::PaymentStatus;
use super::time::Timestamp;

/// Where a merchant wants to hear about its payments.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WebhookEndpoint {
    /// `we_...`
    pub id: String,
    pub account_id: String,
    pub url: String,
    pub description: Option<String>,
    /// The payment statuses whose events it is sent; empty: all of them.
    pub statuses: Vec<PaymentStatus>,
    /// The event types it is sent; empty: all of them, or those `statuses` selects.
    pub event_types: Vec<String>,
    /// The signing secret (`whsec_...`) as stored: sealed when a secrets key is configured
    /// (see `domain::sealed`). Shown to the merchant once, when created or rolled.
    pub secret: String,
    /// The secret a roll replaced (as stored), and when it stops signing deliveries beside
    /// `secret`.
    pub previous_secret: Option<(String, Timestamp)>,
    pub enabled: bool,
    pub disabled_reason: Option<String>,
    pub last_success_at: Option<Timestamp>,
    /// Where the change feed stood just before it was created: every change that commits
    /// after its creation lies at or beyond this position (a few from just before may too).
    pub feed_from: FeedPosition,
    /// Incremented by every change; updates check it.
    pub version: i32,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

impl WebhookEndpoint {
    /// When the replaced secret stops signing, if it still does at `now`.
    pub fn previous_secret_expires_at(&self, now: Timestamp) -> Option<Timestamp> {
        self.previous_secret
            .as_ref()
            .map(|(_, until)| *until)
            .filter(|until| now < *until)
    }

    /// Whether an event of `event_type` (a change of the payment to `status`), at `at` in the
    /// feed, is this endpoint's to receive: it receives the changes committed after it was
    /// created, of the types it chose. Without types, `statuses` (deprecated) selects the
    /// status changes to those statuses; with neither, every event is sent.
    pub fn wants(&self, event_type: &str, status: PaymentStatus, at: FeedPosition) -> bool {
        let chosen = if !self.event_types.is_empty() {
            self.event_types.iter().any(|t| t == event_type)
        } else if !self.statuses.is_empty() {
            payment::event_type::is_status_change(event_type) && self.statuses.contains(&status)
        } else {
            true
        };
        self.enabled && at >= self.feed_from && chosen
    }
}

/// Where a delivery stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeliveryStatus {
    /// Not yet acknowledged; attempts go on.
    Pending,
    /// Acknowledged with a 2xx answer.
    Succeeded,
    /// Given up after the retry schedule ran out.
    Failed,
}

impl DeliveryStatus {
    pub const fn as_str(self) -> &'static str {
        match self {
            DeliveryStatus::Pending => "PENDING",
            DeliveryStatus::Succeeded => "SUCCEEDED",
            DeliveryStatus::Failed => "FAILED",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "PENDING" => Some(DeliveryStatus::Pending),
            "SUCCEEDED" => Some(DeliveryStatus::Succeeded),
            "FAILED" => Some(DeliveryStatus::Failed),
            _ => None,
        }
    }
}

/// One payment event on its way to one endpoint.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WebhookDelivery {
    /// `whd_...`
    pub id: String,
    pub endpoint_id: String,
    pub account_id: String,
    /// The payment event's id (`evt_...`), sent as `webhook-id` on every attempt.
    pub event_id: String,
    /// `payment.` and the new status in lower case.
    pub event_type: String,
    pub payment_id: String,
    /// The payment's version after the change: deliveries of one payment to one endpoint go
    /// in this order.
    pub payment_version: i32,
    /// The body sent on every attempt.
    pub body: String,
    pub status: DeliveryStatus,
    pub attempt_count: i32,
    pub first_attempt_at: Option<Timestamp>,
    pub next_attempt_at: Option<Timestamp>,
    pub created_at: Timestamp,
}

/// One attempt to deliver.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WebhookAttempt {
    pub id: String,
    pub delivery_id: String,
    pub at: Timestamp,
    /// The receiver's HTTP status, when it answered.
    pub status_code: Option<i32>,
    pub duration_ms: i32,
    /// Why it did not count as acknowledged, when it did not.
    pub error: Option<String>,
}
