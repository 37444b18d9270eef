//! Applying a processor event: the change it brings and the record of its id (each id at most
//! once), in one transaction, so an event is never recorded without being applied.

use sea_orm::sea_query::OnConflict;
use sea_orm::{ActiveValue::Set, ColumnTrait, EntityTrait, QueryFilter};

use super::entities::{payments, processor_events, refunds};
use super::payment_writes::{Changes, Written, approved, settle_refund_in, transition_in};
use super::payments::Payment;
use super::{Db, DbError, rows};
use crate::domain::processor_event::EventKind;
use crate::domain::state_machine::{self, PaymentOperation, RefundOperation};
use crate::domain::time::Timestamp;

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
    /// The capture deadline an authorization approved by this event gets.
    pub capture_before: Timestamp,
}

/// What became of an event.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EventOutcome {
    /// Applied: the payment as it now stands.
    Applied(Box<Payment>),
    /// Applied, and it answered a customer action: the payment went PROCESSING and then on
    /// as the processor decided.
    CustomerAnswered(Box<Payment>),
    /// Seen before: nothing done.
    Duplicate,
    /// Recorded, but not applied (unknown object, out of order, or not allowed).
    Ignored(String),
}

pub async fn apply(db: &Db, event: &IncomingEvent<'_>) -> Result<Written<EventOutcome>, DbError> {
    let txn = db.begin_write().await?;
    let seen = processor_events::Entity::find_by_id(event.id)
        .one(&txn)
        .await?
        .is_some();
    if seen {
        txn.rollback().await?;
        return Ok(Written::Done(EventOutcome::Duplicate));
    }
    // The payment's row is the first this transaction writes, as the change feed's order
    // requires (see `feed`); the event's record comes last.
    let outcome = match event.kind {
        EventKind::ChargeSucceeded | EventKind::ChargeFailed => {
            let payment = payments::Entity::find()
                .filter(payments::Column::ProcessorKey.eq(event.processor_key))
                .one(&txn)
                .await?
                .map(rows::payment)
                .transpose()?;
            match payment {
                None => EventOutcome::Ignored("no payment with this charge key".into()),
                Some(payment) => {
                    let (operation, changes) = if event.kind == EventKind::ChargeSucceeded {
                        approved(&payment, event.reference.to_string(), event.capture_before)
                    } else {
                        (
                            PaymentOperation::ProcessorDeclined,
                            Changes {
                                processor_ref: Some(event.reference.to_string()),
                                failure_code: Some(
                                    event.failure_code.unwrap_or("card_declined").to_string(),
                                ),
                                failure_message: event.failure_message.map(str::to_string),
                                ..Changes::default()
                            },
                        )
                    };
                    // A customer action answered: PROCESSING first, then the outcome, each with
                    // its event, in this one transaction.
                    let acting =
                        state_machine::next(payment.status, PaymentOperation::CustomerActed);
                    let customer_acted = acting.is_ok();
                    let payment = if let Ok(processing) = acting {
                        let acted = transition_in(
                            &txn,
                            &payment,
                            processing,
                            "the customer acted",
                            &Changes::default(),
                        )
                        .await?;
                        match acted {
                            Written::Done(processing) => processing,
                            Written::Stale => {
                                txn.rollback().await?;
                                return Ok(Written::Stale);
                            }
                        }
                    } else {
                        payment
                    };
                    match state_machine::next(payment.status, operation) {
                        Ok(to) => {
                            match transition_in(&txn, &payment, to, "processor webhook", &changes)
                                .await?
                            {
                                Written::Done(updated) if customer_acted => {
                                    EventOutcome::CustomerAnswered(Box::new(updated))
                                }
                                Written::Done(updated) => EventOutcome::Applied(Box::new(updated)),
                                Written::Stale => {
                                    txn.rollback().await?;
                                    return Ok(Written::Stale);
                                }
                            }
                        }
                        Err(_) => EventOutcome::Ignored(format!(
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
                .await?
                .map(rows::refund)
                .transpose()?;
            let payment = match &refund {
                Some(r) => payments::Entity::find_by_id(&r.payment_id)
                    .one(&txn)
                    .await?
                    .map(rows::payment)
                    .transpose()?,
                None => None,
            };
            match (refund, payment) {
                (Some(refund), Some(payment)) => {
                    let operation = if event.kind == EventKind::RefundSucceeded {
                        RefundOperation::Succeed
                    } else {
                        RefundOperation::Fail
                    };
                    let plan = state_machine::settle_refund(
                        payment.status,
                        payment.amount_captured,
                        payment.amount_refunded,
                        refund.status,
                        refund.amount.get(),
                        operation,
                    );
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
                                Written::Done((updated, _)) => {
                                    EventOutcome::Applied(Box::new(updated))
                                }
                                Written::Stale => {
                                    txn.rollback().await?;
                                    return Ok(Written::Stale);
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
        EventOutcome::Applied(_) | EventOutcome::CustomerAnswered(_) => "applied".to_string(),
        EventOutcome::Ignored(why) => format!("ignored: {why}"),
        EventOutcome::Duplicate => "duplicate".to_string(),
    };
    let inserted = processor_events::Entity::insert(processor_events::ActiveModel {
        event_id: Set(event.id.to_string()),
        event_type: Set(event.kind_name.to_string()),
        payload: Set(event.payload.to_string()),
        outcome: Set(recorded),
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
        // The same event, applied by a concurrent delivery of it first.
        txn.rollback().await?;
        return Ok(Written::Done(EventOutcome::Duplicate));
    }
    txn.commit().await?;
    Ok(Written::Done(outcome))
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
