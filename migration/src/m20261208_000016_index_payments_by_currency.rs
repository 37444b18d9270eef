//! An index of each account's payments by currency, in creation order: a page filtered by
//! currency walks the rows of that currency only (`persistence::payment_pages`), where it
//! walked every payment of the account in creation order and tested each one's currency. For
//! a currency an account rarely holds (or never has), that walk read the whole account to
//! fill one page (0.7-2.2 s for an account of 1,000,000 payments on PostgreSQL, see
//! `docs/benchmarks/reads.md`).
//!
//! `(account_id, currency, created_at, id)`: a page of one currency is one backward or forward
//! scan of it.
//!
//! Built by a plain `CREATE INDEX`, which holds writes to `payments` while it reads the table.
//! A large PostgreSQL deployment builds it first without holding writes, under the same name
//! (`CREATE INDEX CONCURRENTLY idx_payments_account_currency_created ON payments (account_id,
//! currency, created_at, id)`), and this step then finds it there and leaves it.

use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

const NAME: &str = "idx_payments_account_currency_created";

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
