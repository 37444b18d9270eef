//! Idempotency keys: one row per (account, key), claimed by insert-if-absent on the primary key.

use sea_orm_migration::prelude::*;

use crate::{id_column, micros_column, nullable_micros_column};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        let db = manager.get_database_backend();
        manager
            .create_table(
                Table::create()
                    .table(IdempotencyKeys::Table)
                    .col(id_column(db, IdempotencyKeys::AccountId))
                    .col(id_column(db, IdempotencyKeys::Key))
                    .col(
                        ColumnDef::new(IdempotencyKeys::Operation)
                            .string()
                            .not_null(),
                    )
                    .col(
                        ColumnDef::new(IdempotencyKeys::RequestHash)
                            .string()
                            .not_null(),
                    )
                    .col(ColumnDef::new(IdempotencyKeys::State).string().not_null())
                    .col(nullable_micros_column(IdempotencyKeys::LockedAt))
                    .col(ColumnDef::new(IdempotencyKeys::PaymentId).string().null())
                    .col(ColumnDef::new(IdempotencyKeys::RefundId).string().null())
                    .col(ColumnDef::new(IdempotencyKeys::Outcome).text().null())
                    .col(micros_column(IdempotencyKeys::CreatedAt))
                    .col(micros_column(IdempotencyKeys::UpdatedAt))
                    .primary_key(
                        Index::create()
                            .col(IdempotencyKeys::AccountId)
                            .col(IdempotencyKeys::Key),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("idx_idempotency_keys_created")
                    .table(IdempotencyKeys::Table)
                    .col(IdempotencyKeys::CreatedAt)
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table(IdempotencyKeys::Table).to_owned())
            .await
    }
}

#[derive(DeriveIden)]
enum IdempotencyKeys {
    Table,
    AccountId,
    Key,
    Operation,
    RequestHash,
    State,
    LockedAt,
    PaymentId,
    RefundId,
    Outcome,
    CreatedAt,
    UpdatedAt,
}
