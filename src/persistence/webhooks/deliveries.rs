//! Deliveries of payment events to merchant endpoints in storage: one endpoint's listed a
//! page at a time, read with their attempts, and made due again on redelivery.

use sea_orm::sea_query::Expr;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, QueryOrder};

use super::pages::{Page, PageRequest, keyset_page};
use super::rows::{attempt, delivery};
use crate::domain::time::Timestamp;
use crate::domain::webhook_endpoint::{DeliveryStatus, WebhookAttempt, WebhookDelivery};
use crate::persistence::entities::{webhook_attempts, webhook_deliveries};
use crate::persistence::{Db, DbError};

pub async fn delivery_page(
    db: &Db,
    account_id: &str,
    endpoint_id: &str,
    request: &PageRequest,
) -> Result<Page<WebhookDelivery>, DbError> {
    use webhook_deliveries::{Column, Entity};
    let base = Entity::find()
        .filter(Column::AccountId.eq(account_id))
        .filter(Column::EndpointId.eq(endpoint_id));
    keyset_page(db, base, Column::CreatedAt, Column::Id, request)
        .await?
        .map(delivery)
}

pub async fn find_delivery(
    db: &Db,
    account_id: &str,
    id: &str,
) -> Result<Option<WebhookDelivery>, DbError> {
    webhook_deliveries::Entity::find_by_id(id)
        .filter(webhook_deliveries::Column::AccountId.eq(account_id))
        .one(db.conn())
        .await?
        .map(delivery)
        .transpose()
}

/// The attempts made to deliver each of `delivery_ids`, oldest first.
pub async fn attempts_of(db: &Db, delivery_ids: &[String]) -> Result<Vec<WebhookAttempt>, DbError> {
    Ok(webhook_attempts::Entity::find()
        .filter(webhook_attempts::Column::DeliveryId.is_in(delivery_ids.iter().cloned()))
        .order_by_asc(webhook_attempts::Column::At)
        .order_by_asc(webhook_attempts::Column::Id)
        .all(db.conn())
        .await?
        .into_iter()
        .map(attempt)
        .collect())
}

/// Makes a delivery due now, with a fresh retry schedule unless it is still pending. The same
/// event id and body are sent again.
pub async fn redeliver(
    db: &Db,
    account_id: &str,
    id: &str,
    now: Timestamp,
) -> Result<Option<WebhookDelivery>, DbError> {
    use webhook_deliveries::Column;
    let Some(found) = find_delivery(db, account_id, id).await? else {
        return Ok(None);
    };
    let mut update = webhook_deliveries::Entity::update_many()
        .col_expr(
            Column::Status,
            Expr::value(DeliveryStatus::Pending.as_str()),
        )
        .col_expr(Column::NextAttemptAt, Expr::value(now.micros()))
        .col_expr(Column::UpdatedAt, Expr::value(now.micros()))
        .filter(Column::Id.eq(id))
        .filter(Column::AccountId.eq(account_id));
    if found.status != DeliveryStatus::Pending {
        // A fresh schedule: backoff starts again from its first delay.
        update = update
            .col_expr(Column::FirstAttemptAt, Expr::value(Option::<i64>::None))
            .col_expr(Column::AttemptCount, Expr::value(0));
    }
    update.exec(db.conn()).await?;
    find_delivery(db, account_id, id).await
}
