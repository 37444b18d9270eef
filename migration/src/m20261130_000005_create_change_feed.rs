//! The change feed and merchant webhooks.
//!
//! `payment_events` becomes the outbox every consumer tails by position. On PostgreSQL each
//! event records the writing transaction's id (`txid`) and a `position` from a sequence;
//! readers take only events whose transaction id is below the oldest transaction still
//! running, in `(txid, position)` order, so an event whose transaction commits late is never
//! passed over (see `persistence::feed`). On SQLite, with one writer at a time, the row id is
//! commit order. Each event also carries the payment as the change left it (`snapshot`).
//!
//! `feed_cursors` holds durable positions of consumers shared by every instance (the webhook
//! fan-out); the webhook tables hold merchants' endpoints, the deliveries fanned out to them,
//! and every attempt made.

use sea_orm_migration::prelude::*;
use sea_orm_migration::sea_orm::{ConnectionTrait, DbBackend};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        let conn = manager.get_connection();
        let backend = manager.get_database_backend();
        let pg = backend == DbBackend::Postgres;
        let c = if pg { " COLLATE \"C\"" } else { "" };
        let mut statements: Vec<String> = Vec::new();
        if pg {
            statements.extend([
                "CREATE SEQUENCE payment_events_position_seq".to_string(),
                "ALTER TABLE payment_events \
                 ADD COLUMN position BIGINT NOT NULL DEFAULT nextval('payment_events_position_seq'), \
                 ADD COLUMN txid BIGINT NOT NULL DEFAULT (pg_current_xact_id()::text::bigint), \
                 ADD COLUMN snapshot TEXT"
                    .to_string(),
                "ALTER SEQUENCE payment_events_position_seq OWNED BY payment_events.position"
                    .to_string(),
                "CREATE INDEX idx_payment_events_feed ON payment_events (txid, position)".to_string(),
            ]);
        } else {
            statements.push("ALTER TABLE payment_events ADD COLUMN snapshot TEXT".to_string());
        }
        let head = if pg {
            // Past every event that exists now, this migration's rewrite of them included.
            "SELECT 'webhooks', pg_current_xact_id()::text::bigint + 1, 0, 0"
        } else {
            "SELECT 'webhooks', 0, COALESCE(MAX(rowid), 0), 0 FROM payment_events"
        };
        statements.extend([
            format!(
                "CREATE TABLE feed_cursors (name TEXT{c} PRIMARY KEY, txid BIGINT NOT NULL, \
                 position BIGINT NOT NULL, updated_at BIGINT NOT NULL)"
            ),
            format!("INSERT INTO feed_cursors (name, txid, position, updated_at) {head}"),
            format!(
                "CREATE TABLE webhook_endpoints (
                    id TEXT{c} PRIMARY KEY,
                    account_id TEXT{c} NOT NULL REFERENCES accounts (id),
                    url TEXT NOT NULL,
                    description TEXT,
                    statuses TEXT NOT NULL,
                    secret TEXT NOT NULL,
                    enabled BOOLEAN NOT NULL,
                    disabled_reason TEXT,
                    last_success_at BIGINT,
                    feed_txid BIGINT NOT NULL,
                    feed_position BIGINT NOT NULL,
                    version INTEGER NOT NULL DEFAULT 0,
                    created_at BIGINT NOT NULL,
                    updated_at BIGINT NOT NULL)"
            ),
            "CREATE INDEX idx_webhook_endpoints_account \
             ON webhook_endpoints (account_id, created_at, id)"
                .to_string(),
            format!(
                "CREATE TABLE webhook_deliveries (
                    id TEXT{c} PRIMARY KEY,
                    endpoint_id TEXT{c} NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
                    account_id TEXT{c} NOT NULL,
                    event_id TEXT{c} NOT NULL,
                    event_type TEXT NOT NULL,
                    payment_id TEXT{c} NOT NULL,
                    payment_version INTEGER NOT NULL,
                    body TEXT NOT NULL,
                    status TEXT NOT NULL,
                    attempt_count INTEGER NOT NULL DEFAULT 0,
                    first_attempt_at BIGINT,
                    next_attempt_at BIGINT,
                    lease_until BIGINT,
                    lease_token TEXT,
                    created_at BIGINT NOT NULL,
                    updated_at BIGINT NOT NULL,
                    UNIQUE (endpoint_id, event_id))"
            ),
            "CREATE INDEX idx_webhook_deliveries_due \
             ON webhook_deliveries (status, next_attempt_at)"
                .to_string(),
            "CREATE INDEX idx_webhook_deliveries_endpoint \
             ON webhook_deliveries (endpoint_id, created_at, id)"
                .to_string(),
            "CREATE INDEX idx_webhook_deliveries_order \
             ON webhook_deliveries (endpoint_id, payment_id, payment_version)"
                .to_string(),
            format!(
                "CREATE TABLE webhook_attempts (
                    id TEXT{c} PRIMARY KEY,
                    delivery_id TEXT{c} NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
                    at BIGINT NOT NULL,
                    status_code INTEGER,
                    duration_ms INTEGER NOT NULL,
                    error TEXT)"
            ),
            "CREATE INDEX idx_webhook_attempts_delivery ON webhook_attempts (delivery_id, at, id)"
                .to_string(),
        ]);
        for statement in statements {
            conn.execute_unprepared(&statement).await?;
        }
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        let conn = manager.get_connection();
        for table in [
            "webhook_attempts",
            "webhook_deliveries",
            "webhook_endpoints",
            "feed_cursors",
        ] {
            conn.execute_unprepared(&format!("DROP TABLE {table}"))
                .await?;
        }
        if manager.get_database_backend() == DbBackend::Postgres {
            conn.execute_unprepared(
                "ALTER TABLE payment_events DROP COLUMN position, DROP COLUMN txid, \
                 DROP COLUMN snapshot",
            )
            .await?;
        } else {
            conn.execute_unprepared("ALTER TABLE payment_events DROP COLUMN snapshot")
                .await?;
        }
        Ok(())
    }
}
