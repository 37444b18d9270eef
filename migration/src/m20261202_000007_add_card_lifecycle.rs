//! The card lifecycle on `payments`: how a payment is captured (at once, or later by
//! `capturePayment`), what is authorized and what was captured, the capture deadline, a
//! capture sent to the processor whose outcome is not yet known, why a payment was canceled,
//! and the customer action it waits for with where to send the customer back.
//!
//! Payments charged before this step were captured in full when they succeeded, so their
//! `amount_captured` is their amount.
//!
//! The sandbox processor keeps, beside each charge or authorization that waits for its
//! customer, where to send the customer back.

use sea_orm_migration::prelude::*;
use sea_orm_migration::sea_orm::ConnectionTrait;

#[derive(DeriveMigrationName)]
pub struct Migration;

/// One `ALTER TABLE` a column: SQLite adds one column per statement.
const COLUMNS: [&str; 8] = [
    "capture_method TEXT NOT NULL DEFAULT 'AUTOMATIC'",
    "amount_capturable BIGINT NOT NULL DEFAULT 0",
    "amount_captured BIGINT NOT NULL DEFAULT 0",
    "capture_before BIGINT NULL",
    "capture_amount BIGINT NULL",
    "cancellation_reason TEXT NULL",
    "next_action_url TEXT NULL",
    "return_url TEXT NULL",
];

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        let conn = manager.get_connection();
        for column in COLUMNS {
            conn.execute_unprepared(&format!("ALTER TABLE payments ADD COLUMN {column}"))
                .await?;
        }
        conn.execute_unprepared(
            "UPDATE payments SET amount_captured = amount WHERE status IN \
             ('SUCCEEDED', 'REFUNDING', 'PARTIALLY_REFUNDED', 'REFUNDED')",
        )
        .await?;
        conn.execute_unprepared("ALTER TABLE sandbox_operations ADD COLUMN return_url TEXT NULL")
            .await?;
        // The reconciler's look-up of authorizations past their deadline. Partial: only
        // authorizations are in it, so creates and other transitions do not maintain it.
        conn.execute_unprepared(
            "CREATE INDEX payments_capture_before ON payments (capture_before) \
             WHERE status = 'REQUIRES_CAPTURE'",
        )
        .await?;
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        let conn = manager.get_connection();
        conn.execute_unprepared("DROP INDEX payments_capture_before")
            .await?;
        conn.execute_unprepared("ALTER TABLE sandbox_operations DROP COLUMN return_url")
            .await?;
        for column in COLUMNS.iter().rev() {
            let name = column.split(' ').next().unwrap_or_default();
            conn.execute_unprepared(&format!("ALTER TABLE payments DROP COLUMN {name}"))
                .await?;
        }
        Ok(())
    }
}
