//! Processor-side tables: webhook de-duplication for the gateway, and the sandbox processor's
//! own durable record of operations, keyed by the idempotency key the gateway sends.

use sea_orm_migration::prelude::*;

use crate::{id_column, micros_column};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        let db = manager.get_database_backend();
        manager
            .create_table(
                Table::create()
                    .table(ProcessorEvents::Table)
                    .col(id_column(db, ProcessorEvents::EventId).primary_key())
                    .col(
                        ColumnDef::new(ProcessorEvents::EventType)
                            .string()
                            .not_null(),
                    )
                    .col(ColumnDef::new(ProcessorEvents::Payload).text().not_null())
                    .col(ColumnDef::new(ProcessorEvents::Outcome).string().not_null())
                    .col(micros_column(ProcessorEvents::ReceivedAt))
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table(SandboxOperations::Table)
                    .col(id_column(db, SandboxOperations::IdempotencyKey).primary_key())
                    .col(ColumnDef::new(SandboxOperations::Kind).string().not_null())
                    .col(
                        ColumnDef::new(SandboxOperations::Reference)
                            .string()
                            .not_null(),
                    )
                    .col(
                        ColumnDef::new(SandboxOperations::Source)
                            .string()
                            .not_null(),
                    )
                    .col(
                        ColumnDef::new(SandboxOperations::Amount)
                            .big_integer()
                            .not_null(),
                    )
                    .col(
                        ColumnDef::new(SandboxOperations::Currency)
                            .string_len(3)
                            .not_null(),
                    )
                    .col(
                        ColumnDef::new(SandboxOperations::Status)
                            .string()
                            .not_null(),
                    )
                    .col(
                        ColumnDef::new(SandboxOperations::FailureCode)
                            .string()
                            .null(),
                    )
                    .col(
                        ColumnDef::new(SandboxOperations::Attempts)
                            .integer()
                            .not_null()
                            .default(1),
                    )
                    .col(micros_column(SandboxOperations::CreatedAt))
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table(SandboxOperations::Table).to_owned())
            .await?;
        manager
            .drop_table(Table::drop().table(ProcessorEvents::Table).to_owned())
            .await
    }
}

#[derive(DeriveIden)]
enum ProcessorEvents {
    Table,
    EventId,
    EventType,
    Payload,
    Outcome,
    ReceivedAt,
}

#[derive(DeriveIden)]
enum SandboxOperations {
    Table,
    IdempotencyKey,
    Kind,
    Reference,
    Source,
    Amount,
    Currency,
    Status,
    FailureCode,
    Attempts,
    CreatedAt,
}
