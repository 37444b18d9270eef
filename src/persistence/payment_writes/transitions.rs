//! Payment transitions: a version-checked update (optimistic lock), the event that records
//! it (with the payment as it left it, for the change feed), and what it does to the
//! request's idempotency key, all committed together. The PostgreSQL one-statement form
//! stands beside the portable one.
//!
//! The payment's row is the first row a transition's transaction writes: the change feed
//! orders events by the writing transaction's id, which PostgreSQL assigns at a
//! transaction's first write, so two changes of one payment are read in the order they
//! committed (see `feed`).

use sea_orm::sea_query::{Expr, ExprTrait};
use sea_orm::{
    ActiveModelTrait, ColumnTrait, ConnectionTrait, DatabaseTransaction, DbBackend, EntityTrait,
    QueryFilter, Statement, Value,
};

use super::super::entities::payments;
use super::super::idempotency_keys::{self, Completion, KeyRef, StoredOutcome, complete_key};
use super::super::{Backend, Db, DbError, rows};
use crate::domain::capture::CancellationReason;
use crate::domain::idempotency::KeyState;
use crate::domain::ids::{IdKind, new_id};
use crate::domain::payment::{Payment, PaymentEvent, event_type};
use crate::domain::status::PaymentStatus;
use crate::domain::time::Timestamp;

/// What a version-checked write did.
#[derive(Debug)]
pub enum Written<T> {
    Done(T),
    /// Another writer changed the row first: nothing was written; re-read and decide again.
    Stale,
}

impl<T> Written<T> {
    /// What was written, unless the write was stale.
    pub fn done(self) -> Option<T> {
        match self {
            Written::Done(value) => Some(value),
            Written::Stale => None,
        }
    }

    pub fn is_stale(&self) -> bool {
        matches!(self, Written::Stale)
    }

    /// What was written, made into something else.
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Written<U> {
        match self {
            Written::Done(value) => Written::Done(f(value)),
            Written::Stale => Written::Stale,
        }
    }
}

async fn insert_event(
    conn: &impl ConnectionTrait,
    payment: &Payment,
    from: PaymentStatus,
    reason: &str,
    at: Timestamp,
) -> Result<(), DbError> {
    let event = PaymentEvent {
        id: new_id(IdKind::PaymentEvent),
        payment_id: payment.id.clone(),
        account_id: payment.account_id.clone(),
        from_status: Some(from),
        to_status: payment.status,
        reason: Some(reason.to_string()),
        created_at: at,
        event_type: event_type::of_payment(payment.status),
        refund_id: None,
    };
    rows::event_row(&event, payment).insert(conn).await?;
    Ok(())
}

/// Fields a transition may set besides the status; `None` leaves a field as it is. Every
/// transition ends a capture in flight (it settles one, or the authorization is gone), and a
/// customer action's URL lasts only while the payment is REQUIRES_ACTION.
#[derive(Clone, Debug, Default)]
pub struct Changes {
    pub failure_code: Option<String>,
    pub failure_message: Option<String>,
    pub processor_ref: Option<String>,
    pub amount_refunded: Option<i64>,
    pub amount_capturable: Option<i64>,
    pub amount_captured: Option<i64>,
    pub capture_before: Option<Timestamp>,
    pub cancellation_reason: Option<CancellationReason>,
    pub next_action_url: Option<String>,
}

/// What a transition does to the idempotency key of the request making it.
#[derive(Debug)]
pub enum KeyAction<'a> {
    None,
    /// Record that the key's request is working on this payment.
    Link(KeyRef<'a>),
    /// Mark the key done, with the payment after the transition as its outcome.
    Complete(Completion<'a>),
}

impl KeyAction<'_> {
    /// The transition committed: a completion says so.
    fn committed(self) {
        if let KeyAction::Complete(completion) = self {
            completion.committed();
        }
    }
}

/// Moves `payment` (as read, with its version) to `to`, appending the event and applying
/// `key`. One transaction; `Written::Stale` when another writer changed the payment first.
pub async fn transition(
    db: &Db,
    payment: &Payment,
    to: PaymentStatus,
    reason: &str,
    changes: Changes,
    key: KeyAction<'_>,
) -> Result<Written<Payment>, DbError> {
    if db.backend() == Backend::Postgres {
        return transition_in_one_statement(db, payment, to, reason, &changes, key).await;
    }
    let txn = db.begin_write().await?;
    let Written::Done(updated) = transition_in(&txn, payment, to, reason, &changes).await? else {
        txn.rollback().await?;
        return Ok(Written::Stale);
    };
    match &key {
        KeyAction::None => {}
        KeyAction::Link(k) => {
            idempotency_keys::link(&txn, k.account_id, k.key, Some(&updated.id), None).await?
        }
        KeyAction::Complete(completion) => {
            complete_key(
                &txn,
                completion.key(),
                &StoredOutcome {
                    payment: updated.clone(),
                    refund: None,
                },
            )
            .await?
        }
    }
    txn.commit().await?;
    key.committed();
    Ok(Written::Done(updated))
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
    if let Some(capturable) = changes.amount_capturable {
        updated.amount_capturable = capturable;
    }
    if let Some(captured) = changes.amount_captured {
        updated.amount_captured = captured;
    }
    if let Some(before) = changes.capture_before {
        updated.capture_before = Some(before);
    }
    if let Some(reason) = changes.cancellation_reason {
        updated.cancellation_reason = Some(reason);
    }
    updated.next_action_url = match to {
        PaymentStatus::RequiresAction => {
            changes.next_action_url.clone().or(updated.next_action_url)
        }
        _ => None,
    };
    updated.capture_amount = None;
    updated.status = to;
    updated.version = payment.version + 1;
    updated.updated_at = now;
    updated
}

/// [`transition`] on PostgreSQL: the version-checked update, the event and the key's link or
/// completion in one statement. Every part after the update reads the
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
) -> Result<Written<Payment>, DbError> {
    let now = Timestamp::now();
    let updated = moved(payment, to, changes, now);
    let mut values: Vec<Value> = vec![
        payment.id.clone().into(),
        payment.version.into(),
        updated.status.as_str().into(),
        now.micros().into(),
        updated.failure_code.clone().into(),
        updated.failure_message.clone().into(),
        updated.processor_ref.clone().into(),
        updated.amount_refunded.into(),
        new_id(IdKind::PaymentEvent).into(),
        payment.account_id.clone().into(),
        payment.status.as_str().into(),
        reason.into(),
        rows::snapshot(&updated).into(),
        updated.amount_capturable.into(),
        updated.amount_captured.into(),
        updated.capture_before.map(Timestamp::micros).into(),
        updated
            .cancellation_reason
            .map(|r| r.as_str().to_string())
            .into(),
        updated.next_action_url.clone().into(),
        event_type::of_payment(to).into(),
    ];
    let started = KeyState::Started.as_str();
    let key_part = match &key {
        KeyAction::None => String::new(),
        KeyAction::Link(k) => {
            values.extend([k.account_id.into(), k.key.into()]);
            format!(
                ", linked AS (UPDATE idempotency_keys SET payment_id = $1 \
                 WHERE account_id = $20 AND key = $21 AND state = '{started}' \
                 AND EXISTS (SELECT 1 FROM updated))"
            )
        }
        KeyAction::Complete(completion) => {
            let k = completion.key();
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
                ", completed AS (UPDATE idempotency_keys SET state = $23, payment_id = $1, \
                 outcome = $22, locked_at = NULL, updated_at = $4 \
                 WHERE account_id = $20 AND key = $21 AND state = '{started}' \
                 AND EXISTS (SELECT 1 FROM updated))"
            )
        }
    };
    let sql = format!(
        "WITH updated AS (UPDATE payments SET status = $3, version = version + 1, \
         updated_at = $4, failure_code = $5, failure_message = $6, processor_ref = $7, \
         amount_refunded = $8, amount_capturable = $14, amount_captured = $15, \
         capture_before = $16, cancellation_reason = $17, next_action_url = $18, \
         capture_amount = NULL WHERE id = $1 AND version = $2 RETURNING id), \
         event AS (INSERT INTO payment_events (id, payment_id, account_id, from_status, \
         to_status, reason, created_at, snapshot, event_type) \
         SELECT $9, id, $10, $11, $3, $12, $4, $13, $19 FROM updated)\
         {key_part} SELECT 1 FROM updated"
    );
    let statement = Statement::from_sql_and_values(DbBackend::Postgres, sql, values);
    if db.conn().execute_raw(statement).await?.rows_affected() == 1 {
        key.committed();
        Ok(Written::Done(updated))
    } else {
        Ok(Written::Stale)
    }
}

/// The transition itself, inside a caller's transaction.
pub(crate) async fn transition_in(
    txn: &DatabaseTransaction,
    payment: &Payment,
    to: PaymentStatus,
    reason: &str,
    changes: &Changes,
) -> Result<Written<Payment>, DbError> {
    let now = Timestamp::now();
    let updated = moved(payment, to, changes, now);
    // Every column a transition may change, set to its value after it: the version check
    // makes those it leaves alone equal to what is stored.
    let update = payments::Entity::update_many()
        .col_expr(payments::Column::Status, Expr::value(to.as_str()))
        .col_expr(
            payments::Column::Version,
            Expr::col(payments::Column::Version).add(1),
        )
        .col_expr(payments::Column::UpdatedAt, Expr::value(now.micros()))
        .col_expr(
            payments::Column::FailureCode,
            Expr::value(updated.failure_code.clone()),
        )
        .col_expr(
            payments::Column::FailureMessage,
            Expr::value(updated.failure_message.clone()),
        )
        .col_expr(
            payments::Column::ProcessorRef,
            Expr::value(updated.processor_ref.clone()),
        )
        .col_expr(
            payments::Column::AmountRefunded,
            Expr::value(updated.amount_refunded),
        )
        .col_expr(
            payments::Column::AmountCapturable,
            Expr::value(updated.amount_capturable),
        )
        .col_expr(
            payments::Column::AmountCaptured,
            Expr::value(updated.amount_captured),
        )
        .col_expr(
            payments::Column::CaptureBefore,
            Expr::value(updated.capture_before.map(Timestamp::micros)),
        )
        .col_expr(payments::Column::CaptureAmount, Expr::value(None::<i64>))
        .col_expr(
            payments::Column::CancellationReason,
            Expr::value(updated.cancellation_reason.map(|r| r.as_str())),
        )
        .col_expr(
            payments::Column::NextActionUrl,
            Expr::value(updated.next_action_url.clone()),
        )
        .filter(payments::Column::Id.eq(&payment.id))
        .filter(payments::Column::Version.eq(payment.version));
    if update.exec(txn).await?.rows_affected != 1 {
        return Ok(Written::Stale);
    }
    insert_event(txn, &updated, payment.status, reason, now).await?;
    Ok(Written::Done(updated))
}
