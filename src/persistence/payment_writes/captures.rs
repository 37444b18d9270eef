//! The card lifecycle's writes besides transitions: what an approval changes (a charge
//! captured at once, or an authorization held until its deadline), and the record of a
//! capture sent to the processor whose outcome is not yet known.

use sea_orm::sea_query::{Expr, ExprTrait};
use sea_orm::{
    ColumnTrait, ConnectionTrait, DbBackend, EntityTrait, QueryFilter, Statement, Value,
};

use super::super::entities::payments;
use super::super::idempotency_keys::{self, KeyRef};
use super::super::{Backend, Db, DbError};
use super::transitions::{Changes, Written};
use crate::domain::capture::CaptureMethod;
use crate::domain::idempotency::KeyState;
use crate::domain::payment::Payment;
use crate::domain::state_machine::PaymentOperation;
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
