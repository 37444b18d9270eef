//! On PostgreSQL, a page filtered by currency is read with the plan page reads keep, made
//! without the values (`persistence::payment_pages`). That plan reckons `currency = $n` to
//! select one payment in as many as the column has distinct values. For an account that takes
//! one currency, the statistics hold one, so a currency filter is reckoned to select every
//! payment, and the plan walks the account in creation order testing each one's currency: a
//! page of a currency the account never took read all of it (0.5-3.2 s for 1,000,000
//! payments, see `docs/benchmarks/reads.md`), where the index by currency (migration 16)
//! reads its own rows.
//!
//! The column's distinct values are set to 100 for every later `ANALYZE` (its `n_distinct`
//! option): a plan made without the currency reckons a currency filter selective and walks the
//! index by currency, which costs a common currency no more than the walk in creation order.
//! Plans made for a given currency still read how often it occurs from the statistics.
//! SQLite keeps no such statistics; the step does nothing there.

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
        let db = manager.get_connection();
        db.execute_unprepared("ALTER TABLE payments ALTER COLUMN currency SET (n_distinct = 100)")
            .await?;
        db.execute_unprepared("ANALYZE payments (currency)").await?;
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        if manager.get_database_backend() != DbBackend::Postgres {
            return Ok(());
        }
        manager
            .get_connection()
            .execute_unprepared("ALTER TABLE payments ALTER COLUMN currency RESET (n_distinct)")
            .await?;
        Ok(())
    }
}
