//! Writers count in buckets 1 to 15, never in bucket 0: bucket 0 holds what the migration that
//! adds the counts counted and what the gateway folds into it (`persistence::payment_counts`).
//!
//! A fold finds the statuses to fold by their rows beyond bucket 0 (through the partial index
//! `payment_counts_spread`), and deletes the rows of a status that sum to 0. A writer counting
//! in bucket 0 (one connection in 16) could bring a status's only row, in bucket 0, back to 0,
//! and nothing would ever find that row again. With writes beside the folded row, a status
//! whose count goes back to 0 always has a row beyond bucket 0, which the next fold finds.
//! Rows of 0 left in bucket 0 by earlier writes are removed here. PostgreSQL only; SQLite
//! counts in one bucket and keeps its rows.

use sea_orm_migration::prelude::*;
use sea_orm_migration::sea_orm::{ConnectionTrait, DbBackend};

use crate::m20261130_000006_create_payment_counts::PG_FUNCTION;

#[derive(DeriveMigrationName)]
pub struct Migration;

/// The bucket a writing connection counts in, as the migration that adds the counts chose it.
const ANY_BUCKET: &str = "pg_backend_pid() % 16";
/// The bucket a writing connection counts in from this migration on.
const BESIDE_THE_FOLDED_ROW: &str = "1 + pg_backend_pid() % 15";

fn function(bucket: &str) -> String {
    assert!(PG_FUNCTION.contains(ANY_BUCKET));
    PG_FUNCTION
        .replacen("CREATE FUNCTION", "CREATE OR REPLACE FUNCTION", 1)
        .replacen(ANY_BUCKET, bucket, 1)
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        if manager.get_database_backend() != DbBackend::Postgres {
            return Ok(());
        }
        let conn = manager.get_connection();
        conn.execute_unprepared(&function(BESIDE_THE_FOLDED_ROW))
            .await?;
        conn.execute_unprepared("DELETE FROM payment_counts WHERE bucket = 0 AND count = 0")
            .await?;
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        if manager.get_database_backend() != DbBackend::Postgres {
            return Ok(());
        }
        manager
            .get_connection()
            .execute_unprepared(&function(ANY_BUCKET))
            .await?;
        Ok(())
    }
}
