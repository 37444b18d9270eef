//! Applying a processor event: recording its id (each id at most once) and the change it
//! brings, in one transaction, so an event is never recorded without being applied.

use sea_orm::sea_query::{Expr, OnConflict};
use sea_orm::{ActiveValue::Set, ColumnTrait, EntityTrait, QueryFilter};

use super::entities::{payments, processor_events, refunds};
use super::payment_writes::{Changes, StaleVersion, settle_refund_in, transition_in};
use super::payments::Payment;
use super::{Db, DbError};
use crate::domain::state_machine::{self, PaymentOperation, RefundOperation};
use crate::domain::status::{PaymentStatus, RefundStatus};
use crate::domain::time::Timestamp;
use crate::domain::webhook::EventKind;

/// A processor event as received.
#[derive(Clone, Debug)]
pub struct IncomingEvent<'a> {
    pub id: &'a str,
    pub kind: EventKind,
    pub kind_name: &'a str,
    /// The idempotency key the charge or refund was made with.
    pub processor_key: &'a str,
    pub reference: &'a str,
    pub failure_code: Option<&'a str>,
    pub failure_message: Option<&'a str>,
    pub payload: &'a str,
}

/// What became of an event.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EventOutcome {
    /// Applied: the payment as it now stands.
    Applied(Box<Payment>),
    /// Seen before: nothing done.
    Duplicate,
    /// Recorded, but not applied (unknown object, out of order, or not allowed).
    Ignored(String),
}

pub async fn apply(
    db: &Db,
    event: &IncomingEvent<'_>,
) -> Result<Result<EventOutcome, StaleVersion>, DbError> {
    let txn = db.begin_write().await?;
    let inserted = processor_events::Entity::insert(processor_events::ActiveModel {
        event_id: Set(event.id.to_string()),
        event_type: Set(event.kind_name.to_string()),
        payload: Set(event.payload.to_string()),
        outcome: Set("received".to_string()),
        received_at: Set(Timestamp::now().micros()),
    })
    .on_conflict(
        OnConflict::column(processor_events::Column::EventId)
            .do_nothing()
            .to_owned(),
    )
    .exec_without_returning(&txn)
    .await?;
    if inserted == 0 {
        txn.rollback().await?;
        return Ok(Ok(EventOutcome::Duplicate));
    }
    let outcome = match event.kind {
        EventKind::ChargeSucceeded | EventKind::ChargeFailed => {
            let payment = payments::Entity::find()
                .filter(payments::Column::ProcessorKey.eq(event.processor_key))
                .one(&txn)
                .await?;
            match payment {
                None => EventOutcome::Ignored("no payment with this charge key".into()),
                Some(payment) => {
                    let (operation, changes) = if event.kind == EventKind::ChargeSucceeded {
                        (
                            PaymentOperation::ProcessorApproved,
                            Changes {
                                processor_ref: Some(event.reference.to_string()),
                                ..Changes::default()
                            },
                        )
                    } else {
                        (
                            PaymentOperation::ProcessorDeclined,
                            Changes {
                                processor_ref: Some(event.reference.to_string()),
                                failure_code: Some(
                                    event.failure_code.unwrap_or("card_declined").to_string(),
                                ),
                                failure_message: event.failure_message.map(str::to_string),
                                amount_refunded: None,
                            },
                        )
                    };
                    let status = PaymentStatus::parse(&payment.status);
                    match status.map(|s| state_machine::next(s, operation)) {
                        Some(Ok(to)) => {
                            match transition_in(&txn, &payment, to, "processor webhook", &changes)
                                .await?
                            {
                                Ok(updated) => EventOutcome::Applied(Box::new(updated)),
                                Err(stale) => {
                                    txn.rollback().await?;
                                    return Ok(Err(stale));
                                }
                            }
                        }
                        _ => EventOutcome::Ignored(format!(
                            "a {} payment cannot {}",
                            payment.status,
                            operation.name()
                        )),
                    }
                }
            }
        }
        EventKind::RefundSucceeded | EventKind::RefundFailed => {
            let refund = refunds::Entity::find()
                .filter(refunds::Column::ProcessorKey.eq(event.processor_key))
                .one(&txn)
                .await?;
            let payment = match &refund {
                Some(r) => {
                    payments::Entity::find_by_id(&r.payment_id)
                        .one(&txn)
                        .await?
                }
                None => None,
            };
            match (refund, payment) {
                (Some(refund), Some(payment)) => {
                    let operation = if event.kind == EventKind::RefundSucceeded {
                        RefundOperation::Succeed
                    } else {
                        RefundOperation::Fail
                    };
                    let plan = match (
                        PaymentStatus::parse(&payment.status),
                        RefundStatus::parse(&refund.status),
                    ) {
                        (Some(p), Some(r)) => state_machine::settle_refund(
                            p,
                            payment.amount,
                            payment.amount_refunded,
                            r,
                            refund.amount,
                            operation,
                        ),
                        _ => Err("unreadable stored status"),
                    };
                    match plan {
                        Ok(plan) => {
                            let settled = settle_refund_in(
                                &txn,
                                &payment,
                                &refund,
                                &plan,
                                event.failure_code.map(str::to_string),
                                Some(event.reference.to_string()),
                            )
                            .await?;
                            match settled {
                                Ok((updated, _)) => EventOutcome::Applied(Box::new(updated)),
                                Err(stale) => {
                                    txn.rollback().await?;
                                    return Ok(Err(stale));
                                }
                            }
                        }
                        Err(why) => EventOutcome::Ignored(why.to_string()),
                    }
                }
                _ => EventOutcome::Ignored("no refund with this key".into()),
            }
        }
    };
    let recorded = match &outcome {
        EventOutcome::Applied(_) => "applied".to_string(),
        EventOutcome::Ignored(why) => format!("ignored: {why}"),
        EventOutcome::Duplicate => "duplicate".to_string(),
    };
    processor_events::Entity::update_many()
        .col_expr(processor_events::Column::Outcome, Expr::value(recorded))
        .filter(processor_events::Column::EventId.eq(event.id))
        .exec(&txn)
        .await?;
    txn.commit().await?;
    Ok(Ok(outcome))
}

/// Every recorded event's id and outcome, oldest first.
///
/// Exists for the tests and benchmarks (feature `test-support`).
#[cfg(feature = "test-support")]
pub async fn recorded_events(db: &Db) -> Result<Vec<(String, String)>, DbError> {
    use sea_orm::QueryOrder;
    let rows = processor_events::Entity::find()
        .order_by_asc(processor_events::Column::ReceivedAt)
        .all(db.conn())
        .await?;
    Ok(rows.into_iter().map(|e| (e.event_id, e.outcome)).collect())
}
