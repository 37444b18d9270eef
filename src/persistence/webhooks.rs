//! Merchant webhooks in storage: endpoints, deliveries and attempts (with the one mapping
//! between their rows and the domain's values), the fan-out of the change feed into
//! deliveries, and the claiming of due deliveries by one instance at a time.

use sea_orm::ActiveValue::Set;
use sea_orm::sea_query::{Expr, ExprTrait, OnConflict};
use sea_orm::{
    ActiveModelTrait, ColumnTrait, ConnectionTrait, DatabaseTransaction, DbBackend, EntityTrait,
    IntoActiveModel, PaginatorTrait, QueryFilter, QueryOrder, QuerySelect, Select, Statement,
};

use super::entities::{feed_cursors, webhook_attempts, webhook_deliveries, webhook_endpoints};
use super::{Db, DbError};
use crate::domain::feed::FeedPosition;
use crate::domain::ids::{IdKind, new_id};
use crate::domain::paging::{PageSize, Position};
use crate::domain::status::PaymentStatus;
use crate::domain::time::Timestamp;
use crate::domain::webhook_endpoint::{
    DeliveryStatus, WebhookAttempt, WebhookDelivery, WebhookEndpoint,
};

/// The durable cursor of the webhook fan-out in `feed_cursors`.
const FAN_OUT_CURSOR: &str = "webhooks";

// mapping

fn endpoint(row: webhook_endpoints::Model) -> Result<WebhookEndpoint, DbError> {
    let statuses = row
        .statuses
        .split(',')
        .filter(|s| !s.is_empty())
        .map(|s| PaymentStatus::parse(s).ok_or_else(|| DbError::unreadable("payment status", s)))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(WebhookEndpoint {
        id: row.id,
        account_id: row.account_id,
        url: row.url,
        description: row.description,
        statuses,
        secret: row.secret,
        enabled: row.enabled,
        disabled_reason: row.disabled_reason,
        last_success_at: row.last_success_at.map(Timestamp::from_micros),
        feed_from: FeedPosition {
            txid: row.feed_txid,
            position: row.feed_position,
        },
        version: row.version,
        created_at: Timestamp::from_micros(row.created_at),
        updated_at: Timestamp::from_micros(row.updated_at),
    })
}

fn endpoint_row(e: &WebhookEndpoint) -> webhook_endpoints::Model {
    webhook_endpoints::Model {
        id: e.id.clone(),
        account_id: e.account_id.clone(),
        url: e.url.clone(),
        description: e.description.clone(),
        statuses: e
            .statuses
            .iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join(","),
        secret: e.secret.clone(),
        enabled: e.enabled,
        disabled_reason: e.disabled_reason.clone(),
        last_success_at: e.last_success_at.map(Timestamp::micros),
        feed_txid: e.feed_from.txid,
        feed_position: e.feed_from.position,
        version: e.version,
        created_at: e.created_at.micros(),
        updated_at: e.updated_at.micros(),
    }
}

fn delivery(row: webhook_deliveries::Model) -> Result<WebhookDelivery, DbError> {
    Ok(WebhookDelivery {
        status: DeliveryStatus::parse(&row.status)
            .ok_or_else(|| DbError::unreadable("delivery status", &row.status))?,
        id: row.id,
        endpoint_id: row.endpoint_id,
        account_id: row.account_id,
        event_id: row.event_id,
        event_type: row.event_type,
        payment_id: row.payment_id,
        payment_version: row.payment_version,
        body: row.body,
        attempt_count: row.attempt_count,
        first_attempt_at: row.first_attempt_at.map(Timestamp::from_micros),
        next_attempt_at: row.next_attempt_at.map(Timestamp::from_micros),
        created_at: Timestamp::from_micros(row.created_at),
    })
}

fn attempt(row: webhook_attempts::Model) -> WebhookAttempt {
    WebhookAttempt {
        id: row.id,
        delivery_id: row.delivery_id,
        at: Timestamp::from_micros(row.at),
        status_code: row.status_code,
        duration_ms: row.duration_ms,
        error: row.error,
    }
}

// endpoints

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

/// A page in newest-first order, bounded by the cursors given.
#[derive(Clone, Debug)]
pub struct PageRequest {
    pub size: PageSize,
    pub after: Option<Position>,
    pub before: Option<Position>,
}

#[derive(Clone, Debug)]
pub struct Page<T> {
    pub rows: Vec<T>,
    pub has_next: bool,
    pub has_previous: bool,
}

impl<T> Page<T> {
    fn map<U>(self, f: impl FnMut(T) -> Result<U, DbError>) -> Result<Page<U>, DbError> {
        Ok(Page {
            rows: self.rows.into_iter().map(f).collect::<Result<_, _>>()?,
            has_next: self.has_next,
            has_previous: self.has_previous,
        })
    }
}

/// A keyset page over `(created_at, id)`, newest first, of the rows `base` selects. The flag
/// for the side opposite to paging costs a count of the rows beyond the cursor given.
async fn keyset_page<E>(
    db: &Db,
    base: Select<E>,
    created: E::Column,
    id: E::Column,
    request: &PageRequest,
) -> Result<Page<E::Model>, DbError>
where
    E: EntityTrait,
    E::Model: Sync,
{
    let key = |p: &Position| Expr::tuple([Expr::value(p.key), Expr::value(p.id.clone())]);
    let columns = || Expr::tuple([Expr::col(created), Expr::col(id)]);
    let mut select = base.clone();
    if let Some(after) = &request.after {
        select = select.filter(columns().lt(key(after)));
    }
    if let Some(before) = &request.before {
        select = select.filter(columns().gt(key(before)));
    }
    let (limit, backward) = match request.size {
        PageSize::First(n) => (n, false),
        PageSize::Last(n) => (n, true),
    };
    let ordered = if backward {
        select.order_by_asc(created).order_by_asc(id)
    } else {
        select.order_by_desc(created).order_by_desc(id)
    };
    let mut rows = ordered.limit(limit + 1).all(db.conn()).await?;
    let more = rows.len() as u64 > limit;
    rows.truncate(limit as usize);
    if backward {
        rows.reverse();
    }
    let beyond = match (backward, &request.after, &request.before) {
        (false, Some(after), _) => Some(base.filter(columns().gte(key(after)))),
        (true, _, Some(before)) => Some(base.filter(columns().lte(key(before)))),
        _ => None,
    };
    let other_side = match beyond {
        Some(beyond) => beyond.count(db.conn()).await? > 0,
        None => false,
    };
    Ok(Page {
        rows,
        has_next: if backward { other_side } else { more },
        has_previous: if backward { more } else { other_side },
    })
}

pub async fn endpoint_page(
    db: &Db,
    account_id: &str,
    request: &PageRequest,
) -> Result<Page<WebhookEndpoint>, DbError> {
    use webhook_endpoints::{Column, Entity};
    let base = Entity::find().filter(Column::AccountId.eq(account_id));
    keyset_page(db, base, Column::CreatedAt, Column::Id, request)
        .await?
        .map(endpoint)
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

// deliveries

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

// fan-out

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

// claims and attempts

/// A delivery claimed for one attempt, with where and how to send it.
#[derive(Clone, Debug)]
pub struct Claimed {
    pub delivery: WebhookDelivery,
    pub url: String,
    pub secret: String,
    /// Proves the claim is still this instance's when the attempt is recorded.
    pub token: String,
}

const CLAIM_PG: &str = "\
UPDATE webhook_deliveries SET lease_until = $1, lease_token = $2
WHERE id IN (
    SELECT d.id FROM webhook_deliveries d
    JOIN webhook_endpoints w ON w.id = d.endpoint_id
    WHERE d.status = 'PENDING' AND w.enabled AND d.next_attempt_at <= $3
        AND (d.lease_until IS NULL OR d.lease_until <= $3)
        AND NOT EXISTS (
            SELECT 1 FROM webhook_deliveries p
            WHERE p.endpoint_id = d.endpoint_id AND p.payment_id = d.payment_id
                AND p.status = 'PENDING' AND p.payment_version < d.payment_version)
    ORDER BY d.next_attempt_at, d.id
    LIMIT $4
    FOR UPDATE OF d SKIP LOCKED)";

const CLAIM_SQLITE: &str = "\
UPDATE webhook_deliveries SET lease_until = ?, lease_token = ?
WHERE id IN (
    SELECT d.id FROM webhook_deliveries d
    JOIN webhook_endpoints w ON w.id = d.endpoint_id
    WHERE d.status = 'PENDING' AND w.enabled AND d.next_attempt_at <= ?3
        AND (d.lease_until IS NULL OR d.lease_until <= ?3)
        AND NOT EXISTS (
            SELECT 1 FROM webhook_deliveries p
            WHERE p.endpoint_id = d.endpoint_id AND p.payment_id = d.payment_id
                AND p.status = 'PENDING' AND p.payment_version < d.payment_version)
    ORDER BY d.next_attempt_at, d.id
    LIMIT ?4)";

/// Claims up to `limit` deliveries that are due, each until `lease_until`: one attempt each,
/// by this instance alone. A delivery waits while an earlier event of its payment to the same
/// endpoint is pending, and while its endpoint is disabled.
pub async fn claim_due(
    db: &Db,
    now: Timestamp,
    lease_until: Timestamp,
    limit: u64,
) -> Result<Vec<Claimed>, DbError> {
    let token = ulid::Ulid::generate().to_string();
    let backend = db.conn().get_database_backend();
    let sql = if backend == DbBackend::Postgres {
        CLAIM_PG
    } else {
        CLAIM_SQLITE
    };
    let values = [
        lease_until.micros().into(),
        token.clone().into(),
        now.micros().into(),
        (limit as i64).into(),
    ];
    let claimed = db
        .conn()
        .execute_raw(Statement::from_sql_and_values(backend, sql, values))
        .await?
        .rows_affected();
    if claimed == 0 {
        return Ok(Vec::new());
    }
    let rows = webhook_deliveries::Entity::find()
        .filter(webhook_deliveries::Column::LeaseToken.eq(&token))
        .all(db.conn())
        .await?;
    let endpoint_ids: Vec<String> = rows.iter().map(|r| r.endpoint_id.clone()).collect();
    let endpoints = webhook_endpoints::Entity::find()
        .filter(webhook_endpoints::Column::Id.is_in(endpoint_ids))
        .all(db.conn())
        .await?;
    let mut out = Vec::with_capacity(rows.len());
    for row in rows {
        let Some(endpoint) = endpoints.iter().find(|e| e.id == row.endpoint_id) else {
            continue;
        };
        out.push(Claimed {
            url: endpoint.url.clone(),
            secret: endpoint.secret.clone(),
            token: token.clone(),
            delivery: delivery(row)?,
        });
    }
    Ok(out)
}

/// How stale an endpoint's `last_success_at` may be: it only has to tell whether the endpoint
/// acknowledged anything during a retry schedule of days.
const LAST_SUCCESS_EVERY_MICROS: i64 = 60_000_000;

/// What an attempt leaves the delivery as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AttemptResult {
    Acknowledged,
    /// Not acknowledged: try again at this time.
    RetryAt(Timestamp),
    /// Not acknowledged, and the schedule has run out.
    GaveUp,
}

/// Records an attempt and what it leaves the delivery as, if the claim is still this
/// instance's (`false` otherwise: nothing is recorded). When a delivery is given up and its
/// endpoint has not acknowledged anything since the delivery's first attempt, the endpoint is
/// disabled with `disabled_reason`.
pub async fn record_attempt(
    db: &Db,
    claimed: &Claimed,
    attempt: &WebhookAttempt,
    result: AttemptResult,
    disabled_reason: &str,
) -> Result<bool, DbError> {
    use webhook_deliveries::Column;
    let txn = db.begin_write().await?;
    let first = claimed.delivery.first_attempt_at.unwrap_or(attempt.at);
    let (status, next) = match result {
        AttemptResult::Acknowledged => (DeliveryStatus::Succeeded, None),
        AttemptResult::RetryAt(at) => (DeliveryStatus::Pending, Some(at.micros())),
        AttemptResult::GaveUp => (DeliveryStatus::Failed, None),
    };
    let updated = webhook_deliveries::Entity::update_many()
        .col_expr(Column::Status, Expr::value(status.as_str()))
        .col_expr(Column::AttemptCount, Expr::col(Column::AttemptCount).add(1))
        .col_expr(Column::FirstAttemptAt, Expr::value(first.micros()))
        .col_expr(Column::NextAttemptAt, Expr::value(next))
        .col_expr(Column::LeaseUntil, Expr::value(Option::<i64>::None))
        .col_expr(Column::LeaseToken, Expr::value(Option::<String>::None))
        .col_expr(Column::UpdatedAt, Expr::value(attempt.at.micros()))
        .filter(Column::Id.eq(&claimed.delivery.id))
        .filter(Column::LeaseToken.eq(&claimed.token))
        .exec(&txn)
        .await?;
    if updated.rows_affected != 1 {
        txn.rollback().await?;
        return Ok(false);
    }
    webhook_attempts::ActiveModel {
        id: Set(attempt.id.clone()),
        delivery_id: Set(claimed.delivery.id.clone()),
        at: Set(attempt.at.micros()),
        status_code: Set(attempt.status_code),
        duration_ms: Set(attempt.duration_ms),
        error: Set(attempt.error.clone()),
    }
    .insert(&txn)
    .await?;
    match result {
        AttemptResult::Acknowledged => {
            // At most once a minute: every acknowledgement writing the endpoint's one row would
            // make all attempts to it commit one after another.
            webhook_endpoints::Entity::update_many()
                .col_expr(
                    webhook_endpoints::Column::LastSuccessAt,
                    Expr::value(attempt.at.micros()),
                )
                .filter(webhook_endpoints::Column::Id.eq(&claimed.delivery.endpoint_id))
                .filter(
                    webhook_endpoints::Column::LastSuccessAt
                        .is_null()
                        .or(webhook_endpoints::Column::LastSuccessAt
                            .lt(attempt.at.micros() - LAST_SUCCESS_EVERY_MICROS)),
                )
                .exec(&txn)
                .await?;
        }
        AttemptResult::GaveUp => {
            use webhook_endpoints::Column as E;
            webhook_endpoints::Entity::update_many()
                .col_expr(E::Enabled, Expr::value(false))
                .col_expr(E::DisabledReason, Expr::value(disabled_reason))
                .col_expr(E::Version, Expr::col(E::Version).add(1))
                .col_expr(E::UpdatedAt, Expr::value(attempt.at.micros()))
                .filter(E::Id.eq(&claimed.delivery.endpoint_id))
                .filter(
                    E::LastSuccessAt
                        .is_null()
                        .or(E::LastSuccessAt.lt(first.micros())),
                )
                .exec(&txn)
                .await?;
        }
        AttemptResult::RetryAt(_) => {}
    }
    txn.commit().await?;
    Ok(true)
}

const NEXT_DUE: &str = "\
SELECT MIN(CASE WHEN d.lease_until IS NOT NULL AND d.lease_until > d.next_attempt_at
        THEN d.lease_until ELSE d.next_attempt_at END) AS next
FROM webhook_deliveries d
JOIN webhook_endpoints w ON w.id = d.endpoint_id
WHERE d.status = 'PENDING' AND w.enabled
    AND NOT EXISTS (
        SELECT 1 FROM webhook_deliveries p
        WHERE p.endpoint_id = d.endpoint_id AND p.payment_id = d.payment_id
            AND p.status = 'PENDING' AND p.payment_version < d.payment_version)";

/// The earliest time a delivery can next be claimed (its attempt due and its lease, if any,
/// run out), among those a claim would take: to sleep until then.
pub async fn next_due(db: &Db) -> Result<Option<Timestamp>, DbError> {
    let backend = db.conn().get_database_backend();
    let row = db
        .conn()
        .query_one_raw(Statement::from_string(backend, NEXT_DUE))
        .await?;
    let next: Option<i64> = match row {
        Some(row) => row.try_get("", "next")?,
        None => None,
    };
    Ok(next.map(Timestamp::from_micros))
}
