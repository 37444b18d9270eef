//! One mapping per table between its rows and the domain's values: statuses, currencies and
//! amounts are read from their stored text and numbers here, and nowhere else.

use sea_orm::ActiveValue::Set;

use super::DbError;
use super::entities::{accounts, api_keys, idempotency_keys, payment_events, payments, refunds};
use crate::domain::account::{Account, ApiKey};
use crate::domain::capture::{CancellationReason, CaptureMethod};
use crate::domain::currency::Currency;
use crate::domain::idempotency::{IdempotencyRecord, KeyState};
use crate::domain::merchant_data::Metadata;
use crate::domain::money::MinorUnits;
use crate::domain::payment::{Payment, PaymentEvent, Refund};
use crate::domain::scope::Scopes;
use crate::domain::status::{PaymentStatus, RefundStatus};
use crate::domain::time::Timestamp;

pub(crate) fn payment_status(text: &str) -> Result<PaymentStatus, DbError> {
    PaymentStatus::parse(text).ok_or_else(|| DbError::unreadable("payment status", text))
}

pub(crate) fn currency(text: &str) -> Result<Currency, DbError> {
    Currency::parse(text).map_err(|_| DbError::unreadable("currency", text))
}

pub(crate) fn amount(value: i64) -> Result<MinorUnits, DbError> {
    MinorUnits::parse(value).map_err(|_| DbError::unreadable("amount", &value.to_string()))
}

pub(crate) fn capture_method(text: &str) -> Result<CaptureMethod, DbError> {
    CaptureMethod::parse(text).ok_or_else(|| DbError::unreadable("capture method", text))
}

pub(crate) fn cancellation_reason(
    text: Option<&str>,
) -> Result<Option<CancellationReason>, DbError> {
    text.map(|text| {
        CancellationReason::parse(text)
            .ok_or_else(|| DbError::unreadable("cancellation reason", text))
    })
    .transpose()
}

pub(crate) fn metadata(text: Option<&str>) -> Result<Metadata, DbError> {
    // The metadata is a merchant's text: it is not quoted in the error.
    Metadata::from_json(text).ok_or_else(|| DbError::unreadable("payment metadata", "(not shown)"))
}

// payments

pub(crate) fn payment(row: payments::Model) -> Result<Payment, DbError> {
    let metadata = metadata(row.metadata.as_deref())?;
    Ok(Payment {
        reference: row.reference,
        metadata,
        amount: amount(row.amount)?,
        currency: currency(&row.currency)?,
        status: payment_status(&row.status)?,
        id: row.id,
        account_id: row.account_id,
        amount_refunded: row.amount_refunded,
        capture_method: capture_method(&row.capture_method)?,
        amount_capturable: row.amount_capturable,
        amount_captured: row.amount_captured,
        capture_before: row.capture_before.map(Timestamp::from_micros),
        capture_amount: row.capture_amount,
        cancellation_reason: cancellation_reason(row.cancellation_reason.as_deref())?,
        next_action_url: row.next_action_url,
        return_url: row.return_url,
        source: row.source,
        description: row.description,
        failure_code: row.failure_code,
        failure_message: row.failure_message,
        processor_key: row.processor_key,
        processor_ref: row.processor_ref,
        version: row.version,
        created_at: Timestamp::from_micros(row.created_at),
        updated_at: Timestamp::from_micros(row.updated_at),
    })
}

pub(crate) fn payments(rows: Vec<payments::Model>) -> Result<Vec<Payment>, DbError> {
    rows.into_iter().map(payment).collect()
}

pub(crate) fn payment_row(p: &Payment) -> payments::Model {
    payments::Model {
        id: p.id.clone(),
        account_id: p.account_id.clone(),
        amount: p.amount.get(),
        currency: p.currency.code(),
        status: p.status.as_str().to_string(),
        amount_refunded: p.amount_refunded,
        capture_method: p.capture_method.as_str().to_string(),
        amount_capturable: p.amount_capturable,
        amount_captured: p.amount_captured,
        capture_before: p.capture_before.map(Timestamp::micros),
        capture_amount: p.capture_amount,
        cancellation_reason: p.cancellation_reason.map(|r| r.as_str().to_string()),
        next_action_url: p.next_action_url.clone(),
        return_url: p.return_url.clone(),
        source: p.source.clone(),
        description: p.description.clone(),
        reference: p.reference.clone(),
        metadata: p.metadata.to_json(),
        failure_code: p.failure_code.clone(),
        failure_message: p.failure_message.clone(),
        processor_key: p.processor_key.clone(),
        processor_ref: p.processor_ref.clone(),
        version: p.version,
        created_at: p.created_at.micros(),
        updated_at: p.updated_at.micros(),
    }
}

// refunds

pub(crate) fn refund(row: refunds::Model) -> Result<Refund, DbError> {
    Ok(Refund {
        amount: amount(row.amount)?,
        currency: currency(&row.currency)?,
        status: RefundStatus::parse(&row.status)
            .ok_or_else(|| DbError::unreadable("refund status", &row.status))?,
        id: row.id,
        payment_id: row.payment_id,
        account_id: row.account_id,
        reason: row.reason,
        failure_code: row.failure_code,
        processor_key: row.processor_key,
        processor_ref: row.processor_ref,
        version: row.version,
        created_at: Timestamp::from_micros(row.created_at),
        updated_at: Timestamp::from_micros(row.updated_at),
    })
}

pub(crate) fn refunds(rows: Vec<refunds::Model>) -> Result<Vec<Refund>, DbError> {
    rows.into_iter().map(refund).collect()
}

pub(crate) fn refund_row(r: &Refund) -> refunds::Model {
    refunds::Model {
        id: r.id.clone(),
        payment_id: r.payment_id.clone(),
        account_id: r.account_id.clone(),
        amount: r.amount.get(),
        currency: r.currency.code(),
        status: r.status.as_str().to_string(),
        reason: r.reason.clone(),
        failure_code: r.failure_code.clone(),
        processor_key: r.processor_key.clone(),
        processor_ref: r.processor_ref.clone(),
        version: r.version,
        created_at: r.created_at.micros(),
        updated_at: r.updated_at.micros(),
    }
}

// payment_events

pub(crate) fn event(row: payment_events::Model) -> Result<PaymentEvent, DbError> {
    Ok(PaymentEvent {
        from_status: row.from_status.as_deref().map(payment_status).transpose()?,
        to_status: payment_status(&row.to_status)?,
        id: row.id,
        payment_id: row.payment_id,
        account_id: row.account_id,
        reason: row.reason,
        created_at: Timestamp::from_micros(row.created_at),
        event_type: row.event_type,
        refund_id: row.refund_id,
    })
}

/// `refund` as an event stores it: its row as JSON.
pub(crate) fn refund_snapshot(refund: &Refund) -> String {
    serde_json::to_string(&refund_row(refund)).unwrap_or_default()
}

/// The refund a refund event's snapshot holds.
pub(crate) fn refund_from_snapshot(text: &str) -> Result<Refund, DbError> {
    let row: refunds::Model = serde_json::from_str(text)
        .map_err(|e| DbError::Other(format!("unreadable stored refund snapshot: {e}")))?;
    refund(row)
}

/// `payment` as an event stores it: its row as JSON.
pub(crate) fn snapshot(payment: &Payment) -> String {
    serde_json::to_string(&payment_row(payment)).unwrap_or_default()
}

/// The payment an event's snapshot holds.
pub(crate) fn from_snapshot(text: &str) -> Result<Payment, DbError> {
    // The snapshot holds a merchant's free text: it is not quoted in the error.
    let row: payments::Model = serde_json::from_str(text)
        .map_err(|e| DbError::Other(format!("unreadable stored event snapshot: {e}")))?;
    payment(row)
}

pub(crate) fn events(rows: Vec<payment_events::Model>) -> Result<Vec<PaymentEvent>, DbError> {
    rows.into_iter().map(event).collect()
}

/// The row of event `e`, carrying `payment` as the change left it.
pub(crate) fn event_row(e: &PaymentEvent, payment: &Payment) -> payment_events::ActiveModel {
    payment_events::ActiveModel {
        snapshot: Set(Some(snapshot(payment))),
        id: Set(e.id.clone()),
        payment_id: Set(e.payment_id.clone()),
        account_id: Set(e.account_id.clone()),
        from_status: Set(e.from_status.map(|s| s.as_str().to_string())),
        to_status: Set(e.to_status.as_str().to_string()),
        reason: Set(e.reason.clone()),
        created_at: Set(e.created_at.micros()),
        event_type: Set(e.event_type.clone()),
        refund_id: Set(e.refund_id.clone()),
        refund_snapshot: Set(None),
        txid: sea_orm::ActiveValue::NotSet,
    }
}

/// The row of refund event `e`: `payment` and `refund` as the change left them.
pub(crate) fn refund_event_row(
    e: &PaymentEvent,
    payment: &Payment,
    refund: &Refund,
) -> payment_events::ActiveModel {
    let mut row = event_row(e, payment);
    row.refund_snapshot = Set(Some(refund_snapshot(refund)));
    row
}

// idempotency_keys

pub(crate) fn key_record(row: idempotency_keys::Model) -> Result<IdempotencyRecord, DbError> {
    Ok(IdempotencyRecord {
        state: KeyState::parse(&row.state)
            .ok_or_else(|| DbError::unreadable("key state", &row.state))?,
        account_id: row.account_id,
        key: row.key,
        operation: row.operation,
        request_hash: row.request_hash,
        locked_at: row.locked_at.map(Timestamp::from_micros),
        payment_id: row.payment_id,
        refund_id: row.refund_id,
        outcome: row.outcome,
        created_at: Timestamp::from_micros(row.created_at),
        updated_at: Timestamp::from_micros(row.updated_at),
    })
}

// accounts and api_keys

pub(crate) fn account(row: accounts::Model) -> Account {
    Account {
        id: row.id,
        name: row.name,
        created_at: Timestamp::from_micros(row.created_at),
    }
}

pub(crate) fn api_key(row: api_keys::Model) -> ApiKey {
    ApiKey {
        id: row.id,
        account_id: row.account_id,
        prefix: row.prefix,
        created_at: Timestamp::from_micros(row.created_at),
        revoked_at: row.revoked_at.map(Timestamp::from_micros),
        expires_at: row.expires_at.map(Timestamp::from_micros),
        last_used_at: row.last_used_at.map(Timestamp::from_micros),
        name: row.name,
        scopes: row.scopes.as_deref().map(Scopes::from_stored),
    }
}
