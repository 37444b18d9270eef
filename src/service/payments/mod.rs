//! Payments and refunds: one money-moving operation per file, each on the idempotency rail
//! (`service::rail`), charged and refunded through the processor outside any database
//! transaction, every status change through the state machine.
//!
//! | file | operation |
//! |---|---|
//! | `create.rs` | `createPayment` |
//! | `confirm.rs` | `confirmPayment` |
//! | `cancel.rs` | `cancelPayment`, voiding an authorization |
//! | `capture.rs` | `capturePayment` |
//! | `refund.rs` | `refundPayment`, and settling a refund |
//! | `update.rs` | `updatePayment`: the merchant's own data |
//! | `charge.rs` | charging a PROCESSING payment and settling it (create and confirm) |

mod cancel;
mod capture;
mod charge;
mod confirm;
mod create;
mod refund;
mod request;
mod update;

pub use cancel::Cancel;
pub(crate) use capture::capture_key;
pub use refund::{MAX_REASON_LEN, RefundInput, RefundResult};
pub(crate) use request::merchant_data;
pub use request::{
    CreateOptions, CreatePayment, MAX_DESCRIPTION_LEN, MAX_SOURCE_LEN, PaymentResult,
};
pub use update::PaymentUpdate;

use std::time::Duration;

use super::ServiceError;
use super::feed::PaymentFeed;
use super::idempotency::IdempotencySettings;
use super::rail::Rail;
use crate::domain::time::Timestamp;
use crate::persistence::Db;
use crate::persistence::payments::{self, Payment, Refund};
use crate::processor::Retrying;

/// Failure code of a charge or refund that the processor refused outright.
pub const PROCESSOR_ERROR: &str = "processor_error";

/// How long the card lifecycle waits for what it cannot decide itself.
#[derive(Clone, Copy, Debug)]
pub struct LifecycleSettings {
    /// An authorization not captured within this is voided by the reconciler (its
    /// `captureBefore`).
    pub authorization_ttl: Duration,
    /// A customer action not answered within this is withdrawn at the processor and its
    /// payment canceled by the reconciler (`ACTION_EXPIRED`).
    pub action_ttl: Duration,
}

impl Default for LifecycleSettings {
    fn default() -> Self {
        Self {
            authorization_ttl: Duration::from_secs(7 * 86_400),
            action_ttl: Duration::from_secs(3_600),
        }
    }
}

#[derive(Clone)]
pub struct PaymentService {
    db: Db,
    processor: Retrying,
    settings: IdempotencySettings,
    feed: PaymentFeed,
    lifecycle: LifecycleSettings,
}

impl PaymentService {
    pub fn new(
        db: Db,
        processor: Retrying,
        settings: IdempotencySettings,
        feed: PaymentFeed,
        lifecycle: LifecycleSettings,
    ) -> Self {
        Self {
            db,
            processor,
            settings,
            feed,
            lifecycle,
        }
    }

    pub fn lifecycle(&self) -> LifecycleSettings {
        self.lifecycle
    }

    /// The capture deadline of an authorization approved now.
    pub(crate) fn capture_before(&self) -> Timestamp {
        let secs = i64::try_from(self.lifecycle.authorization_ttl.as_secs()).unwrap_or(i64::MAX);
        Timestamp::now().plus_seconds(secs)
    }

    /// The change feed (for subscriptions).
    pub fn feed(&self) -> &PaymentFeed {
        &self.feed
    }

    /// Says that a change has committed, so the change feed's readers look at once.
    pub(crate) fn changed(&self) {
        self.feed.nudge();
    }

    pub fn settings(&self) -> &IdempotencySettings {
        &self.settings
    }

    pub(crate) fn db(&self) -> &Db {
        &self.db
    }

    pub(crate) fn processor(&self) -> &Retrying {
        &self.processor
    }

    /// The idempotency rail the money-moving operations run on.
    fn rail(&self) -> Rail<'_> {
        Rail {
            db: &self.db,
            settings: &self.settings,
        }
    }

    pub(crate) async fn reload(&self, account_id: &str, id: &str) -> Result<Payment, ServiceError> {
        payments::find_payment(&self.db, account_id, id)
            .await?
            .ok_or_else(|| ServiceError::bad_input("paymentId", "no payment with this id"))
    }

    async fn reload_refund(&self, account_id: &str, id: &str) -> Result<Refund, ServiceError> {
        payments::find_refunds(&self.db, account_id, &[id.to_string()])
            .await?
            .pop()
            .ok_or_else(|| ServiceError::internal("a key's refund vanished"))
    }
}
