//! Payments, their refunds and their events as the gateway passes them around: typed values,
//! read from storage once and carrying the rules that belong to them.

use super::capture::{CancellationReason, CaptureMethod};
use super::currency::Currency;
use super::merchant_data::Metadata;
use super::money::MinorUnits;
use super::status::{PaymentStatus, RefundStatus};
use super::time::Timestamp;

/// A payment: an amount charged to a source, and everything that became of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Payment {
    /// `pay_...`
    pub id: String,
    pub account_id: String,
    pub amount: MinorUnits,
    pub currency: Currency,
    pub status: PaymentStatus,
    /// Sum of succeeded refunds, in minor units; never more than `amount_captured`.
    pub amount_refunded: i64,
    pub capture_method: CaptureMethod,
    /// What an authorization still holds for `capturePayment`: `amount` while REQUIRES_CAPTURE,
    /// else 0.
    pub amount_capturable: i64,
    /// What was taken from the customer: `amount` for a charge captured at once, the captured
    /// part for a manual capture, 0 before.
    pub amount_captured: i64,
    /// When an uncaptured authorization is voided by the reconciler.
    pub capture_before: Option<Timestamp>,
    /// A capture sent to the processor whose outcome is not yet recorded: its amount.
    pub capture_amount: Option<i64>,
    pub cancellation_reason: Option<CancellationReason>,
    /// Where the customer acts while REQUIRES_ACTION.
    pub next_action_url: Option<String>,
    /// Where the customer is sent back to after acting.
    pub return_url: Option<String>,
    pub source: String,
    pub description: Option<String>,
    pub reference: Option<String>,
    pub metadata: Metadata,
    pub failure_code: Option<String>,
    pub failure_message: Option<String>,
    /// The idempotency key the processor knows this payment's charge by.
    pub processor_key: String,
    pub processor_ref: Option<String>,
    /// Incremented by every change; writes check it (optimistic locking).
    pub version: i32,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

impl Payment {
    /// What may still be refunded: nothing unless the payment is SUCCEEDED or
    /// PARTIALLY_REFUNDED, and never more than was captured and not yet refunded.
    pub fn amount_refundable(&self) -> i64 {
        match self.status {
            PaymentStatus::Succeeded | PaymentStatus::PartiallyRefunded => {
                (self.amount_captured - self.amount_refunded).max(0)
            }
            PaymentStatus::Pending
            | PaymentStatus::Processing
            | PaymentStatus::RequiresAction
            | PaymentStatus::RequiresCapture
            | PaymentStatus::Failed
            | PaymentStatus::Canceled
            | PaymentStatus::Refunding
            | PaymentStatus::Refunded => 0,
        }
    }
}

/// A refund of part or all of a payment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refund {
    /// `re_...`
    pub id: String,
    pub payment_id: String,
    pub account_id: String,
    pub amount: MinorUnits,
    pub currency: Currency,
    pub status: RefundStatus,
    pub reason: Option<String>,
    pub failure_code: Option<String>,
    pub processor_key: String,
    pub processor_ref: Option<String>,
    pub version: i32,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

/// One status change of a payment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PaymentEvent {
    pub id: String,
    pub payment_id: String,
    pub account_id: String,
    /// `None` for the event that created the payment.
    pub from_status: Option<PaymentStatus>,
    pub to_status: PaymentStatus,
    pub reason: Option<String>,
    pub created_at: Timestamp,
    /// `payment.<status>`, `payment.updated` or `refund.<status>` ([`event_type`]).
    pub event_type: String,
    /// The refund a `refund.*` event is about.
    pub refund_id: Option<String>,
}

/// The type of the event that records a change: `payment.` and the payment's new status in
/// lower case, `payment.updated` for a change of the merchant's data, `refund.` and the
/// refund's status for a refund's.
pub mod event_type {
    use crate::domain::status::{PaymentStatus, RefundStatus};

    pub const PAYMENT_UPDATED: &str = "payment.updated";

    pub fn of_payment(status: PaymentStatus) -> String {
        format!("payment.{}", status.as_str().to_ascii_lowercase())
    }

    pub fn of_refund(status: RefundStatus) -> String {
        match status {
            RefundStatus::Pending => "refund.created".to_string(),
            other => format!("refund.{}", other.as_str().to_ascii_lowercase()),
        }
    }

    /// Every type there is, for validating filters (made once).
    pub fn all() -> &'static [String] {
        static ALL: std::sync::LazyLock<Vec<String>> = std::sync::LazyLock::new(|| {
            let mut all: Vec<String> = PaymentStatus::ALL.iter().map(|s| of_payment(*s)).collect();
            all.push(PAYMENT_UPDATED.to_string());
            all.extend(
                [
                    RefundStatus::Pending,
                    RefundStatus::Succeeded,
                    RefundStatus::Failed,
                ]
                .into_iter()
                .map(of_refund),
            );
            all
        });
        &ALL
    }

    /// Whether an event of this type is a change of the payment's status.
    pub fn is_status_change(event_type: &str) -> bool {
        event_type.starts_with("payment.") && event_type != PAYMENT_UPDATED
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn payment(status: PaymentStatus, refunded: i64) -> Payment {
        Payment {
            id: "pay_1".into(),
            account_id: "acct_1".into(),
            amount: MinorUnits::parse(1_000).unwrap(),
            currency: Currency::parse("USD").unwrap(),
            status,
            amount_refunded: refunded,
            capture_method: CaptureMethod::Automatic,
            amount_capturable: 0,
            amount_captured: 1_000,
            capture_before: None,
            capture_amount: None,
            cancellation_reason: None,
            next_action_url: None,
            return_url: None,
            source: "tok_visa".into(),
            description: None,
            reference: None,
            metadata: Metadata::default(),
            failure_code: None,
            failure_message: None,
            processor_key: "k".into(),
            processor_ref: None,
            version: 1,
            created_at: Timestamp::from_micros(0),
            updated_at: Timestamp::from_micros(0),
        }
    }

    #[test]
    fn only_settled_charges_are_refundable() {
        assert_eq!(
            payment(PaymentStatus::Succeeded, 0).amount_refundable(),
            1_000
        );
        assert_eq!(
            payment(PaymentStatus::PartiallyRefunded, 300).amount_refundable(),
            700
        );
        for status in [
            PaymentStatus::Pending,
            PaymentStatus::Processing,
            PaymentStatus::RequiresAction,
            PaymentStatus::RequiresCapture,
            PaymentStatus::Failed,
            PaymentStatus::Canceled,
            PaymentStatus::Refunding,
            PaymentStatus::Refunded,
        ] {
            assert_eq!(payment(status, 0).amount_refundable(), 0, "{status}");
        }
    }

    #[test]
    fn a_partial_capture_bounds_refunds() {
        let mut p = payment(PaymentStatus::Succeeded, 0);
        p.amount_captured = 400;
        assert_eq!(p.amount_refundable(), 400);
        p.amount_refunded = 150;
        p.status = PaymentStatus::PartiallyRefunded;
        assert_eq!(p.amount_refundable(), 250);
    }
}
