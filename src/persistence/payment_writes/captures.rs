//! The card lifecycle's writes besides transitions: what an approval changes (a charge
//! captured at once, or an authorization held until its deadline), and the record of a
//! capture sent to the processor whose outcome is not yet known.

use sea_orm::sea_query::{Expr, ExprTrait};
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};

use super::super::entities::payments;
use super::super::idempotency_keys::{self, KeyRef};
use super::super::{Db, DbError};
use super::transitions::{Changes, Written};
use crate::domain::capture::CaptureMethod;
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
/// changes, so no event is written.
pub async fn set_capture_in_flight(
    db: &Db,
    payment: &Payment,
    amount: Option<i64>,
    key: Option<KeyRef<'_>>,
) -> Result<Written<Payment>, DbError> {
    let txn = db.begin_write().await?;
    let now = Timestamp::now();
    let updated = payments::Entity::update_many()
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
    if updated.rows_affected != 1 {
        txn.rollback().await?;
        return Ok(Written::Stale);
    }
    if let Some(k) = key {
        idempotency_keys::link(&txn, k.account_id, k.key, Some(&payment.id), None).await?;
    }
    txn.commit().await?;
    let mut payment = payment.clone();
    payment.capture_amount = amount;
    payment.version += 1;
    payment.updated_at = now;
    Ok(Written::Done(payment))
}
