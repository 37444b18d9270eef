//! API keys that expire and record their use: a rolled key keeps working until `expires_at`,
//! and `last_used_at` says when a key last authenticated a request (written at most once a
//! minute per key).

use sea_orm_migration::prelude::*;
use sea_orm_migration::sea_orm::ConnectionTrait;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        let conn = manager.get_connection();
        for column in ["expires_at BIGINT NULL", "last_used_at BIGINT NULL"] {
            conn.execute_unprepared(&format!("ALTER TABLE api_keys ADD COLUMN {column}"))
                .await?;
        }
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        let conn = manager.get_connection();
        for column in ["last_used_at", "expires_at"] {
            conn.execute_unprepared(&format!("ALTER TABLE api_keys DROP COLUMN {column}"))
                .await?;
        }
        Ok(())
    }
}
