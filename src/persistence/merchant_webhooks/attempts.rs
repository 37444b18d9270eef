//! Attempts at merchant webhook deliveries in storage: claiming due deliveries (each by one
//! instance at a time, in order per payment and endpoint), recording each attempt and what it
//! leaves the delivery and its endpoint as, and when the next one falls due.

use sea_orm::ActiveValue::Set;
use sea_orm::sea_query::{Expr, ExprTrait};
use sea_orm::{
    ActiveModelTrait, ColumnTrait, ConnectionTrait, DbBackend, EntityTrait, QueryFilter, Statement,
};

use super::rows::delivery;
use crate::domain::time::Timestamp;
use crate::domain::webhook_endpoint::{DeliveryStatus, WebhookAttempt, WebhookDelivery};
use crate::persistence::entities::{webhook_attempts, webhook_deliveries, webhook_endpoints};
use crate::persistence::{Db, DbError};

/// A delivery claimed for one attempt, with where and how to send it.
#[derive(Clone, Debug)]
pub struct Claimed {
    pub delivery: WebhookDelivery,
    pub url: String,
    /// The endpoint's secrets that sign the attempt: the current one first, then the one a
    /// roll replaced while its overlap lasts.
    pub secrets: Vec<String>,
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
                AND p.status = 'PENDING'
                AND (p.payment_version < d.payment_version
                    OR (p.payment_version = d.payment_version AND p.event_id < d.event_id)))
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
                AND p.status = 'PENDING'
                AND (p.payment_version < d.payment_version
                    OR (p.payment_version = d.payment_version AND p.event_id < d.event_id)))
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
    let now_micros = Timestamp::now().micros();
    let mut out = Vec::with_capacity(rows.len());
    for row in rows {
        let Some(endpoint) = endpoints.iter().find(|e| e.id == row.endpoint_id) else {
            continue;
        };
        out.push(Claimed {
            url: endpoint.url.clone(),
            secrets: signing_secrets(db, endpoint, now_micros),
            token: token.clone(),
            delivery: delivery(row)?,
        });
    }
    Ok(out)
}

/// The secrets that sign an attempt at `now_micros`, opened: the current one, and the one a
/// roll replaced while its overlap lasts. None when one cannot be opened (the attempt is
/// then recorded as not sent, and the failure logged).
fn signing_secrets(db: &Db, endpoint: &webhook_endpoints::Model, now_micros: i64) -> Vec<String> {
    let previous = endpoint
        .previous_secret
        .as_ref()
        .filter(|_| endpoint.previous_secret_expires_at > Some(now_micros));
    let opened: Result<Vec<String>, _> = std::iter::once(&endpoint.secret)
        .chain(previous)
        .map(|stored| db.sealer().open(stored))
        .collect();
    opened.unwrap_or_else(|err| {
        tracing::error!(endpoint = %endpoint.id, error = %err, "an endpoint's secret cannot be opened");
        Vec::new()
    })
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
            AND p.status = 'PENDING'
                AND (p.payment_version < d.payment_version
                    OR (p.payment_version = d.payment_version AND p.event_id < d.event_id)))";

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
