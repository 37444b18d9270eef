//! The card lifecycle's writes besides transitions: what an approval changes (a charge
//! captured at once, or an authorization held until its deadline), and the record of a
//! capture sent to the processor whose outcome is not yet known.

use sea_orm::sea_query::{Expr, ExprTrait};
use sea_orm::{
    ColumnTrait, ConnectionTrait, DbBackend, EntityTrait, FromQueryResult, QueryFilter, Statement,
    Value,
};

use super::super::entities::payments;
use super::super::idempotency_keys::{self, KeyRef};
use super::super::{Backend, Db, DbError, rows};
use super::creates::NewClaim;
use super::transitions::{Changes, Written};
use crate::domain::capture::CaptureMethod;
use crate::domain::idempotency::KeyState;
use crate::domain::payment::Payment;
use crate::domain::state_machine::PaymentOperation;
use crate::domain::status::PaymentStatus;
use crate::domain::time::Timestamp;

/// What the processor's approval of `payment` does: a charge (`AUTOMATIC`) is captured in
/// full; an authorization (`MANUAL`) holds the amount until `capture_before`.
pub fn approved(
    payment: &Payment,
    reference: String,
    capture_before: Timestamp,
) -> (PaymentOperation, Changes) {
    let amount = payment.amount.get();
    let changes = Changes {
        processor_ref: Some(reference),
        ..Changes::default()
    };
    match payment.capture_method {
        CaptureMethod::Automatic => (
            PaymentOperation::ProcessorApproved,
            Changes {
                amount_captured: Some(amount),
                ..changes
            },
        ),
        CaptureMethod::Manual => (
            PaymentOperation::ProcessorAuthorized,
            Changes {
                amount_capturable: Some(amount),
                capture_before: Some(capture_before),
                ..changes
            },
        ),
    }
}

/// Records (`Some(amount)`) or clears (`None`) the capture of `payment` in flight, checked
/// against the version it was read at; `key`, the capturing request's key, is linked to the
/// payment in the same transaction, so a retry with it carries the capture on. No status
/// changes, so no event is written. On PostgreSQL it is one statement.
pub async fn set_capture_in_flight(
    db: &Db,
    payment: &Payment,
    amount: Option<i64>,
    key: Option<KeyRef<'_>>,
) -> Result<Written<Payment>, DbError> {
    let now = Timestamp::now();
    let mut updated = payment.clone();
    updated.capture_amount = amount;
    updated.version += 1;
    updated.updated_at = now;
    if db.backend() == Backend::Postgres {
        return set_capture_in_one_statement(db, payment, updated, key).await;
    }
    let txn = db.begin_write().await?;
    let written = payments::Entity::update_many()
        .col_expr(payments::Column::CaptureAmount, Expr::value(amount))
        .col_expr(
            payments::Column::Version,
            Expr::col(payments::Column::Version).add(1),
        )
        .col_expr(payments::Column::UpdatedAt, Expr::value(now.micros()))
        .filter(payments::Column::Id.eq(&payment.id))
        .filter(payments::Column::Version.eq(payment.version))
        .exec(&txn)
        .await?;
    if written.rows_affected != 1 {
        txn.rollback().await?;
        return Ok(Written::Stale);
    }
    if let Some(k) = key {
        idempotency_keys::link(&txn, k.account_id, k.key, Some(&payment.id), None).await?;
    }
    txn.commit().await?;
    Ok(Written::Done(updated))
}

/// [`set_capture_in_flight`] on PostgreSQL: the version-checked update and the key's link in
/// one statement; the link reads the row the update returned, so a stale version writes
/// nothing.
async fn set_capture_in_one_statement(
    db: &Db,
    payment: &Payment,
    updated: Payment,
    key: Option<KeyRef<'_>>,
) -> Result<Written<Payment>, DbError> {
    let mut values: Vec<Value> = vec![
        payment.id.clone().into(),
        payment.version.into(),
        updated.capture_amount.into(),
        updated.updated_at.micros().into(),
    ];
    let link = match key {
        Some(k) => {
            values.extend([k.account_id.into(), k.key.into()]);
            format!(
                ", linked AS (UPDATE idempotency_keys SET payment_id = $1 \
                 WHERE account_id = $5 AND key = $6 AND state = '{}' \
                 AND EXISTS (SELECT 1 FROM updated))",
                KeyState::Started.as_str()
            )
        }
        None => String::new(),
    };
    let sql = format!(
        "WITH updated AS (UPDATE payments SET capture_amount = $3, version = version + 1, \
         updated_at = $4 WHERE id = $1 AND version = $2 RETURNING id){link} \
         SELECT 1 FROM updated"
    );
    let statement = Statement::from_sql_and_values(DbBackend::Postgres, sql, values);
    if db.conn().execute_raw(statement).await?.rows_affected() == 1 {
        Ok(Written::Done(updated))
    } else {
        Ok(Written::Stale)
    }
}

/// What [`claim_and_capture`] did.
#[derive(Debug)]
pub enum ClaimedCapture {
    /// The key exists already (an earlier or a concurrent request claimed it): nothing was
    /// written, and the caller reads the key to decide.
    KeyExists,
    /// The key is claimed and linked to the payment, whose capture is now in flight.
    InFlight(Box<Payment>),
    /// The key is claimed, unlinked, and the payment unchanged: it is unknown to the
    /// account, or not capturable as asked (not authorized, a capture already in flight, an
    /// amount beyond what is capturable). The caller reads it to say which.
    Claimed,
}

/// Claims a fresh idempotency key for the capture of `payment_id` and records the capture in
/// flight, linked to the key, in one statement on PostgreSQL; `amount` defaults to all that
/// is capturable. The payment is taken only in a state that allows the capture, so no read
/// precedes the statement. A claim whose payment could not be taken is unlinked at once
/// (the rare case of a refusal or a race), so that its refusal forgets it.
pub async fn claim_and_capture(
    db: &Db,
    claim: NewClaim<'_>,
    payment_id: &str,
    amount: Option<i64>,
) -> Result<ClaimedCapture, DbError> {
    debug_assert_eq!(
        db.backend(),
        Backend::Postgres,
        "one statement on PostgreSQL only"
    );
    let now = Timestamp::now().micros();
    let values: Vec<Value> = vec![
        claim.key.account_id.into(),
        claim.key.key.into(),
        claim.operation.into(),
        claim.fingerprint.into(),
        KeyState::Started.as_str().into(),
        now.into(),
        payment_id.into(),
        amount.into(),
        PaymentStatus::RequiresCapture.as_str().into(),
    ];
    let statement = Statement::from_sql_and_values(DbBackend::Postgres, CLAIM_AND_CAPTURE, values);
    let Some(row) = db.conn().query_one_raw(statement).await? else {
        return Err(DbError::Other("the capture's claim answered no row".into()));
    };
    if !row.try_get::<bool>("", "claimed")? {
        return Ok(ClaimedCapture::KeyExists);
    }
    if row.try_get::<Option<String>>("", "id")?.is_none() {
        idempotency_keys::link_none(db.conn(), claim.key).await?;
        return Ok(ClaimedCapture::Claimed);
    }
    let model = payments::Model::from_query_result(&row, "")?;
    Ok(ClaimedCapture::InFlight(Box::new(rows::payment(model)?)))
}

/// [`claim_and_capture`]'s statement: the payment is taken only if the claim was written,
/// and one row always answers, saying whether the key was claimed and, if the payment was
/// taken, the payment as the capture left it.
const CLAIM_AND_CAPTURE: &str = "\
WITH claim AS (
    INSERT INTO idempotency_keys (account_id, key, operation, request_hash, state, locked_at,
        payment_id, refund_id, outcome, created_at, updated_at)
    VALUES ($1, $2, $3, $4, $5, $6, $7, NULL, NULL, $6, $6)
    ON CONFLICT (account_id, key) DO NOTHING
    RETURNING 1
), updated AS (
    UPDATE payments SET capture_amount = COALESCE($8, amount_capturable),
        version = version + 1, updated_at = $6
    WHERE id = $7 AND account_id = $1 AND status = $9 AND capture_amount IS NULL
        AND COALESCE($8, amount_capturable) <= amount_capturable
        AND EXISTS (SELECT 1 FROM claim)
    RETURNING *
)
SELECT EXISTS (SELECT 1 FROM claim) AS claimed, updated.*
FROM (SELECT 1) AS one LEFT JOIN updated ON true";
