//! Payments (with an optimistic-lock `version` and keyset-paging indexes), refunds, and the
//! append-only log of payment status changes.

use sea_orm_migration::prelude::*;

use crate::m20261130_000001_create_accounts::Accounts;
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
                    .table(Payments::Table)
                    .col(id_column(db, Payments::Id).primary_key())
                    .col(id_column(db, Payments::AccountId))
                    .col(ColumnDef::new(Payments::Amount).big_integer().not_null())
                    .col(ColumnDef::new(Payments::Currency).string_len(3).not_null())
                    .col(ColumnDef::new(Payments::Status).string().not_null())
                    .col(
                        ColumnDef::new(Payments::AmountRefunded)
                            .big_integer()
                            .not_null()
                            .default(0),
                    )
                    .col(ColumnDef::new(Payments::Source).string().not_null())
                    .col(ColumnDef::new(Payments::Description).string().null())
                    .col(ColumnDef::new(Payments::FailureCode).string().null())
                    .col(ColumnDef::new(Payments::FailureMessage).string().null())
                    .col(ColumnDef::new(Payments::ProcessorKey).string().not_null())
                    .col(ColumnDef::new(Payments::ProcessorRef).string().null())
                    .col(
                        ColumnDef::new(Payments::Version)
                            .integer()
                            .not_null()
                            .default(0),
                    )
                    .col(micros_column(Payments::CreatedAt))
                    .col(micros_column(Payments::UpdatedAt))
                    .check(Expr::col(Payments::AmountRefunded).lte(Expr::col(Payments::Amount)))
                    .check(Expr::col(Payments::AmountRefunded).gte(0))
                    .foreign_key(
                        ForeignKey::create()
                            .from(Payments::Table, Payments::AccountId)
                            .to(Accounts::Table, Accounts::Id),
                    )
                    .to_owned(),
            )
            .await?;
        for (name, key) in [
            ("idx_payments_account_created", Payments::CreatedAt),
            ("idx_payments_account_amount", Payments::Amount),
        ] {
            manager
                .create_index(
                    Index::create()
                        .name(name)
                        .table(Payments::Table)
                        .col(Payments::AccountId)
                        .col(key)
                        .col(Payments::Id)
                        .to_owned(),
                )
                .await?;
        }
        manager
            .create_index(
                Index::create()
                    .name("idx_payments_status_updated")
                    .table(Payments::Table)
                    .col(Payments::Status)
                    .col(Payments::UpdatedAt)
                    .to_owned(),
            )
            .await?;

        manager
            .create_table(
                Table::create()
                    .table(Refunds::Table)
                    .col(id_column(db, Refunds::Id).primary_key())
                    .col(id_column(db, Refunds::PaymentId))
                    .col(id_column(db, Refunds::AccountId))
                    .col(ColumnDef::new(Refunds::Amount).big_integer().not_null())
                    .col(ColumnDef::new(Refunds::Currency).string_len(3).not_null())
                    .col(ColumnDef::new(Refunds::Status).string().not_null())
                    .col(ColumnDef::new(Refunds::Reason).string().null())
                    .col(ColumnDef::new(Refunds::FailureCode).string().null())
                    .col(ColumnDef::new(Refunds::ProcessorKey).string().not_null())
                    .col(ColumnDef::new(Refunds::ProcessorRef).string().null())
                    .col(
                        ColumnDef::new(Refunds::Version)
                            .integer()
                            .not_null()
                            .default(0),
                    )
                    .col(micros_column(Refunds::CreatedAt))
                    .col(micros_column(Refunds::UpdatedAt))
                    .foreign_key(
                        ForeignKey::create()
                            .from(Refunds::Table, Refunds::PaymentId)
                            .to(Payments::Table, Payments::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("idx_refunds_payment_created")
                    .table(Refunds::Table)
                    .col(Refunds::PaymentId)
                    .col(Refunds::CreatedAt)
                    .col(Refunds::Id)
                    .to_owned(),
            )
            .await?;

        manager
            .create_table(
                Table::create()
                    .table(PaymentEvents::Table)
                    .col(id_column(db, PaymentEvents::Id).primary_key())
                    .col(id_column(db, PaymentEvents::PaymentId))
                    .col(id_column(db, PaymentEvents::AccountId))
                    .col(ColumnDef::new(PaymentEvents::FromStatus).string().null())
                    .col(ColumnDef::new(PaymentEvents::ToStatus).string().not_null())
                    .col(ColumnDef::new(PaymentEvents::Reason).string().null())
                    .col(micros_column(PaymentEvents::CreatedAt))
                    .foreign_key(
                        ForeignKey::create()
                            .from(PaymentEvents::Table, PaymentEvents::PaymentId)
                            .to(Payments::Table, Payments::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("idx_payment_events_payment")
                    .table(PaymentEvents::Table)
                    .col(PaymentEvents::PaymentId)
                    .col(PaymentEvents::Id)
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table(PaymentEvents::Table).to_owned())
            .await?;
        manager
            .drop_table(Table::drop().table(Refunds::Table).to_owned())
            .await?;
        manager
            .drop_table(Table::drop().table(Payments::Table).to_owned())
            .await
    }
}

#[derive(DeriveIden)]
enum Payments {
    Table,
    Id,
    AccountId,
    Amount,
    Currency,
    Status,
    AmountRefunded,
    Source,
    Description,
    FailureCode,
    FailureMessage,
    ProcessorKey,
    ProcessorRef,
    Version,
    CreatedAt,
    UpdatedAt,
}

#[derive(DeriveIden)]
enum Refunds {
    Table,
    Id,
    PaymentId,
    AccountId,
    Amount,
    Currency,
    Status,
    Reason,
    FailureCode,
    ProcessorKey,
    ProcessorRef,
    Version,
    CreatedAt,
    UpdatedAt,
}

#[derive(DeriveIden)]
enum PaymentEvents {
    Table,
    Id,
    PaymentId,
    AccountId,
    FromStatus,
    ToStatus,
    Reason,
    CreatedAt,
}
