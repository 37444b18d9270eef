//! Idempotency keys: the claim (insert-if-absent on the primary key), take-over, release and
//! expiry. The outcome is stored in the same transaction as the change it records (see
//! `payment_writes`).

use sea_orm::sea_query::Expr;
use sea_orm::{
    ActiveValue::Set, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, TryInsertResult,
};

use std::sync::atomic::{AtomicBool, Ordering};

use serde::{Deserialize, Serialize};

use super::entities::{idempotency_keys, payments, refunds};
use super::{Db, DbError, rows};
use crate::domain::idempotency::KeyState;
use crate::domain::payment::{Payment, Refund};
use crate::domain::time::Timestamp;

pub use crate::domain::idempotency::IdempotencyRecord;

/// Claims `(account, key)` for a request: the new claim, or `None` when another request
/// claimed the key first. One statement (`INSERT ... ON CONFLICT DO NOTHING RETURNING`).
pub async fn claim(
    db: &Db,
    account_id: &str,
    key: &str,
    operation: &str,
    fingerprint: &str,
    now: Timestamp,
) -> Result<Option<IdempotencyRecord>, DbError> {
    let row = idempotency_keys::ActiveModel {
        account_id: Set(account_id.to_string()),
        key: Set(key.to_string()),
        operation: Set(operation.to_string()),
        request_hash: Set(fingerprint.to_string()),
        state: Set(KeyState::Started.as_str().to_string()),
        locked_at: Set(Some(now.micros())),
        payment_id: Set(None),
        refund_id: Set(None),
        outcome: Set(None),
        created_at: Set(now.micros()),
        updated_at: Set(now.micros()),
    };
    let inserted = idempotency_keys::Entity::insert(row)
        .on_conflict_do_nothing_on([
            idempotency_keys::Column::AccountId,
            idempotency_keys::Column::Key,
        ])
        .exec_with_returning(db.conn())
        .await;
    // A conflict returns no row, which sea-orm reports as "not found".
    match inserted {
        Ok(TryInsertResult::Inserted(record)) => Ok(Some(rows::key_record(record)?)),
        Ok(TryInsertResult::Conflicted | TryInsertResult::Empty)
        | Err(sea_orm::DbErr::RecordNotFound(_)) => Ok(None),
        Err(err) => Err(err.into()),
    }
}

pub async fn find(
    db: &Db,
    account_id: &str,
    key: &str,
) -> Result<Option<IdempotencyRecord>, DbError> {
    idempotency_keys::Entity::find_by_id((account_id.to_string(), key.to_string()))
        .one(db.conn())
        .await?
        .map(rows::key_record)
        .transpose()
}

fn this_started_key(account_id: &str, key: &str) -> sea_orm::Condition {
    sea_orm::Condition::all()
        .add(idempotency_keys::Column::AccountId.eq(account_id))
        .add(idempotency_keys::Column::Key.eq(key))
        .add(idempotency_keys::Column::State.eq(KeyState::Started.as_str()))
}

/// Takes over a released or abandoned claim. Only one of several concurrent takers wins: the
/// update is conditional on the `locked_at` the taker saw.
pub async fn take_over(
    db: &Db,
    account_id: &str,
    key: &str,
    seen_locked_at: Option<Timestamp>,
    now: Timestamp,
) -> Result<bool, DbError> {
    let seen = match seen_locked_at {
        Some(at) => idempotency_keys::Column::LockedAt.eq(at.micros()),
        None => idempotency_keys::Column::LockedAt.is_null(),
    };
    let result = idempotency_keys::Entity::update_many()
        .col_expr(
            idempotency_keys::Column::LockedAt,
            Expr::value(now.micros()),
        )
        .col_expr(
            idempotency_keys::Column::UpdatedAt,
            Expr::value(now.micros()),
        )
        .filter(this_started_key(account_id, key))
        .filter(seen)
        .exec(db.conn())
        .await?;
    Ok(result.rows_affected == 1)
}

/// Lets go of a claim after a retryable failure, keeping what it produced (the payment), so a
/// retry with the key takes over at once and carries on with the same processor key.
pub async fn release(db: &Db, account_id: &str, key: &str) -> Result<(), DbError> {
    idempotency_keys::Entity::update_many()
        .col_expr(
            idempotency_keys::Column::LockedAt,
            Expr::value(Option::<i64>::None),
        )
        .col_expr(
            idempotency_keys::Column::UpdatedAt,
            Expr::value(Timestamp::now().micros()),
        )
        .filter(this_started_key(account_id, key))
        .exec(db.conn())
        .await?;
    Ok(())
}

/// Removes a claim that produced nothing (the request was refused after claiming).
pub async fn forget(db: &Db, account_id: &str, key: &str) -> Result<(), DbError> {
    idempotency_keys::Entity::delete_many()
        .filter(this_started_key(account_id, key))
        .filter(idempotency_keys::Column::PaymentId.is_null())
        .filter(idempotency_keys::Column::RefundId.is_null())
        .exec(db.conn())
        .await?;
    Ok(())
}

/// Links what a claimed request created (a payment, a refund) to its key, inside the
/// transaction that created it, so a re-execution carries on with the same rows.
pub(crate) async fn link(
    conn: &impl ConnectionTrait,
    account_id: &str,
    key: &str,
    payment_id: Option<&str>,
    refund_id: Option<&str>,
) -> Result<(), DbError> {
    let mut update =
        idempotency_keys::Entity::update_many().filter(this_started_key(account_id, key));
    if let Some(id) = payment_id {
        update = update.col_expr(idempotency_keys::Column::PaymentId, Expr::value(id));
    }
    if let Some(id) = refund_id {
        update = update.col_expr(idempotency_keys::Column::RefundId, Expr::value(id));
    }
    update.exec(conn).await?;
    Ok(())
}

/// Unlinks a key this request holds from what it was linked to, so that its refusal
/// forgets it.
pub(crate) async fn link_none(conn: &impl ConnectionTrait, key: KeyRef<'_>) -> Result<(), DbError> {
    idempotency_keys::Entity::update_many()
        .col_expr(
            idempotency_keys::Column::PaymentId,
            Expr::value(Option::<String>::None),
        )
        .col_expr(
            idempotency_keys::Column::RefundId,
            Expr::value(Option::<String>::None),
        )
        .filter(this_started_key(key.account_id, key.key))
        .exec(conn)
        .await?;
    Ok(())
}

/// Marks a key done with its stored outcome (inside the transaction that wrote the outcome).
pub(crate) async fn complete(
    conn: &impl ConnectionTrait,
    account_id: &str,
    key: &str,
    payment_id: &str,
    outcome: &str,
) -> Result<(), DbError> {
    let now = Timestamp::now().micros();
    idempotency_keys::Entity::update_many()
        .col_expr(
            idempotency_keys::Column::State,
            Expr::value(KeyState::Done.as_str()),
        )
        .col_expr(idempotency_keys::Column::PaymentId, Expr::value(payment_id))
        .col_expr(idempotency_keys::Column::Outcome, Expr::value(outcome))
        .col_expr(
            idempotency_keys::Column::LockedAt,
            Expr::value(Option::<i64>::None),
        )
        .col_expr(idempotency_keys::Column::UpdatedAt, Expr::value(now))
        .filter(this_started_key(account_id, key))
        .exec(conn)
        .await?;
    Ok(())
}

/// Deletes keys created before `cutoff`; returns how many. The key of a submit token is kept
/// while the token is (until its own sweep, after it expired): its record is what says the
/// token was used, so the token can never be used afresh while it could still be sent.
pub async fn sweep(db: &Db, cutoff: Timestamp) -> Result<u64, DbError> {
    let result = idempotency_keys::Entity::delete_many()
        .filter(idempotency_keys::Column::CreatedAt.lt(cutoff.micros()))
        .filter(sea_orm::sea_query::Expr::cust(
            "(substr(idempotency_keys.key, 1, 4) <> 'sbt_' OR NOT EXISTS (SELECT 1 FROM \
             submit_tokens WHERE submit_tokens.token_hash = substr(idempotency_keys.key, 5)))",
        ))
        .exec(db.conn())
        .await?;
    Ok(result.rows_affected)
}

// What a key's request produced.

/// The idempotency key a write completes or is linked to.
#[derive(Clone, Copy, Debug)]
pub struct KeyRef<'a> {
    pub account_id: &'a str,
    pub key: &'a str,
}

/// The one right to complete a claimed key, handed out by the service's rail to the write
/// that stores the key's outcome. The write consumes it, and says so once its transaction
/// has committed, so the rail knows the key was completed and by what.
#[must_use = "a claimed key's completion belongs to the write that stores its outcome"]
#[derive(Debug)]
pub struct Completion<'a> {
    key: KeyRef<'a>,
    committed: &'a AtomicBool,
}

impl<'a> Completion<'a> {
    /// The completion of `key`, which sets `committed` once a write has completed it. Only
    /// the rail (`service::rail`) makes these.
    pub fn new(key: KeyRef<'a>, committed: &'a AtomicBool) -> Self {
        Self { key, committed }
    }

    pub(crate) fn key(&self) -> KeyRef<'a> {
        self.key
    }

    /// The write that completed the key has committed.
    pub(crate) fn committed(self) {
        self.committed.store(true, Ordering::Release);
    }
}

/// What a key's request produced, stored with the key so a replay answers the same.
#[derive(Clone, Debug)]
pub struct StoredOutcome {
    pub payment: Payment,
    pub refund: Option<Refund>,
}

/// How an outcome is kept: the rows as they stood, as JSON.
#[derive(Serialize, Deserialize)]
struct OutcomeRows {
    payment: payments::Model,
    #[serde(default)]
    refund: Option<refunds::Model>,
}

impl StoredOutcome {
    /// Reads an outcome as [`to_json`](Self::to_json) wrote it.
    pub fn parse(text: &str) -> Result<Self, DbError> {
        let stored: OutcomeRows = serde_json::from_str(text)
            .map_err(|_| DbError::unreadable("idempotency outcome", "(not JSON)"))?;
        Ok(Self {
            payment: rows::payment(stored.payment)?,
            refund: stored.refund.map(rows::refund).transpose()?,
        })
    }

    pub(crate) fn to_json(&self) -> String {
        let stored = OutcomeRows {
            payment: rows::payment_row(&self.payment),
            refund: self.refund.as_ref().map(rows::refund_row),
        };
        serde_json::to_string(&stored).unwrap_or_default()
    }
}

pub(crate) async fn complete_key(
    conn: &impl ConnectionTrait,
    key: KeyRef<'_>,
    outcome: &StoredOutcome,
) -> Result<(), DbError> {
    complete(
        conn,
        key.account_id,
        key.key,
        &outcome.payment.id,
        &outcome.to_json(),
    )
    .await
}

/// Marks a key done with the payment as it stands (no status change), e.g. an asynchronous
/// charge that stays PROCESSING until its webhook.
pub async fn complete_key_with(
    db: &Db,
    completion: Completion<'_>,
    payment: &Payment,
    refund: Option<&Refund>,
) -> Result<(), DbError> {
    let outcome = StoredOutcome {
        payment: payment.clone(),
        refund: refund.cloned(),
    };
    complete_key(db.conn(), completion.key(), &outcome).await?;
    completion.committed();
    Ok(())
}
