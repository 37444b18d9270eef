//! The fan-out of the change feed into merchant webhook deliveries in storage: its durable
//! cursor, and rounds that one instance at a time runs under the cursor's lock.

use sea_orm::ActiveValue::Set;
use sea_orm::sea_query::{Expr, OnConflict};
use sea_orm::{
    ColumnTrait, ConnectionTrait, DatabaseTransaction, DbBackend, EntityTrait, QueryFilter,
    Statement,
};

use crate::domain::feed::FeedPosition;
use crate::domain::ids::{IdKind, new_id};
use crate::domain::time::Timestamp;
use crate::domain::webhook_endpoint::DeliveryStatus;
use crate::persistence::entities::{feed_cursors, webhook_deliveries};
use crate::persistence::{Db, DbError};

/// The durable cursor of the webhook fan-out in `feed_cursors`.
const FAN_OUT_CURSOR: &str = "webhooks";

/// A delivery about to be stored by a fan-out round.
#[derive(Clone, Debug)]
pub struct NewDelivery {
    pub endpoint_id: String,
    pub account_id: String,
    pub event_id: String,
    pub event_type: String,
    pub payment_id: String,
    pub payment_version: i32,
    pub body: String,
}

/// One round of the webhook fan-out, holding the fan-out's cursor (so no other instance runs
/// one at the same time) until it is finished or dropped.
pub struct FanOutRound {
    txn: DatabaseTransaction,
    pub cursor: FeedPosition,
}

/// Where the fan-out stands, read without taking its lock.
pub async fn fan_out_cursor(db: &Db) -> Result<FeedPosition, DbError> {
    let row = feed_cursors::Entity::find_by_id(FAN_OUT_CURSOR)
        .one(db.conn())
        .await?
        .ok_or_else(|| DbError::NotFound("the webhook fan-out's cursor".into()))?;
    Ok(FeedPosition {
        txid: row.txid,
        position: row.position,
    })
}

/// Starts a fan-out round; `None` when another instance is running one (PostgreSQL: the
/// cursor's row is locked, `SKIP LOCKED`). On SQLite the round holds the write lock.
pub async fn begin_fan_out(db: &Db) -> Result<Option<FanOutRound>, DbError> {
    let txn = db.begin_write().await?;
    let backend = txn.get_database_backend();
    let sql = match backend {
        DbBackend::Postgres => {
            "SELECT txid, position FROM feed_cursors WHERE name = $1 FOR UPDATE SKIP LOCKED"
        }
        _ => "SELECT txid, position FROM feed_cursors WHERE name = ?",
    };
    let row = txn
        .query_one_raw(Statement::from_sql_and_values(
            backend,
            sql,
            [FAN_OUT_CURSOR.into()],
        ))
        .await?;
    let Some(row) = row else {
        txn.rollback().await?;
        return Ok(None);
    };
    let cursor = FeedPosition {
        txid: row.try_get("", "txid")?,
        position: row.try_get("", "position")?,
    };
    Ok(Some(FanOutRound { txn, cursor }))
}

impl FanOutRound {
    /// Ends the round without changing anything.
    pub async fn abandon(self) -> Result<(), DbError> {
        self.txn.rollback().await?;
        Ok(())
    }

    /// Stores `deliveries` (each event at most once per endpoint) and moves the cursor to
    /// `to`, in one commit. Returns how many deliveries were new.
    pub async fn finish(
        self,
        deliveries: Vec<NewDelivery>,
        to: FeedPosition,
        now: Timestamp,
    ) -> Result<usize, DbError> {
        let mut stored = 0;
        for chunk in deliveries.chunks(200) {
            let rows = chunk.iter().map(|d| webhook_deliveries::ActiveModel {
                id: Set(new_id(IdKind::WebhookDelivery)),
                endpoint_id: Set(d.endpoint_id.clone()),
                account_id: Set(d.account_id.clone()),
                event_id: Set(d.event_id.clone()),
                event_type: Set(d.event_type.clone()),
                payment_id: Set(d.payment_id.clone()),
                payment_version: Set(d.payment_version),
                body: Set(d.body.clone()),
                status: Set(DeliveryStatus::Pending.as_str().to_string()),
                attempt_count: Set(0),
                first_attempt_at: Set(None),
                next_attempt_at: Set(Some(now.micros())),
                lease_until: Set(None),
                lease_token: Set(None),
                created_at: Set(now.micros()),
                updated_at: Set(now.micros()),
            });
            stored += webhook_deliveries::Entity::insert_many(rows)
                .on_conflict(
                    OnConflict::columns([
                        webhook_deliveries::Column::EndpointId,
                        webhook_deliveries::Column::EventId,
                    ])
                    .do_nothing()
                    .to_owned(),
                )
                .exec_without_returning(&self.txn)
                .await? as usize;
        }
        if to > self.cursor {
            feed_cursors::Entity::update_many()
                .col_expr(feed_cursors::Column::Txid, Expr::value(to.txid))
                .col_expr(feed_cursors::Column::Position, Expr::value(to.position))
                .col_expr(feed_cursors::Column::UpdatedAt, Expr::value(now.micros()))
                .filter(feed_cursors::Column::Name.eq(FAN_OUT_CURSOR))
                .exec(&self.txn)
                .await?;
        }
        self.txn.commit().await?;
        Ok(stored)
    }
}
