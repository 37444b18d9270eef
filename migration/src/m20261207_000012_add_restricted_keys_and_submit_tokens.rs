//! Restricted keys and submit tokens. A key may be limited to some scopes (`scopes`, their
//! names comma-separated; NULL for an unrestricted key) and named (`name`). A submit token is
//! a one-time idempotency key the merchant's server obtains when it renders a form: only its
//! SHA-256 is stored, with its account and expiry.

use sea_orm_migration::prelude::*;
use sea_orm_migration::sea_orm::ConnectionTrait;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        let conn = manager.get_connection();
        for column in ["name TEXT NULL", "scopes TEXT NULL"] {
            conn.execute_unprepared(&format!("ALTER TABLE api_keys ADD COLUMN {column}"))
                .await?;
        }
        conn.execute_unprepared(
            "CREATE TABLE submit_tokens (token_hash TEXT NOT NULL PRIMARY KEY, \
             account_id TEXT NOT NULL, key_id TEXT NOT NULL, created_at BIGINT NOT NULL, \
             expires_at BIGINT NOT NULL)",
        )
        .await?;
        conn.execute_unprepared(
            "CREATE INDEX submit_tokens_by_expiry ON submit_tokens (expires_at)",
        )
        .await?;
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        let conn = manager.get_connection();
        conn.execute_unprepared("DROP TABLE submit_tokens").await?;
        for column in ["scopes", "name"] {
            conn.execute_unprepared(&format!("ALTER TABLE api_keys DROP COLUMN {column}"))
                .await?;
        }
        Ok(())
    }
}
