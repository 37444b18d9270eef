//! Accounts, their API keys, and the settings table that holds server secrets.

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
                    .table(Accounts::Table)
                    .col(id_column(db, Accounts::Id).primary_key())
                    .col(ColumnDef::new(Accounts::Name).string().not_null())
                    .col(micros_column(Accounts::CreatedAt))
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table(ApiKeys::Table)
                    .col(id_column(db, ApiKeys::Id).primary_key())
                    .col(id_column(db, ApiKeys::AccountId))
                    .col(ColumnDef::new(ApiKeys::Prefix).string().not_null())
                    .col(
                        ColumnDef::new(ApiKeys::KeyHash)
                            .string()
                            .not_null()
                            .unique_key(),
                    )
                    .col(micros_column(ApiKeys::CreatedAt))
                    .col(nullable_micros_column(ApiKeys::RevokedAt))
                    .foreign_key(
                        ForeignKey::create()
                            .from(ApiKeys::Table, ApiKeys::AccountId)
                            .to(Accounts::Table, Accounts::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("idx_api_keys_account")
                    .table(ApiKeys::Table)
                    .col(ApiKeys::AccountId)
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table(Settings::Table)
                    .col(id_column(db, Settings::Name).primary_key())
                    .col(ColumnDef::new(Settings::Value).text().not_null())
                    .col(micros_column(Settings::CreatedAt))
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table(Settings::Table).to_owned())
            .await?;
        manager
            .drop_table(Table::drop().table(ApiKeys::Table).to_owned())
            .await?;
        manager
            .drop_table(Table::drop().table(Accounts::Table).to_owned())
            .await
    }
}

#[derive(DeriveIden)]
pub enum Accounts {
    Table,
    Id,
    Name,
    CreatedAt,
}

#[derive(DeriveIden)]
enum ApiKeys {
    Table,
    Id,
    AccountId,
    Prefix,
    KeyHash,
    CreatedAt,
    RevokedAt,
}

#[derive(DeriveIden)]
enum Settings {
    Table,
    Name,
    Value,
    CreatedAt,
}
