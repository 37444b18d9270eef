//! Deliveries of payment events to merchant endpoints in storage: one endpoint's listed a
//! page at a time, read with their attempts, and made due again on redelivery.

use std::sync::Arc;

use sea_orm::sea_query::Expr;
use sea_orm::{
    ColumnTrait, EntityTrait, FromQueryResult, QueryFilter, QueryOrder, QueryResult, Select,
};

use super::rows::{attempt, delivery};
use crate::domain::paging::Direction;
use crate::domain::time::Timestamp;
use crate::domain::webhook_endpoint::{DeliveryStatus, WebhookAttempt, WebhookDelivery};
use crate::persistence::entities::{webhook_attempts, webhook_deliveries};
use crate::persistence::keyset::{Keyset, PageRequest, Window};
use crate::persistence::{Db, DbError};

/// A page of the deliveries to one endpoint of an account, newest first.
#[derive(Clone, Debug)]
pub struct DeliveryPageQuery {
    pub account_id: String,
    pub endpoint_id: String,
    pub request: PageRequest,
}

impl Keyset for DeliveryPageQuery {
    type Entity = webhook_deliveries::Entity;
    type Row = Arc<WebhookDelivery>;

    fn scope(&self, _: sea_orm::DbBackend) -> Select<webhook_deliveries::Entity> {
        webhook_deliveries::Entity::find()
            .filter(webhook_deliveries::Column::AccountId.eq(&self.account_id))
            .filter(webhook_deliveries::Column::EndpointId.eq(&self.endpoint_id))
    }

    fn key_column(&self) -> webhook_deliveries::Column {
        webhook_deliveries::Column::CreatedAt
    }

    fn id_column(&self) -> webhook_deliveries::Column {
        webhook_deliveries::Column::Id
    }

    fn direction(&self) -> Direction {
        Direction::Desc
    }

    fn window(&self) -> Window<'_> {
        self.request.window()
    }

    fn row(&self, row: &QueryResult) -> Result<Arc<WebhookDelivery>, DbError> {
        let model = webhook_deliveries::Model::from_query_result(row, "")?;
        delivery(model).map(Arc::new)
    }

    fn sort_key(&self, row: &Arc<WebhookDelivery>) -> i64 {
        row.created_at.micros()
    }

    fn id<'r>(&self, row: &'r Arc<WebhookDelivery>) -> &'r str {
        &row.id
    }
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
