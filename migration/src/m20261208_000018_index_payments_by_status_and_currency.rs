//! An index of each account's payments by status, then currency, in creation order: a page
//! filtered by both walks, for each status, the rows of that status and currency only
//! (`persistence::payment_pages`). With the indexes by status (migration 15) and by currency
//! (migration 16) alone, such a page walked one of them and tested the other column on every
//! row: a common status with a currency the account rarely takes, or a rare status with its
//! common currency, read the whole account to fill one page (0.24-1.8 s for an account of
//! 1,000,000 payments on SQLite, see `docs/benchmarks/reads.md`).
//!
//! `(account_id, status, currency, created_at, id)`: a page of one status and one currency is
//! one backward or forward scan of it; a page of several statuses merges one scan per status.
//!
//! Built by a plain `CREATE INDEX`, which holds writes to `payments` while it reads the table.
//! A large PostgreSQL deployment builds it first without holding writes, under the same name
//! (`CREATE INDEX CONCURRENTLY idx_payments_account_status_currency_created ON payments
//! (account_id, status, currency, created_at, id)`), and this step then finds it there and
//! leaves it.

use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

const NAME: &str = "idx_payments_account_status_currency_created";

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_index(
                Index::create()
                    .name(NAME)
                    .if_not_exists()
                    .table(Alias::new("payments"))
                    .col(Alias::new("account_id"))
                    .col(Alias::new("status"))
                    .col(Alias::new("currency"))
                    .col(Alias::new("created_at"))
                    .col(Alias::new("id"))
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_index(
                Index::drop()
                    .name(NAME)
                    .table(Alias::new("payments"))
                    .to_owned(),
            )
            .await
    }
}
