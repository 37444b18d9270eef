//! Writing payments and refunds: creation for an idempotency key, and status transitions with
//! an optimistic-lock check (`WHERE version = ?`) and an event row, each in one transaction.

use sea_orm::sea_query::{Expr, ExprTrait};
use sea_orm::{
    ActiveModelTrait, ActiveValue::Set, ColumnTrait, ConnectionTrait, DatabaseTransaction,
    EntityTrait, QueryFilter,
};
use serde::{Deserialize, Serialize};

use super::entities::{payment_events, payments, refunds};
use super::payments::{self as stored, NewPayment, Payment, Refund};
use super::{Db, DbError, idempotency};
use crate::domain::ids::{IdKind, new_id};
use crate::domain::status::{PaymentStatus, RefundStatus};
use crate::domain::time::Timestamp;

/// The idempotency key a write completes or is linked to.
#[derive(Clone, Copy, Debug)]
pub struct KeyRef<'a> {
    pub account_id: &'a str,
    pub key: &'a str,
}

/// What a key's request produced, stored with the key so a replay answers the same.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct StoredOutcome {
    pub payment: Payment,
    #[serde(default)]
    pub refund: Option<Refund>,
}

impl StoredOutcome {
    pub fn parse(text: &str) -> Option<Self> {
        serde_json::from_str(text).ok()
    }

    fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }
}

async fn complete_key(
    conn: &impl ConnectionTrait,
    key: KeyRef<'_>,
    outcome: &StoredOutcome,
) -> Result<(), DbError> {
    idempotency::complete(
        conn,
        key.account_id,
        key.key,
        &outcome.payment.id,
        &outcome.to_json(),
    )
    .await
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
    let payment = stored::insert_in(&txn, &new).await?;
    if complete {
        complete_key(
            &txn,
            key,
            &StoredOutcome {
                payment: payment.clone(),
                refund: None,
            },
        )
        .await?;
    } else {
        idempotency::link(&txn, key.account_id, key.key, Some(&payment.id), None).await?;
    }
    txn.commit().await?;
    Ok(payment)
}

async fn insert_event(
    conn: &impl ConnectionTrait,
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
    pub amount_refunded: Option<i64>,
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

/// A write lost to a concurrent writer: re-read and decide again.
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
    let txn = db.begin_write().await?;
    let result = transition_in(&txn, payment, to, reason, &changes).await?;
    let Ok(updated) = result else {
        txn.rollback().await?;
        return Ok(Err(StaleVersion));
    };
    match key {
        KeyAction::None => {}
        KeyAction::Link(k) => {
            idempotency::link(&txn, k.account_id, k.key, Some(&updated.id), None).await?
        }
        KeyAction::Complete(k) => {
            complete_key(
                &txn,
                k,
                &StoredOutcome {
                    payment: updated.clone(),
                    refund: None,
                },
            )
            .await?
        }
    }
    txn.commit().await?;
    Ok(Ok(updated))
}

/// The transition itself, inside a caller's transaction.
pub(crate) async fn transition_in(
    txn: &DatabaseTransaction,
    payment: &Payment,
    to: PaymentStatus,
    reason: &str,
    changes: &Changes,
) -> Result<Result<Payment, StaleVersion>, DbError> {
    let now = Timestamp::now();
    let mut update = payments::Entity::update_many()
        .col_expr(payments::Column::Status, Expr::value(to.as_str()))
        .col_expr(
            payments::Column::Version,
            Expr::col(payments::Column::Version).add(1),
        )
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
    if let Some(refunded) = changes.amount_refunded {
        update = update.col_expr(payments::Column::AmountRefunded, Expr::value(refunded));
        updated.amount_refunded = refunded;
    }
    if update.exec(txn).await?.rows_affected != 1 {
        return Ok(Err(StaleVersion));
    }
    updated.status = to.as_str().to_string();
    updated.version = payment.version + 1;
    updated.updated_at = now.micros();
    insert_event(txn, &updated, Some(&payment.status), reason, now).await?;
    Ok(Ok(updated))
}

/// Marks a key done with the payment as it stands (no status change), e.g. an asynchronous
/// charge that stays PROCESSING until its webhook.
pub async fn complete_key_with(
    db: &Db,
    key: KeyRef<'_>,
    payment: &Payment,
    refund: Option<&Refund>,
) -> Result<(), DbError> {
    let outcome = StoredOutcome {
        payment: payment.clone(),
        refund: refund.cloned(),
    };
    complete_key(db.conn(), key, &outcome).await
}

/// Starts a refund: the payment goes REFUNDING (version-checked) and a PENDING refund is
/// stored, linked to the request's key, in one transaction.
pub async fn begin_refund(
    db: &Db,
    payment: &Payment,
    amount: i64,
    reason: Option<String>,
    key: KeyRef<'_>,
) -> Result<Result<(Payment, Refund), StaleVersion>, DbError> {
    let txn = db.begin_write().await?;
    let Ok(refunding) = transition_in(
        &txn,
        payment,
        PaymentStatus::Refunding,
        "refund requested",
        &Changes::default(),
    )
    .await?
    else {
        txn.rollback().await?;
        return Ok(Err(StaleVersion));
    };
    let now = Timestamp::now().micros();
    let id = new_id(IdKind::Refund);
    let refund = refunds::ActiveModel {
        processor_key: Set(id.clone()),
        id: Set(id),
        payment_id: Set(payment.id.clone()),
        account_id: Set(payment.account_id.clone()),
        amount: Set(amount),
        currency: Set(payment.currency.clone()),
        status: Set(RefundStatus::Pending.as_str().to_string()),
        reason: Set(reason),
        failure_code: Set(None),
        processor_ref: Set(None),
        version: Set(0),
        created_at: Set(now),
        updated_at: Set(now),
    }
    .insert(&txn)
    .await?;
    idempotency::link(
        &txn,
        key.account_id,
        key.key,
        Some(&payment.id),
        Some(&refund.id),
    )
    .await?;
    txn.commit().await?;
    Ok(Ok((refunding, refund)))
}

/// Settles a PENDING refund and moves its payment on from REFUNDING, in one transaction
/// (inside `txn`); both rows are version-checked.
#[allow(clippy::too_many_arguments)]
pub(crate) async fn settle_refund_in(
    txn: &DatabaseTransaction,
    payment: &Payment,
    refund: &Refund,
    refund_to: RefundStatus,
    failure_code: Option<String>,
    processor_ref: Option<String>,
    payment_to: PaymentStatus,
    amount_refunded: i64,
) -> Result<Result<(Payment, Refund), StaleVersion>, DbError> {
    let now = Timestamp::now().micros();
    let updated = refunds::Entity::update_many()
        .col_expr(refunds::Column::Status, Expr::value(refund_to.as_str()))
        .col_expr(
            refunds::Column::FailureCode,
            Expr::value(failure_code.clone()),
        )
        .col_expr(
            refunds::Column::ProcessorRef,
            Expr::value(processor_ref.clone()),
        )
        .col_expr(
            refunds::Column::Version,
            Expr::col(refunds::Column::Version).add(1),
        )
        .col_expr(refunds::Column::UpdatedAt, Expr::value(now))
        .filter(refunds::Column::Id.eq(&refund.id))
        .filter(refunds::Column::Version.eq(refund.version))
        .exec(txn)
        .await?;
    if updated.rows_affected != 1 {
        return Ok(Err(StaleVersion));
    }
    let reason = if refund_to == RefundStatus::Succeeded {
        "refund succeeded"
    } else {
        "refund failed"
    };
    let changes = Changes {
        amount_refunded: Some(amount_refunded),
        ..Changes::default()
    };
    let Ok(payment) = transition_in(txn, payment, payment_to, reason, &changes).await? else {
        return Ok(Err(StaleVersion));
    };
    let mut settled = refund.clone();
    settled.status = refund_to.as_str().to_string();
    settled.failure_code = failure_code;
    settled.processor_ref = processor_ref;
    settled.version = refund.version + 1;
    settled.updated_at = now;
    Ok(Ok((payment, settled)))
}

/// [`settle_refund_in`] in a transaction of its own, completing `key` with both rows.
#[allow(clippy::too_many_arguments)]
pub async fn settle_refund(
    db: &Db,
    payment: &Payment,
    refund: &Refund,
    refund_to: RefundStatus,
    failure_code: Option<String>,
    processor_ref: Option<String>,
    payment_to: PaymentStatus,
    amount_refunded: i64,
    key: Option<KeyRef<'_>>,
) -> Result<Result<(Payment, Refund), StaleVersion>, DbError> {
    let txn = db.begin_write().await?;
    let result = settle_refund_in(
        &txn,
        payment,
        refund,
        refund_to,
        failure_code,
        processor_ref,
        payment_to,
        amount_refunded,
    )
    .await?;
    let Ok((payment, refund)) = result else {
        txn.rollback().await?;
        return Ok(Err(StaleVersion));
    };
    if let Some(key) = key {
        let outcome = StoredOutcome {
            payment: payment.clone(),
            refund: Some(refund.clone()),
        };
        complete_key(&txn, key, &outcome).await?;
    }
    txn.commit().await?;
    Ok(Ok((payment, refund)))
}
