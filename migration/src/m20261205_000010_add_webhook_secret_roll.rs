//! A webhook endpoint's secret rolled with an overlap: the secret it replaced, and when that
//! one stops signing deliveries beside the new one.

use sea_orm_migration::prelude::*;
use sea_orm_migration::sea_orm::ConnectionTrait;

#[derive(DeriveMigrationName)]
pub struct Migration;

const COLUMNS: [(&str, &str); 2] = [
    ("previous_secret", "TEXT NULL"),
    ("previous_secret_expires_at", "BIGINT NULL"),
];

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        let conn = manager.get_connection();
        for (name, kind) in COLUMNS {
            conn.execute_unprepared(&format!(
                "ALTER TABLE webhook_endpoints ADD COLUMN {name} {kind}"
            ))
            .await?;
        }
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        let conn = manager.get_connection();
        for (name, _) in COLUMNS.iter().rev() {
            conn.execute_unprepared(&format!("ALTER TABLE webhook_endpoints DROP COLUMN {name}"))
                .await?;
        }
        Ok(())
    }
}
