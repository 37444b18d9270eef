//! Writing payments and refunds: creation for an idempotency key, and status transitions with
//! an optimistic-lock check (`WHERE version = ?`) and an event row, each in one transaction.
//!
//! Every change to a payment is announced on PostgreSQL from inside the transaction that
//! makes it (`NOTIFY` is delivered at commit, and only if the change commits). On PostgreSQL
//! the two writes of every create, the claim with the new payment and the outcome with the
//! key's completion, are each one statement (data-modifying `WITH`), so the whole
//! transaction is one round trip; on SQLite, where the database is in the process, they are
//! transactions of several statements.

use sea_orm::sea_query::{Expr, ExprTrait};
use sea_orm::{
    ActiveModelTrait, ActiveValue::Set, ColumnTrait, ConnectionTrait, DatabaseTransaction,
    DbBackend, EntityTrait, QueryFilter, Statement, Value,
};
use serde::{Deserialize, Serialize};

use super::entities::{payment_events, payments, refunds};
use super::payments::{self as stored, CREATED_REASON, NewPayment, Payment, Refund};
use super::{Backend, Db, DbError, idempotency};
use crate::domain::idempotency::KeyState;
use crate::domain::ids::{IdKind, new_id};
use crate::domain::state_machine::RefundSettlement;
use crate::domain::status::{PaymentStatus, RefundStatus};
use crate::domain::time::Timestamp;

/// The PostgreSQL channel committed payment changes are announced on.
pub const CHANGES_CHANNEL: &str = "graphpay_payment_changes";

/// On PostgreSQL, announces `payment` as it now stands, from inside the transaction that
/// changed it: listeners on every instance hear of it when, and only if, it commits. SQLite
/// has no notifications (its feed is in-process, see `service::feed`).
pub(crate) async fn announce_in(
    conn: &impl ConnectionTrait,
    payment: &Payment,
) -> Result<(), DbError> {
    if conn.get_database_backend() != DbBackend::Postgres {
        return Ok(());
    }
    let statement = Statement::from_sql_and_values(
        DbBackend::Postgres,
        "SELECT pg_notify($1, $2)",
        [CHANGES_CHANNEL.into(), announcement(payment).into()],
    );
    conn.execute_raw(statement).await?;
    Ok(())
}

/// The most an announcement carries: PostgreSQL refuses `NOTIFY` payloads of 8,000 bytes.
const MAX_ANNOUNCEMENT_BYTES: usize = 7_900;

/// Where to read a payment whose JSON is too long to announce whole.
#[derive(Debug, Serialize, Deserialize)]
struct Reread {
    reread: PaymentRef,
}

#[derive(Debug, Serialize, Deserialize)]
struct PaymentRef {
    id: String,
    account_id: String,
}

/// A payment change as a listener hears it.
#[derive(Debug)]
pub enum Announced {
    /// The payment as the change left it.
    Whole(Box<Payment>),
    /// A payment too long to announce whole (texts from the processor can be): read it.
    Reread { id: String, account_id: String },
}

/// The announcement of `payment`: its JSON, or where to read it when the JSON would not fit
/// a `NOTIFY` payload. The change never fails for the size of its announcement.
fn announcement(payment: &Payment) -> String {
    let whole = serde_json::to_string(payment).unwrap_or_default();
    if whole.len() <= MAX_ANNOUNCEMENT_BYTES {
        return whole;
    }
    let reread = Reread {
        reread: PaymentRef {
            id: payment.id.clone(),
            account_id: payment.account_id.clone(),
        },
    };
    serde_json::to_string(&reread).unwrap_or_default()
}

/// Reads an announcement made by [`announce_in`] or the single-statement writes.
pub fn parse_announcement(payload: &str) -> Option<Announced> {
    if let Ok(payment) = serde_json::from_str::<Payment>(payload) {
        return Some(Announced::Whole(Box::new(payment)));
    }
    let Reread { reread } = serde_json::from_str(payload).ok()?;
    Some(Announced::Reread {
        id: reread.id,
        account_id: reread.account_id,
    })
}

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

/// Creates a payment and its first event for a key this request holds (taken over from an
/// attempt that created nothing), linked to `key`; when `complete` is set the key is also
/// marked done with the payment as its outcome, all in one transaction.
pub async fn create_for_key(
    db: &Db,
    new: NewPayment,
    key: KeyRef<'_>,
    complete: bool,
) -> Result<Payment, DbError> {
    let txn = db.begin_write().await?;
    let payment = stored::insert_in(&txn, &new).await?;
    link_or_complete(&txn, key, &payment, complete).await?;
    txn.commit().await?;
    Ok(payment)
}

async fn link_or_complete(
    txn: &DatabaseTransaction,
    key: KeyRef<'_>,
    payment: &Payment,
    complete: bool,
) -> Result<(), DbError> {
    if complete {
        let outcome = StoredOutcome {
            payment: payment.clone(),
            refund: None,
        };
        complete_key(txn, key, &outcome).await
    } else {
        idempotency::link(txn, key.account_id, key.key, Some(&payment.id), None).await
    }
}

/// A request's claim on a fresh idempotency key.
#[derive(Clone, Copy, Debug)]
pub struct NewClaim<'a> {
    pub key: KeyRef<'a>,
    pub operation: &'a str,
    pub fingerprint: &'a str,
}

/// Claims a fresh idempotency key and creates its payment: the claim, the payment, its first
/// event and, when `complete` is set, the key's stored outcome. `None` when the key already
/// exists (an earlier or a concurrent request claimed it): then nothing is written, and the
/// caller reads the key to decide.
///
/// On PostgreSQL it is all one statement, written all or none. On SQLite the claim is its own
/// statement, committed before the payment's transaction: a replay, which only tries to claim,
/// then holds the single write lock for one statement rather than a transaction. A crash or a
/// failed transaction in between leaves a claim with no payment, which is taken over after the lock timeout and
/// carried on like any other (see `service::idempotency`).
pub async fn claim_and_create(
    db: &Db,
    claim: NewClaim<'_>,
    new: &NewPayment,
    complete: bool,
) -> Result<Option<Payment>, DbError> {
    if db.backend() == Backend::Postgres {
        return claim_and_create_in_one_statement(db, claim, new, complete).await;
    }
    let claimed = idempotency::claim(
        db,
        claim.key.account_id,
        claim.key.key,
        claim.operation,
        claim.fingerprint,
        new.created_at,
    )
    .await?;
    if claimed.is_none() {
        return Ok(None);
    }
    let txn = db.begin_write().await?;
    let payment = stored::insert_in(&txn, new).await?;
    link_or_complete(&txn, claim.key, &payment, complete).await?;
    txn.commit().await?;
    Ok(Some(payment))
}

/// [`claim_and_create`] on PostgreSQL. Each part reads the rows the one before it returned,
/// so nothing is written unless the claim is; `NOTIFY` announces the payment at commit.
const CLAIM_AND_CREATE: &str = "\
WITH claim AS (
    INSERT INTO idempotency_keys (account_id, key, operation, request_hash, state, locked_at,
        payment_id, refund_id, outcome, created_at, updated_at)
    VALUES ($1, $2, $3, $4, $5, $6, $7, NULL, $8, $9, $9)
    ON CONFLICT (account_id, key) DO NOTHING
    RETURNING payment_id
), payment AS (
    INSERT INTO payments (id, account_id, amount, currency, status, amount_refunded, source,
        description, failure_code, failure_message, processor_key, processor_ref, version,
        created_at, updated_at)
    SELECT payment_id, $1, $10, $11, $12, 0, $13, $14, NULL, NULL, $15, NULL, 0, $9, $9
    FROM claim
    RETURNING id
), event AS (
    INSERT INTO payment_events (id, payment_id, account_id, from_status, to_status, reason,
        created_at)
    SELECT $16, id, $1, NULL, $12, $17, $9 FROM payment
)
SELECT pg_notify($18, $19) FROM payment";

async fn claim_and_create_in_one_statement(
    db: &Db,
    claim: NewClaim<'_>,
    new: &NewPayment,
    complete: bool,
) -> Result<Option<Payment>, DbError> {
    let (payment, event) = new.models();
    let at = payment.created_at;
    let (state, locked_at, outcome) = if complete {
        let outcome = StoredOutcome {
            payment: payment.clone(),
            refund: None,
        };
        (KeyState::Done, None, Some(outcome.to_json()))
    } else {
        (KeyState::Started, Some(at), None)
    };
    let values: Vec<Value> = vec![
        claim.key.account_id.into(),
        claim.key.key.into(),
        claim.operation.into(),
        claim.fingerprint.into(),
        state.as_str().into(),
        locked_at.into(),
        payment.id.clone().into(),
        outcome.into(),
        at.into(),
        payment.amount.into(),
        payment.currency.clone().into(),
        payment.status.clone().into(),
        payment.source.clone().into(),
        payment.description.clone().into(),
        payment.processor_key.clone().into(),
        event.id.into(),
        CREATED_REASON.into(),
        CHANGES_CHANNEL.into(),
        announcement(&payment).into(),
    ];
    let statement = Statement::from_sql_and_values(DbBackend::Postgres, CLAIM_AND_CREATE, values);
    let created = db.conn().execute_raw(statement).await?.rows_affected() == 1;
    Ok(created.then_some(payment))
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
    if db.backend() == Backend::Postgres {
        return transition_in_one_statement(db, payment, to, reason, &changes, key).await;
    }
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

/// `payment` after moving to `to` with `changes` at `now`, as the transition stores it.
fn moved(payment: &Payment, to: PaymentStatus, changes: &Changes, now: Timestamp) -> Payment {
    let mut updated = payment.clone();
    if let Some(code) = &changes.failure_code {
        updated.failure_code = Some(code.clone());
    }
    if let Some(message) = &changes.failure_message {
        updated.failure_message = Some(message.clone());
    }
    if let Some(reference) = &changes.processor_ref {
        updated.processor_ref = Some(reference.clone());
    }
    if let Some(refunded) = changes.amount_refunded {
        updated.amount_refunded = refunded;
    }
    updated.status = to.as_str().to_string();
    updated.version = payment.version + 1;
    updated.updated_at = now.micros();
    updated
}

/// [`transition`] on PostgreSQL: the version-checked update, the event, the key's link or
/// completion and the announcement in one statement. Every part after the update reads the
/// row it returned, so a stale version writes nothing. The columns a transition may change are
/// all set to their values after it, which the version check makes equal to the stored ones
/// wherever `changes` leaves them alone.
async fn transition_in_one_statement(
    db: &Db,
    payment: &Payment,
    to: PaymentStatus,
    reason: &str,
    changes: &Changes,
    key: KeyAction<'_>,
) -> Result<Result<Payment, StaleVersion>, DbError> {
    let now = Timestamp::now();
    let updated = moved(payment, to, changes, now);
    let mut values: Vec<Value> = vec![
        payment.id.clone().into(),
        payment.version.into(),
        updated.status.clone().into(),
        now.micros().into(),
        updated.failure_code.clone().into(),
        updated.failure_message.clone().into(),
        updated.processor_ref.clone().into(),
        updated.amount_refunded.into(),
        new_id(IdKind::PaymentEvent).into(),
        payment.account_id.clone().into(),
        payment.status.clone().into(),
        reason.into(),
        CHANGES_CHANNEL.into(),
        announcement(&updated).into(),
    ];
    let started = KeyState::Started.as_str();
    let key_part = match key {
        KeyAction::None => String::new(),
        KeyAction::Link(k) => {
            values.extend([k.account_id.into(), k.key.into()]);
            format!(
                ", linked AS (UPDATE idempotency_keys SET payment_id = $1 \
                 WHERE account_id = $15 AND key = $16 AND state = '{started}' \
                 AND EXISTS (SELECT 1 FROM updated))"
            )
        }
        KeyAction::Complete(k) => {
            let outcome = StoredOutcome {
                payment: updated.clone(),
                refund: None,
            };
            values.extend([
                k.account_id.into(),
                k.key.into(),
                outcome.to_json().into(),
                KeyState::Done.as_str().into(),
            ]);
            format!(
                ", completed AS (UPDATE idempotency_keys SET state = $18, payment_id = $1, \
                 outcome = $17, locked_at = NULL, updated_at = $4 \
                 WHERE account_id = $15 AND key = $16 AND state = '{started}' \
                 AND EXISTS (SELECT 1 FROM updated))"
            )
        }
    };
    let sql = format!(
        "WITH updated AS (UPDATE payments SET status = $3, version = version + 1, \
         updated_at = $4, failure_code = $5, failure_message = $6, processor_ref = $7, \
         amount_refunded = $8 WHERE id = $1 AND version = $2 RETURNING id), \
         event AS (INSERT INTO payment_events (id, payment_id, account_id, from_status, \
         to_status, reason, created_at) SELECT $9, id, $10, $11, $3, $12, $4 FROM updated)\
         {key_part} SELECT pg_notify($13, $14) FROM updated"
    );
    let statement = Statement::from_sql_and_values(DbBackend::Postgres, sql, values);
    if db.conn().execute_raw(statement).await?.rows_affected() == 1 {
        Ok(Ok(updated))
    } else {
        Ok(Err(StaleVersion))
    }
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
    if let Some(code) = &changes.failure_code {
        update = update.col_expr(payments::Column::FailureCode, Expr::value(code.clone()));
    }
    if let Some(message) = &changes.failure_message {
        update = update.col_expr(
            payments::Column::FailureMessage,
            Expr::value(message.clone()),
        );
    }
    if let Some(reference) = &changes.processor_ref {
        update = update.col_expr(
            payments::Column::ProcessorRef,
            Expr::value(reference.clone()),
        );
    }
    if let Some(refunded) = changes.amount_refunded {
        update = update.col_expr(payments::Column::AmountRefunded, Expr::value(refunded));
    }
    if update.exec(txn).await?.rows_affected != 1 {
        return Ok(Err(StaleVersion));
    }
    let updated = moved(payment, to, changes, now);
    insert_event(txn, &updated, Some(&payment.status), reason, now).await?;
    announce_in(txn, &updated).await?;
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

/// Settles a PENDING refund and moves its payment on from REFUNDING as `plan` says, in one
/// transaction (inside `txn`); both rows are version-checked.
pub(crate) async fn settle_refund_in(
    txn: &DatabaseTransaction,
    payment: &Payment,
    refund: &Refund,
    plan: &RefundSettlement,
    failure_code: Option<String>,
    processor_ref: Option<String>,
) -> Result<Result<(Payment, Refund), StaleVersion>, DbError> {
    let refund_to = plan.refund_to;
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
        amount_refunded: Some(plan.amount_refunded),
        ..Changes::default()
    };
    let Ok(payment) = transition_in(txn, payment, plan.payment_to, reason, &changes).await? else {
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
pub async fn settle_refund(
    db: &Db,
    payment: &Payment,
    refund: &Refund,
    plan: &RefundSettlement,
    failure_code: Option<String>,
    processor_ref: Option<String>,
    key: Option<KeyRef<'_>>,
) -> Result<Result<(Payment, Refund), StaleVersion>, DbError> {
    let txn = db.begin_write().await?;
    let result = settle_refund_in(&txn, payment, refund, plan, failure_code, processor_ref).await?;
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
