//! Processor webhook events, as the sandbox sends them, for tests that play the processor.

use graphpay::domain::time::Timestamp;
use serde_json::{Value, json};

/// A `charge.succeeded` or `charge.failed` event for the payment `payment_id`.
pub fn charge_event(id: &str, payment_id: &str, succeeded: bool) -> Value {
    json!({
        "id": id,
        "type": if succeeded { "charge.succeeded" } else { "charge.failed" },
        "created": Timestamp::now().micros() / 1_000_000,
        "data": {"idempotencyKey": payment_id, "reference": "ch_test", "failureCode": if succeeded { Value::Null } else { json!("card_declined") }},
    })
}

/// A `refund.succeeded` or `refund.failed` event for the refund `refund_id`.
pub fn refund_event(id: &str, refund_id: &str, succeeded: bool) -> Value {
    json!({
        "id": id,
        "type": if succeeded { "refund.succeeded" } else { "refund.failed" },
        "created": Timestamp::now().micros() / 1_000_000,
        "data": {"idempotencyKey": refund_id, "reference": "rf_test"},
    })
}
