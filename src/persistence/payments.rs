//! Reading payments, refunds and payment events, always within one account.

use sea_orm::{
    ActiveModelTrait, ColumnTrait, DatabaseTransaction, EntityTrait, IntoActiveModel, QueryFilter,
    QueryOrder,
};

use super::entities::{payment_events, payments, refunds};
use super::{Db, DbError, rows};
use crate::domain::capture::CaptureMethod;
use crate::domain::currency::Currency;
use crate::domain::ids::{IdKind, new_id};
use crate::domain::merchant_data::Metadata;
use crate::domain::money::MinorUnits;
use crate::domain::payment::event_type;
use crate::domain::status::PaymentStatus;
use crate::domain::time::Timestamp;

pub use crate::domain::payment::{Payment, PaymentEvent, Refund};

pub async fn find_payment(db: &Db, account_id: &str, id: &str) -> Result<Option<Payment>, DbError> {
    payments::Entity::find_by_id(id)
        .filter(payments::Column::AccountId.eq(account_id))
        .one(db.conn())
        .await?
        .map(rows::payment)
        .transpose()
}

pub async fn find_payments(
    db: &Db,
    account_id: &str,
    ids: &[String],
) -> Result<Vec<Payment>, DbError> {
    rows::payments(
        payments::Entity::find()
            .filter(payments::Column::AccountId.eq(account_id))
            .filter(payments::Column::Id.is_in(ids.iter().cloned()))
            .all(db.conn())
            .await?,
    )
}

pub async fn find_refunds(
    db: &Db,
    account_id: &str,
    ids: &[String],
) -> Result<Vec<Refund>, DbError> {
    rows::refunds(
        refunds::Entity::find()
            .filter(refunds::Column::AccountId.eq(account_id))
            .filter(refunds::Column::Id.is_in(ids.iter().cloned()))
            .all(db.conn())
            .await?,
    )
}

/// Refunds of the given payments, oldest first.
pub async fn refunds_of(
    db: &Db,
    account_id: &str,
    payment_ids: &[String],
) -> Result<Vec<Refund>, DbError> {
    rows::refunds(
        refunds::Entity::find()
            .filter(refunds::Column::AccountId.eq(account_id))
            .filter(refunds::Column::PaymentId.is_in(payment_ids.iter().cloned()))
            .order_by_asc(refunds::Column::CreatedAt)
            .order_by_asc(refunds::Column::Id)
            .all(db.conn())
            .await?,
    )
}

/// Status changes of the given payments, oldest first (event ids are time-ordered).
pub async fn events_of(
    db: &Db,
    account_id: &str,
    payment_ids: &[String],
) -> Result<Vec<PaymentEvent>, DbError> {
    rows::events(
        payment_events::Entity::find()
            .filter(payment_events::Column::AccountId.eq(account_id))
            .filter(payment_events::Column::PaymentId.is_in(payment_ids.iter().cloned()))
            .filter(payment_events::Column::RefundId.is_null())
            .filter(payment_events::Column::EventType.ne(event_type::PAYMENT_UPDATED))
            .order_by_asc(payment_events::Column::CreatedAt)
            .order_by_asc(payment_events::Column::Id)
            .all(db.conn())
            .await?,
    )
}

/// A payment about to be stored, with the event that records its first status.
#[derive(Clone, Debug)]
pub struct NewPayment {
    pub account_id: String,
    pub amount: MinorUnits,
    pub currency: Currency,
    pub source: String,
    pub description: Option<String>,
    pub reference: Option<String>,
    pub metadata: Metadata,
    pub status: PaymentStatus,
    pub capture_method: CaptureMethod,
    /// Where the customer is sent back to after a customer action.
    pub return_url: Option<String>,
    pub created_at: Timestamp,
}

/// Why a payment's first event was written.
pub(crate) const CREATED_REASON: &str = "created";

impl NewPayment {
    /// The payment, under a new id that is also its processor key, and the event recording
    /// its first status.
    pub(crate) fn values(&self) -> (Payment, PaymentEvent) {
        let id = new_id(IdKind::Payment);
        let at = self.created_at;
        let event = PaymentEvent {
            id: new_id(IdKind::PaymentEvent),
            payment_id: id.clone(),
            account_id: self.account_id.clone(),
            from_status: None,
            to_status: self.status,
            reason: Some(CREATED_REASON.to_string()),
            created_at: at,
            event_type: event_type::of_payment(self.status),
            refund_id: None,
        };
        let payment = Payment {
            processor_key: id.clone(),
            id,
            account_id: self.account_id.clone(),
            amount: self.amount,
            currency: self.currency,
            status: self.status,
            amount_refunded: 0,
            capture_method: self.capture_method,
            amount_capturable: 0,
            amount_captured: 0,
            capture_before: None,
            capture_amount: None,
            cancellation_reason: None,
            next_action_url: None,
            return_url: self.return_url.clone(),
            source: self.source.clone(),
            description: self.description.clone(),
            reference: self.reference.clone(),
            metadata: self.metadata.clone(),
            failure_code: None,
            failure_message: None,
            processor_ref: None,
            version: 0,
            created_at: at,
            updated_at: at,
        };
        (payment, event)
    }

    fn rows(&self) -> (Payment, payments::ActiveModel, payment_events::ActiveModel) {
        let (payment, event) = self.values();
        let rows = (
            rows::payment_row(&payment).into_active_model().reset_all(),
            rows::event_row(&event, &payment),
        );
        (payment, rows.0, rows.1)
    }
}

/// Stores a new payment and its creation event inside `txn`.
pub(crate) async fn insert_in(
    txn: &DatabaseTransaction,
    new: &NewPayment,
) -> Result<Payment, DbError> {
    let (payment, row, event) = new.rows();
    row.insert(txn).await?;
    event.insert(txn).await?;
    super::merchant_data::insert(txn, &[&payment]).await?;
    Ok(payment)
}

/// Stores a new payment and its creation event in one transaction.
///
/// Exists for the tests and benchmarks (feature `test-support`).
#[cfg(feature = "test-support")]
#[tracing::instrument(skip_all, fields(account_id = %new.account_id))]
pub async fn insert(db: &Db, new: NewPayment) -> Result<Payment, DbError> {
    let txn = db.begin_write().await?;
    let payment = insert_in(&txn, &new).await?;
    txn.commit().await?;
    Ok(payment)
}

/// A payment stored by a transaction that is still open: its change is not committed until
/// [`HeldInsert::commit`].
///
/// Exists for the tests and benchmarks (feature `test-support`).
#[cfg(feature = "test-support")]
pub struct HeldInsert {
    txn: DatabaseTransaction,
    pub payment: Payment,
}

#[cfg(feature = "test-support")]
impl HeldInsert {
    pub async fn commit(self) -> Result<(), DbError> {
        Ok(self.txn.commit().await?)
    }
}

/// Stores a new payment and its creation event in a transaction left open (for tests of
/// changes that commit late).
///
/// Exists for the tests and benchmarks (feature `test-support`).
#[cfg(feature = "test-support")]
pub async fn insert_held(db: &Db, new: NewPayment) -> Result<HeldInsert, DbError> {
    let txn = db.begin_write().await?;
    let payment = insert_in(&txn, &new).await?;
    Ok(HeldInsert { txn, payment })
}

/// Deletes a payment with its refunds and events.
///
/// Exists for the tests and benchmarks (feature `test-support`).
#[cfg(feature = "test-support")]
pub async fn delete(db: &Db, account_id: &str, id: &str) -> Result<bool, DbError> {
    let txn = db.begin_write().await?;
    payment_events::Entity::delete_many()
        .filter(payment_events::Column::PaymentId.eq(id))
        .filter(payment_events::Column::AccountId.eq(account_id))
        .exec(&txn)
        .await?;
    refunds::Entity::delete_many()
        .filter(refunds::Column::PaymentId.eq(id))
        .filter(refunds::Column::AccountId.eq(account_id))
        .exec(&txn)
        .await?;
    let deleted = payments::Entity::delete_many()
        .filter(payments::Column::Id.eq(id))
        .filter(payments::Column::AccountId.eq(account_id))
        .exec(&txn)
        .await?;
    txn.commit().await?;
    Ok(deleted.rows_affected == 1)
}

/// Stores many payments, each with its creation event, in transactions of up to 500 rows
/// (seeding large listings for tests and benchmarks).
///
/// Exists for the tests and benchmarks (feature `test-support`).
#[cfg(feature = "test-support")]
pub async fn insert_many(db: &Db, new: Vec<NewPayment>) -> Result<Vec<String>, DbError> {
    let mut ids = Vec::with_capacity(new.len());
    for chunk in new.chunks(500) {
        let txn = db.begin_write().await?;
        let mut payments = Vec::with_capacity(chunk.len());
        let (rows, events): (Vec<_>, Vec<_>) = chunk
            .iter()
            .map(|new| {
                let (payment, row, event) = new.rows();
                payments.push(payment);
                (row, event)
            })
            .unzip();
        ids.extend(rows.iter().filter_map(|row| match &row.id {
            sea_orm::ActiveValue::Set(id) => Some(id.clone()),
            _ => None,
        }));
        payments::Entity::insert_many(rows)
            .exec_without_returning(&txn)
            .await?;
        payment_events::Entity::insert_many(events)
            .exec_without_returning(&txn)
            .await?;
        let payments: Vec<&Payment> = payments.iter().collect();
        super::merchant_data::insert(&txn, &payments).await?;
        txn.commit().await?;
    }
    Ok(ids)
}

/// Payments of any account in `status` whose last change is older than `before`, oldest
/// first, at most `limit` (for the reconciliation sweeper).
pub async fn stale(
    db: &Db,
    status: PaymentStatus,
    before: Timestamp,
    limit: u64,
) -> Result<Vec<Payment>, DbError> {
    use sea_orm::QuerySelect;
    rows::payments(
        payments::Entity::find()
            .filter(payments::Column::Status.eq(status.as_str()))
            .filter(payments::Column::UpdatedAt.lt(before.micros()))
            .order_by_asc(payments::Column::UpdatedAt)
            .limit(limit)
            .all(db.conn())
            .await?,
    )
}

/// Authorizations (REQUIRES_CAPTURE) past their `capture_before` with no capture in flight,
/// at most `limit`, soonest expired first (for the reconciliation sweeper, which voids them).
pub async fn authorizations_expired(
    db: &Db,
    now: Timestamp,
    limit: u64,
) -> Result<Vec<Payment>, DbError> {
    use sea_orm::QuerySelect;
    rows::payments(
        payments::Entity::find()
            .filter(payments::Column::Status.eq(PaymentStatus::RequiresCapture.as_str()))
            .filter(payments::Column::CaptureBefore.lt(now.micros()))
            .filter(payments::Column::CaptureAmount.is_null())
            .order_by_asc(payments::Column::CaptureBefore)
            .limit(limit)
            .all(db.conn())
            .await?,
    )
}

/// Captures sent to the processor whose outcome was not recorded, last touched before
/// `before`, at most `limit` (for the reconciliation sweeper, which asks the processor).
pub async fn captures_in_flight(
    db: &Db,
    before: Timestamp,
    limit: u64,
) -> Result<Vec<Payment>, DbError> {
    use sea_orm::QuerySelect;
    rows::payments(
        payments::Entity::find()
            .filter(payments::Column::Status.eq(PaymentStatus::RequiresCapture.as_str()))
            .filter(payments::Column::CaptureAmount.is_not_null())
            .filter(payments::Column::UpdatedAt.lt(before.micros()))
            .order_by_asc(payments::Column::UpdatedAt)
            .limit(limit)
            .all(db.conn())
            .await?,
    )
}
