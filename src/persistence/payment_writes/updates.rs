//! Changes of the merchant's own data on a payment (description, reference, metadata): a
//! version-checked update, its metadata rows replaced, and a `payment.updated` event carrying
//! the payment as it left it, in one transaction.

use sea_orm::sea_query::{Expr, ExprTrait};
use sea_orm::{ActiveModelTrait, ColumnTrait, EntityTrait, QueryFilter};

use super::super::entities::payments;
use super::super::{Db, DbError, merchant_data, rows};
use super::transitions::Written;
use crate::domain::ids::{IdKind, new_id};
use crate::domain::payment::{Payment, PaymentEvent, event_type};
use crate::domain::time::Timestamp;

/// The merchant's data a payment is to have.
#[derive(Clone, Debug)]
pub struct MerchantData {
    pub description: Option<String>,
    pub reference: Option<String>,
    pub metadata: crate::domain::merchant_data::Metadata,
}

/// Gives `payment` (as read, with its version) `data`, appending `payment.updated`.
/// `Written::Stale` when another writer changed the payment first.
pub async fn update_merchant_data(
    db: &Db,
    payment: &Payment,
    data: MerchantData,
) -> Result<Written<Payment>, DbError> {
    let now = Timestamp::now();
    let mut updated = payment.clone();
    updated.description = data.description;
    updated.reference = data.reference;
    updated.metadata = data.metadata;
    updated.version = payment.version + 1;
    updated.updated_at = now;
    let txn = db.begin_write().await?;
    // The payment's row first: the change feed orders events by the transaction id, which a
    // transaction takes at its first write (see `feed`).
    let written = payments::Entity::update_many()
        .col_expr(
            payments::Column::Description,
            Expr::value(updated.description.clone()),
        )
        .col_expr(
            payments::Column::Reference,
            Expr::value(updated.reference.clone()),
        )
        .col_expr(
            payments::Column::Metadata,
            Expr::value(updated.metadata.to_json()),
        )
        .col_expr(
            payments::Column::Version,
            Expr::col(payments::Column::Version).add(1),
        )
        .col_expr(payments::Column::UpdatedAt, Expr::value(now.micros()))
        .filter(payments::Column::Id.eq(&payment.id))
        .filter(payments::Column::AccountId.eq(&payment.account_id))
        .filter(payments::Column::Version.eq(payment.version))
        .exec(&txn)
        .await?;
    if written.rows_affected != 1 {
        txn.rollback().await?;
        return Ok(Written::Stale);
    }
    if updated.metadata != payment.metadata {
        merchant_data::replace(&txn, &updated).await?;
    }
    let event = PaymentEvent {
        id: new_id(IdKind::PaymentEvent),
        payment_id: updated.id.clone(),
        account_id: updated.account_id.clone(),
        from_status: Some(updated.status),
        to_status: updated.status,
        reason: None,
        created_at: now,
        event_type: event_type::PAYMENT_UPDATED.to_string(),
        refund_id: None,
    };
    rows::event_row(&event, &updated).insert(&txn).await?;
    txn.commit().await?;
    Ok(Written::Done(updated))
}
