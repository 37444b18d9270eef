//! An index of each account's payments by status, in creation order: a page filtered by
//! status walks the rows of that status only (`persistence::payment_pages`), where it walked
//! every payment of the account in creation order and tested each one's status. For a status
//! an account rarely holds, that walk read the whole account to fill one page (0.5-2.5 s for
//! an account of 1,000,000 payments on PostgreSQL, see `docs/benchmarks/reads.md`).
//!
//! `(account_id, status, created_at, id)`: a page of one status is one backward or forward
//! scan of it; a page of several statuses merges one scan per status.
//!
//! Built by a plain `CREATE INDEX`, which holds writes to `payments` while it reads the table
//! (about 4 s per million payments on the benchmarks' host). A large PostgreSQL deployment
//! builds it first without holding writes, under the same name (`CREATE INDEX CONCURRENTLY
//! idx_payments_account_status_created ON payments (account_id, status, created_at, id)`),
//! and this step then finds it there and leaves it.

use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

const NAME: &str = "idx_payments_account_status_created";

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
