//! The body of a merchant webhook: the event and the payment as the change left it, in the
//! contract's field names.

use serde_json::{Value, json};

use crate::domain::feed::FeedEntry;
use crate::domain::payment::{Payment, PaymentEvent, Refund};

/// The JSON body sent for `entry` on every attempt; a refund's event also carries the refund
/// as the change left it (`data.refund`). `refunds` and `events` are the payment's
/// (oldest first); those made after the change are left out.
pub fn body(entry: &FeedEntry, refunds: &[Refund], events: &[PaymentEvent]) -> String {
    let at = entry.event.created_at;
    let refunds: Vec<Value> = refunds
        .iter()
        .filter(|r| r.payment_id == entry.payment.id && r.created_at <= at)
        .map(refund)
        .collect();
    let events: Vec<Value> = events
        .iter()
        .filter(|e| e.payment_id == entry.payment.id && e.created_at <= at)
        .map(event)
        .collect();
    let mut data = json!({"payment": payment(&entry.payment, refunds, events)});
    if let Some(changed) = &entry.refund {
        data["refund"] = refund(changed);
    }
    json!({
        "id": entry.event.id,
        "type": entry.event_type(),
        "createdAt": at.to_rfc3339(),
        "data": data,
    })
    .to_string()
}

fn payment(p: &Payment, refunds: Vec<Value>, events: Vec<Value>) -> Value {
    json!({
        "id": p.id,
        "amount": p.amount.get(),
        "currency": p.currency.code(),
        "status": p.status.as_str(),
        "amountRefunded": p.amount_refunded,
        "amountRefundable": p.amount_refundable(),
        "source": p.source,
        "description": p.description,
        "reference": p.reference,
        "metadata": p.metadata.to_api_json(),
        "failureCode": p.failure_code,
        "failureMessage": p.failure_message,
        "createdAt": p.created_at.to_rfc3339(),
        "updatedAt": p.updated_at.to_rfc3339(),
        "refunds": refunds,
        "events": events,
    })
}

fn refund(r: &Refund) -> Value {
    json!({
        "id": r.id,
        "amount": r.amount.get(),
        "currency": r.currency.code(),
        "status": r.status.as_str(),
        "reason": r.reason,
        "failureCode": r.failure_code,
        "createdAt": r.created_at.to_rfc3339(),
        "updatedAt": r.updated_at.to_rfc3339(),
    })
}

fn event(e: &PaymentEvent) -> Value {
    json!({
        "fromStatus": e.from_status.map(|s| s.as_str()),
        "toStatus": e.to_status.as_str(),
        "reason": e.reason,
        "createdAt": e.created_at.to_rfc3339(),
    })
}
