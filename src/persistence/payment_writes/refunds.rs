//! Refund writes: starting a refund (the payment to REFUNDING and a PENDING refund, linked to
//! the request's key) and settling it (both rows version-checked), each one transaction.

use sea_orm::sea_query::{Expr, ExprTrait};
use sea_orm::{ActiveModelTrait, ColumnTrait, DatabaseTransaction, EntityTrait, QueryFilter};

use super::super::entities::refunds;
use super::super::idempotency_keys::{self, Completion, KeyRef, StoredOutcome, complete_key};
use super::super::{Db, DbError, rows};
use super::transitions::{Changes, Written, transition_in};
use crate::domain::ids::{IdKind, new_id};
use crate::domain::money::MinorUnits;
use crate::domain::payment::{Payment, PaymentEvent, Refund, event_type};
use crate::domain::state_machine::RefundSettlement;
use crate::domain::status::{PaymentStatus, RefundStatus};
use crate::domain::time::Timestamp;

/// Starts a refund: the payment goes REFUNDING (version-checked) and a PENDING refund is
/// stored, linked to the request's key, in one transaction.
pub async fn begin_refund(
    db: &Db,
    payment: &Payment,
    amount: MinorUnits,
    reason: Option<String>,
    key: KeyRef<'_>,
) -> Result<Written<(Payment, Refund)>, DbError> {
    let txn = db.begin_write().await?;
    let Written::Done(refunding) = transition_in(
        &txn,
        payment,
        PaymentStatus::Refunding,
        "refund requested",
        &Changes::default(),
    )
    .await?
    else {
        txn.rollback().await?;
        return Ok(Written::Stale);
    };
    let now = Timestamp::now();
    let id = new_id(IdKind::Refund);
    let refund = Refund {
        processor_key: id.clone(),
        id,
        payment_id: payment.id.clone(),
        account_id: payment.account_id.clone(),
        amount,
        currency: payment.currency,
        status: RefundStatus::Pending,
        reason,
        failure_code: None,
        processor_ref: None,
        version: 0,
        created_at: now,
        updated_at: now,
    };
    refunds::ActiveModel::from(rows::refund_row(&refund))
        .reset_all()
        .insert(&txn)
        .await?;
    insert_refund_event(&txn, &refunding, &refund).await?;
    idempotency_keys::link(
        &txn,
        key.account_id,
        key.key,
        Some(&payment.id),
        Some(&refund.id),
    )
    .await?;
    txn.commit().await?;
    Ok(Written::Done((refunding, refund)))
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
) -> Result<Written<(Payment, Refund)>, DbError> {
    let refund_to = plan.refund_to;
    let reason = if refund_to == RefundStatus::Succeeded {
        "refund succeeded"
    } else {
        "refund failed"
    };
    let changes = Changes {
        amount_refunded: Some(plan.amount_refunded),
        ..Changes::default()
    };
    // The payment first: the change feed orders events by the transaction id, which a
    // transaction takes at its first write (see `feed`).
    let Written::Done(payment) =
        transition_in(txn, payment, plan.payment_to, reason, &changes).await?
    else {
        return Ok(Written::Stale);
    };
    let now = payment.updated_at;
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
        .col_expr(refunds::Column::UpdatedAt, Expr::value(now.micros()))
        .filter(refunds::Column::Id.eq(&refund.id))
        .filter(refunds::Column::Version.eq(refund.version))
        .exec(txn)
        .await?;
    if updated.rows_affected != 1 {
        return Ok(Written::Stale);
    }
    let mut settled = refund.clone();
    settled.status = refund_to;
    settled.failure_code = failure_code;
    settled.processor_ref = processor_ref;
    settled.version = refund.version + 1;
    settled.updated_at = now;
    insert_refund_event(txn, &payment, &settled).await?;
    Ok(Written::Done((payment, settled)))
}

/// The event of a refund's change (`refund.created`, `refund.succeeded`, `refund.failed`),
/// with the payment and the refund as it left them.
async fn insert_refund_event(
    txn: &DatabaseTransaction,
    payment: &Payment,
    refund: &Refund,
) -> Result<(), DbError> {
    let event = PaymentEvent {
        id: new_id(IdKind::PaymentEvent),
        payment_id: payment.id.clone(),
        account_id: payment.account_id.clone(),
        from_status: Some(payment.status),
        to_status: payment.status,
        reason: refund.reason.clone(),
        created_at: refund.updated_at,
        event_type: event_type::of_refund(refund.status),
        refund_id: Some(refund.id.clone()),
    };
    rows::refund_event_row(&event, payment, refund)
        .insert(txn)
        .await?;
    Ok(())
}

/// [`settle_refund_in`] in a transaction of its own, completing the refund's key with both
/// rows.
pub async fn settle_refund(
    db: &Db,
    payment: &Payment,
    refund: &Refund,
    plan: &RefundSettlement,
    failure_code: Option<String>,
    processor_ref: Option<String>,
    completion: Completion<'_>,
) -> Result<Written<(Payment, Refund)>, DbError> {
    let txn = db.begin_write().await?;
    let result = settle_refund_in(&txn, payment, refund, plan, failure_code, processor_ref).await?;
    let Written::Done((payment, refund)) = result else {
        txn.rollback().await?;
        return Ok(Written::Stale);
    };
    let outcome = StoredOutcome {
        payment: payment.clone(),
        refund: Some(refund.clone()),
    };
    complete_key(&txn, completion.key(), &outcome).await?;
    txn.commit().await?;
    completion.committed();
    Ok(Written::Done((payment, refund)))
}
