//! A payment's metadata entries as rows of `payment_metadata`, which filtered listings walk
//! (see `payment_pages`); the payment's own row keeps the entries too, for reading it back.

use sea_orm::sea_query::{Expr, ExprTrait, Query, SelectStatement};
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, Set};

use super::DbError;
use super::entities::payment_metadata;
use crate::domain::payment::Payment;

/// Stores the entries of a new payment (none when it has no metadata).
pub(crate) async fn insert(
    conn: &impl ConnectionTrait,
    payments: &[&Payment],
) -> Result<(), DbError> {
    let rows: Vec<payment_metadata::ActiveModel> =
        payments
            .iter()
            .flat_map(|payment| {
                payment.metadata.entries().iter().map(|(key, value)| {
                    payment_metadata::ActiveModel {
                        account_id: Set(payment.account_id.clone()),
                        key: Set(key.clone()),
                        value: Set(value.clone()),
                        created_at: Set(payment.created_at.micros()),
                        payment_id: Set(payment.id.clone()),
                    }
                })
            })
            .collect();
    if rows.is_empty() {
        return Ok(());
    }
    payment_metadata::Entity::insert_many(rows)
        .exec_without_returning(conn)
        .await?;
    Ok(())
}

/// Replaces a payment's entries with its current ones.
pub(crate) async fn replace(conn: &impl ConnectionTrait, payment: &Payment) -> Result<(), DbError> {
    payment_metadata::Entity::delete_many()
        .filter(payment_metadata::Column::PaymentId.eq(&payment.id))
        .exec(conn)
        .await?;
    insert(conn, &[payment]).await
}

/// The ids of the account's payments that carry `key` = `value`, as a subquery (in
/// `(created_at, payment_id)` order in its index).
pub(crate) fn payments_with(account_id: &str, key: &str, value: &str) -> SelectStatement {
    let mut select = Query::select();
    select
        .column(payment_metadata::Column::PaymentId)
        .from(payment_metadata::Entity)
        .and_where(Expr::col(payment_metadata::Column::AccountId).eq(account_id))
        .and_where(Expr::col(payment_metadata::Column::Key).eq(key))
        .and_where(Expr::col(payment_metadata::Column::Value).eq(value));
    select
}
