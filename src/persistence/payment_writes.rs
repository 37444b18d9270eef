//! Writing payments: creation for an idempotency key, and status transitions with an
//! optimistic-lock check and an event row, each in one transaction.

use sea_orm::sea_query::Expr;
use sea_orm::{ActiveModelTrait, ActiveValue::Set, ColumnTrait, EntityTrait, QueryFilter};

use super::entities::{payment_events, payments};
use super::payments::{NewPayment, Payment};
use super::{Db, DbError, idempotency};
use crate::domain::ids::{IdKind, new_id};
use crate::domain::status::PaymentStatus;
use crate::domain::time::Timestamp;

/// The idempotency key a write completes or is linked to.
#[derive(Clone, Copy, Debug)]
pub struct KeyRef<'a> {
    pub account_id: &'a str,
    pub key: &'a str,
}

/// The stored outcome of a key: the payment as the request produced it.
pub fn outcome_of(payment: &Payment) -> String {
    serde_json::to_string(payment).unwrap_or_default()
}

pub fn payment_from_outcome(outcome: &str) -> Option<Payment> {
    serde_json::from_str(outcome).ok()
}

/// Creates a payment and its first event, linked to `key`; when `complete` is set the key is
/// also marked done with the payment as its outcome, all in one transaction.
pub async fn create_for_key(
    db: &Db,
    new: NewPayment,
    key: KeyRef<'_>,
    complete: bool,
) -> Result<Payment, DbError> {
    let txn = db.begin_write().await?;
    let id = new_id(IdKind::Payment);
    let payment = payments::ActiveModel {
        processor_key: Set(id.clone()),
        id: Set(id),
        account_id: Set(new.account_id),
        amount: Set(new.amount),
        currency: Set(new.currency),
        status: Set(new.status.as_str().to_string()),
        amount_refunded: Set(0),
        source: Set(new.source),
        description: Set(new.description),
        failure_code: Set(None),
        failure_message: Set(None),
        processor_ref: Set(None),
        version: Set(0),
        created_at: Set(new.created_at.micros()),
        updated_at: Set(new.created_at.micros()),
    }
    .insert(&txn)
    .await?;
    insert_event(&txn, &payment, None, "created", new.created_at).await?;
    if complete {
        idempotency::complete(
            &txn,
            key.account_id,
            key.key,
            &payment.id,
            &outcome_of(&payment),
        )
        .await?;
    } else {
        idempotency::link_payment(&txn, key.account_id, key.key, &payment.id).await?;
    }
    txn.commit().await?;
    Ok(payment)
}

async fn insert_event(
    conn: &impl sea_orm::ConnectionTrait,
    payment: &Payment,
    from: Option<&str>,
    reason: &str,
    at: Timestamp,
) -> Result<(), DbError> {
    payment_events::ActiveModel {
        id: Set(new_id(IdKind::PaymentEvent)),
        payment_id: Set(payment.id.clone()),
        account_id: Set(payment.account_id.clone()),
        from_status: Set(from.map(str::to_string)),
        to_status: Set(payment.status.clone()),
        reason: Set(Some(reason.to_string())),
        created_at: Set(at.micros()),
    }
    .insert(conn)
    .await?;
    Ok(())
}

/// Fields a transition may set besides the status.
#[derive(Clone, Debug, Default)]
pub struct Changes {
    pub failure_code: Option<String>,
    pub failure_message: Option<String>,
    pub processor_ref: Option<String>,
}

/// What a transition does to the idempotency key of the request making it.
#[derive(Clone, Copy, Debug)]
pub enum KeyAction<'a> {
    None,
    /// Record that the key's request is working on this payment.
    Link(KeyRef<'a>),
    /// Mark the key done, with the payment after the transition as its outcome.
    Complete(KeyRef<'a>),
}

/// A transition lost to a concurrent writer: re-read and decide again.
#[derive(Debug)]
pub struct StaleVersion;

/// Moves `payment` (as read, with its version) to `to`, appending the event and applying
/// `key`. One transaction; `StaleVersion` when another writer changed the payment first.
pub async fn transition(
    db: &Db,
    payment: &Payment,
    to: PaymentStatus,
    reason: &str,
    changes: Changes,
    key: KeyAction<'_>,
) -> Result<Result<Payment, StaleVersion>, DbError> {
    let now = Timestamp::now();
    let txn = db.begin_write().await?;
    let mut update = payments::Entity::update_many()
        .col_expr(payments::Column::Status, Expr::value(to.as_str()))
        .col_expr(payments::Column::Version, Expr::value(payment.version + 1))
        .col_expr(payments::Column::UpdatedAt, Expr::value(now.micros()))
        .filter(payments::Column::Id.eq(&payment.id))
        .filter(payments::Column::Version.eq(payment.version));
    let mut updated = payment.clone();
    if let Some(code) = &changes.failure_code {
        update = update.col_expr(payments::Column::FailureCode, Expr::value(code.clone()));
        updated.failure_code = Some(code.clone());
    }
    if let Some(message) = &changes.failure_message {
        update = update.col_expr(
            payments::Column::FailureMessage,
            Expr::value(message.clone()),
        );
        updated.failure_message = Some(message.clone());
    }
    if let Some(reference) = &changes.processor_ref {
        update = update.col_expr(
            payments::Column::ProcessorRef,
            Expr::value(reference.clone()),
        );
        updated.processor_ref = Some(reference.clone());
    }
    if update.exec(&txn).await?.rows_affected != 1 {
        txn.rollback().await?;
        return Ok(Err(StaleVersion));
    }
    updated.status = to.as_str().to_string();
    updated.version = payment.version + 1;
    updated.updated_at = now.micros();
    insert_event(&txn, &updated, Some(&payment.status), reason, now).await?;
    match key {
        KeyAction::None => {}
        KeyAction::Link(k) => {
            idempotency::link_payment(&txn, k.account_id, k.key, &updated.id).await?
        }
        KeyAction::Complete(k) => {
            idempotency::complete(
                &txn,
                k.account_id,
                k.key,
                &updated.id,
                &outcome_of(&updated),
            )
            .await?
        }
    }
    txn.commit().await?;
    Ok(Ok(updated))
}

/// Marks a key done with the payment as it stands (no status change), e.g. an asynchronous
/// charge that stays PROCESSING until its webhook.
pub async fn complete_key(db: &Db, payment: &Payment, key: KeyRef<'_>) -> Result<(), DbError> {
    idempotency::complete(
        db.conn(),
        key.account_id,
        key.key,
        &payment.id,
        &outcome_of(payment),
    )
    .await
}
