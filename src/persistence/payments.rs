//! Reading payments, refunds and payment events, always within one account.

use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, QueryOrder};

use super::entities::{payment_events, payments, refunds};
use super::{Db, DbError};

pub use payment_events::Model as PaymentEvent;
pub use payments::Model as Payment;
pub use refunds::Model as Refund;

pub async fn find_payment(db: &Db, account_id: &str, id: &str) -> Result<Option<Payment>, DbError> {
    payments::Entity::find_by_id(id)
        .filter(payments::Column::AccountId.eq(account_id))
        .one(db.conn())
        .await
}

pub async fn find_payments(
    db: &Db,
    account_id: &str,
    ids: &[String],
) -> Result<Vec<Payment>, DbError> {
    payments::Entity::find()
        .filter(payments::Column::AccountId.eq(account_id))
        .filter(payments::Column::Id.is_in(ids.iter().cloned()))
        .all(db.conn())
        .await
}

pub async fn find_refunds(
    db: &Db,
    account_id: &str,
    ids: &[String],
) -> Result<Vec<Refund>, DbError> {
    refunds::Entity::find()
        .filter(refunds::Column::AccountId.eq(account_id))
        .filter(refunds::Column::Id.is_in(ids.iter().cloned()))
        .all(db.conn())
        .await
}

/// Refunds of the given payments, oldest first.
pub async fn refunds_of(
    db: &Db,
    account_id: &str,
    payment_ids: &[String],
) -> Result<Vec<Refund>, DbError> {
    refunds::Entity::find()
        .filter(refunds::Column::AccountId.eq(account_id))
        .filter(refunds::Column::PaymentId.is_in(payment_ids.iter().cloned()))
        .order_by_asc(refunds::Column::CreatedAt)
        .order_by_asc(refunds::Column::Id)
        .all(db.conn())
        .await
}

/// Status changes of the given payments, oldest first (event ids are time-ordered).
pub async fn events_of(
    db: &Db,
    account_id: &str,
    payment_ids: &[String],
) -> Result<Vec<PaymentEvent>, DbError> {
    payment_events::Entity::find()
        .filter(payment_events::Column::AccountId.eq(account_id))
        .filter(payment_events::Column::PaymentId.is_in(payment_ids.iter().cloned()))
        .order_by_asc(payment_events::Column::CreatedAt)
        .order_by_asc(payment_events::Column::Id)
        .all(db.conn())
        .await
}
