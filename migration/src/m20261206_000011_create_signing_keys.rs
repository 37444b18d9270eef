//! The gateway's signing secrets (cursors, client tokens), each with a key id that what it
//! signs carries, so that secrets can be added and retired. The secret every gateway had
//! until now (the `cursor_hmac_key` setting) becomes key 0, which is what cursors and tokens
//! without a key id were signed with. The setting is left in place, so that a gateway of the
//! previous version started during a rolling upgrade signs with the same secret.

use sea_orm_migration::prelude::*;
use sea_orm_migration::sea_orm::ConnectionTrait;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        let conn = manager.get_connection();
        conn.execute_unprepared(
            "CREATE TABLE signing_keys (kid INTEGER NOT NULL PRIMARY KEY, secret TEXT NOT NULL, \
             created_at BIGINT NOT NULL, retired_at BIGINT NULL)",
        )
        .await?;
        conn.execute_unprepared(
            "INSERT INTO signing_keys (kid, secret, created_at) \
             SELECT 0, value, created_at FROM settings WHERE name = 'cursor_hmac_key'",
        )
        .await?;
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        let conn = manager.get_connection();
        conn.execute_unprepared(
            "INSERT INTO settings (name, value, created_at) \
             SELECT 'cursor_hmac_key', secret, created_at FROM signing_keys WHERE kid = 0 \
             AND NOT EXISTS (SELECT 1 FROM settings WHERE name = 'cursor_hmac_key')",
        )
        .await?;
        conn.execute_unprepared("DROP TABLE signing_keys").await?;
        Ok(())
    }
}
