//! The merchant's own data on payments, and the event log made readable.
//!
//! - `payments.reference` (the merchant's reference, e.g. an order number) and
//!   `payments.metadata` (the merchant's key-value entries as a JSON object sorted by key, for
//!   reading a payment back in one row).
//! - `payment_metadata`: one row per entry, keyed by (account, key, value, created_at,
//!   payment), so a listing filtered by an entry walks the matching payments in creation order
//!   from the index instead of testing every payment of the account.
//! - `payments_reference`: the same for the reference, partial (only payments that have one).
//! - `payment_events.event_type` (`payment.<status>`, `payment.updated`, `refund.<status>`),
//!   and for refund events the refund as the change left it (`refund_id`, `refund_snapshot`).
//! - On SQLite, `payment_events.txid` as on PostgreSQL: there it is the row id (one writer at
//!   a time makes it commit order), set by a trigger.
//! - `webhook_endpoints.event_types`: the event types an endpoint is sent, separated by commas
//!   (empty: all). `(account_id, txid, id)` then orders an
//!   account's events in feed order on both backends.

use sea_orm_migration::prelude::*;
use sea_orm_migration::sea_orm::{ConnectionTrait, DbBackend};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        let conn = manager.get_connection();
        let pg = manager.get_database_backend() == DbBackend::Postgres;
        let c = if pg { " COLLATE \"C\"" } else { "" };
        let mut statements = vec![
            "ALTER TABLE payments ADD COLUMN reference TEXT NULL".to_string(),
            "ALTER TABLE payments ADD COLUMN metadata TEXT NULL".to_string(),
            format!(
                "CREATE TABLE payment_metadata (
                    account_id TEXT{c} NOT NULL,
                    key TEXT{c} NOT NULL,
                    value TEXT{c} NOT NULL,
                    created_at BIGINT NOT NULL,
                    payment_id TEXT{c} NOT NULL REFERENCES payments (id) ON DELETE CASCADE,
                    PRIMARY KEY (account_id, key, value, created_at, payment_id))"
            ),
            "CREATE INDEX payment_metadata_payment ON payment_metadata (payment_id)".to_string(),
            "CREATE INDEX payments_reference ON payments (account_id, reference, created_at, id) \
             WHERE reference IS NOT NULL"
                .to_string(),
            "ALTER TABLE payment_events ADD COLUMN event_type TEXT NOT NULL DEFAULT ''".to_string(),
            "ALTER TABLE payment_events ADD COLUMN refund_id TEXT NULL".to_string(),
            "ALTER TABLE payment_events ADD COLUMN refund_snapshot TEXT NULL".to_string(),
            "UPDATE payment_events SET event_type = 'payment.' || lower(to_status)".to_string(),
            "ALTER TABLE webhook_endpoints ADD COLUMN event_types TEXT NOT NULL DEFAULT ''"
                .to_string(),
        ];
        if !pg {
            statements.extend([
                "ALTER TABLE payment_events ADD COLUMN txid BIGINT NOT NULL DEFAULT 0".to_string(),
                "UPDATE payment_events SET txid = rowid".to_string(),
                "CREATE TRIGGER payment_events_txid AFTER INSERT ON payment_events \
                 BEGIN UPDATE payment_events SET txid = NEW.rowid WHERE rowid = NEW.rowid; END"
                    .to_string(),
            ]);
        }
        statements.push(
            "CREATE INDEX payment_events_log ON payment_events (account_id, txid, id)".to_string(),
        );
        for statement in statements {
            conn.execute_unprepared(&statement).await?;
        }
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        let conn = manager.get_connection();
        let pg = manager.get_database_backend() == DbBackend::Postgres;
        let mut statements = vec!["DROP INDEX payment_events_log"];
        if !pg {
            statements.extend([
                "DROP TRIGGER payment_events_txid",
                "ALTER TABLE payment_events DROP COLUMN txid",
            ]);
        }
        statements.extend([
            "ALTER TABLE webhook_endpoints DROP COLUMN event_types",
            "ALTER TABLE payment_events DROP COLUMN refund_snapshot",
            "ALTER TABLE payment_events DROP COLUMN refund_id",
            "ALTER TABLE payment_events DROP COLUMN event_type",
            "DROP INDEX payments_reference",
            "DROP TABLE payment_metadata",
            "ALTER TABLE payments DROP COLUMN metadata",
            "ALTER TABLE payments DROP COLUMN reference",
        ]);
        for statement in statements {
            conn.execute_unprepared(statement).await?;
        }
        Ok(())
    }
}
