//! An index of the status counts spread beyond their first bucket, which the gateway folds
//! back into it (`persistence::payment_counts::fold`): it finds them without reading every
//! account's counts. PostgreSQL only; SQLite counts in one bucket.
//!
//! Partial on `bucket <> 0` and without `count`, so a count's update changes no indexed
//! column and stays a heap-only update.

use sea_orm_migration::prelude::*;
use sea_orm_migration::sea_orm::{ConnectionTrait, DbBackend};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        if manager.get_database_backend() != DbBackend::Postgres {
            return Ok(());
        }
        manager
            .get_connection()
            .execute_unprepared(
                "CREATE INDEX payment_counts_spread ON payment_counts (account_id, status) \
                 WHERE bucket <> 0",
            )
            .await?;
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        if manager.get_database_backend() != DbBackend::Postgres {
            return Ok(());
        }
        manager
            .get_connection()
            .execute_unprepared("DROP INDEX payment_counts_spread")
            .await?;
        Ok(())
    }
}
