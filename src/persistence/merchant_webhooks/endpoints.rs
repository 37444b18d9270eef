//! Merchant webhook endpoints in storage: written, read, listed a page at a time, deleted
//! with what was delivered to them.

use std::sync::Arc;

use sea_orm::sea_query::{Expr, ExprTrait};
use sea_orm::{
    ActiveModelTrait, ColumnTrait, EntityTrait, FromQueryResult, IntoActiveModel, PaginatorTrait,
    QueryFilter, QueryResult, QuerySelect, Select,
};

use super::rows::{endpoint, endpoint_row};
use crate::domain::paging::Direction;
use crate::domain::webhook_endpoint::WebhookEndpoint;
use crate::persistence::entities::{webhook_attempts, webhook_deliveries, webhook_endpoints};
use crate::persistence::keyset::{Keyset, PageRequest, Window};
use crate::persistence::{Db, DbError};

pub async fn insert_endpoint(db: &Db, endpoint: &WebhookEndpoint) -> Result<(), DbError> {
    endpoint_row(endpoint)
        .into_active_model()
        .reset_all()
        .insert(db.conn())
        .await?;
    Ok(())
}

pub async fn find_endpoint(
    db: &Db,
    account_id: &str,
    id: &str,
) -> Result<Option<WebhookEndpoint>, DbError> {
    webhook_endpoints::Entity::find_by_id(id)
        .filter(webhook_endpoints::Column::AccountId.eq(account_id))
        .one(db.conn())
        .await?
        .map(endpoint)
        .transpose()
}

/// Stores an endpoint's changeable fields as `endpoint` has them, if it is still at the
/// version it was read at (`false` otherwise: nothing is written).
pub async fn update_endpoint(db: &Db, endpoint: &WebhookEndpoint) -> Result<bool, DbError> {
    let row = endpoint_row(endpoint);
    let updated = webhook_endpoints::Entity::update_many()
        .col_expr(webhook_endpoints::Column::Url, Expr::value(row.url))
        .col_expr(
            webhook_endpoints::Column::Description,
            Expr::value(row.description),
        )
        .col_expr(
            webhook_endpoints::Column::Statuses,
            Expr::value(row.statuses),
        )
        .col_expr(
            webhook_endpoints::Column::EventTypes,
            Expr::value(row.event_types),
        )
        .col_expr(webhook_endpoints::Column::Secret, Expr::value(row.secret))
        .col_expr(
            webhook_endpoints::Column::PreviousSecret,
            Expr::value(row.previous_secret),
        )
        .col_expr(
            webhook_endpoints::Column::PreviousSecretExpiresAt,
            Expr::value(row.previous_secret_expires_at),
        )
        .col_expr(webhook_endpoints::Column::Enabled, Expr::value(row.enabled))
        .col_expr(
            webhook_endpoints::Column::DisabledReason,
            Expr::value(row.disabled_reason),
        )
        .col_expr(
            webhook_endpoints::Column::UpdatedAt,
            Expr::value(row.updated_at),
        )
        .col_expr(
            webhook_endpoints::Column::Version,
            Expr::col(webhook_endpoints::Column::Version).add(1),
        )
        .filter(webhook_endpoints::Column::Id.eq(&endpoint.id))
        .filter(webhook_endpoints::Column::AccountId.eq(&endpoint.account_id))
        .filter(webhook_endpoints::Column::Version.eq(endpoint.version))
        .exec(db.conn())
        .await?;
    Ok(updated.rows_affected == 1)
}

/// Deletes an endpoint with its deliveries and their attempts.
pub async fn delete_endpoint(db: &Db, account_id: &str, id: &str) -> Result<bool, DbError> {
    let txn = db.begin_write().await?;
    let delivery_ids = webhook_deliveries::Entity::find()
        .select_only()
        .column(webhook_deliveries::Column::Id)
        .filter(webhook_deliveries::Column::EndpointId.eq(id))
        .filter(webhook_deliveries::Column::AccountId.eq(account_id))
        .into_tuple::<String>()
        .all(&txn)
        .await?;
    for chunk in delivery_ids.chunks(500) {
        webhook_attempts::Entity::delete_many()
            .filter(webhook_attempts::Column::DeliveryId.is_in(chunk.iter().cloned()))
            .exec(&txn)
            .await?;
    }
    webhook_deliveries::Entity::delete_many()
        .filter(webhook_deliveries::Column::EndpointId.eq(id))
        .filter(webhook_deliveries::Column::AccountId.eq(account_id))
        .exec(&txn)
        .await?;
    let deleted = webhook_endpoints::Entity::delete_many()
        .filter(webhook_endpoints::Column::Id.eq(id))
        .filter(webhook_endpoints::Column::AccountId.eq(account_id))
        .exec(&txn)
        .await?;
    txn.commit().await?;
    Ok(deleted.rows_affected == 1)
}

/// A page of one account's endpoints, newest first.
#[derive(Clone, Debug)]
pub struct EndpointPageQuery {
    pub account_id: String,
    pub request: PageRequest,
}

impl Keyset for EndpointPageQuery {
    type Entity = webhook_endpoints::Entity;
    type Row = Arc<WebhookEndpoint>;

    fn scope(&self, _: sea_orm::DbBackend) -> Select<webhook_endpoints::Entity> {
        webhook_endpoints::Entity::find()
            .filter(webhook_endpoints::Column::AccountId.eq(&self.account_id))
    }

    fn key_column(&self) -> webhook_endpoints::Column {
        webhook_endpoints::Column::CreatedAt
    }

    fn id_column(&self) -> webhook_endpoints::Column {
        webhook_endpoints::Column::Id
    }

    fn direction(&self) -> Direction {
        Direction::Desc
    }

    fn window(&self) -> Window<'_> {
        self.request.window()
    }

    fn row(&self, row: &QueryResult) -> Result<Arc<WebhookEndpoint>, DbError> {
        let model = webhook_endpoints::Model::from_query_result(row, "")?;
        endpoint(model).map(Arc::new)
    }

    fn sort_key(&self, row: &Arc<WebhookEndpoint>) -> i64 {
        row.created_at.micros()
    }

    fn id<'r>(&self, row: &'r Arc<WebhookEndpoint>) -> &'r str {
        &row.id
    }
}

/// Enabled endpoints of the given accounts.
pub async fn enabled_endpoints_of(
    db: &Db,
    account_ids: &[String],
) -> Result<Vec<WebhookEndpoint>, DbError> {
    webhook_endpoints::Entity::find()
        .filter(webhook_endpoints::Column::AccountId.is_in(account_ids.iter().cloned()))
        .filter(webhook_endpoints::Column::Enabled.eq(true))
        .all(db.conn())
        .await?
        .into_iter()
        .map(endpoint)
        .collect()
}

/// Whether any endpoint is enabled, in any account.
pub async fn any_enabled_endpoint(db: &Db) -> Result<bool, DbError> {
    let conn = db.conn();
    Ok(webhook_endpoints::Entity::find()
        .filter(webhook_endpoints::Column::Enabled.eq(true))
        .limit(1)
        .count(conn)
        .await?
        > 0)
}
