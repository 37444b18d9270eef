//! Schema migrations for graphpay, one file per step; they run on SQLite and PostgreSQL alike.
//!
//! Conventions shared by every table:
//! - ids are prefixed ULID text (`pay_01J...`), whose byte order is their time order; on
//!   PostgreSQL they use `COLLATE "C"` so ties break the same way as on SQLite;
//! - timestamps are integer microseconds since the Unix epoch (`BIGINT`), so the database's
//!   order is time order on both backends, to the microsecond.

pub use sea_orm_migration::prelude::*;
use sea_orm_migration::sea_orm::DbBackend;

mod m20261130_000001_create_accounts;
mod m20261130_000002_create_payments;
mod m20261130_000003_create_idempotency_keys;
mod m20261130_000004_create_processor_tables;
mod m20261130_000005_create_change_feed;
mod m20261130_000006_create_payment_counts;
mod m20261202_000007_add_card_lifecycle;
mod m20261203_000008_add_merchant_data_and_event_log;
mod m20261204_000009_add_key_expiry;
mod m20261205_000010_add_webhook_secret_roll;
mod m20261206_000011_create_signing_keys;
mod m20261207_000012_add_restricted_keys_and_submit_tokens;
mod m20261207_000013_index_spread_payment_counts;
mod m20261207_000014_count_writes_beside_the_folded_row;
mod m20261207_000015_index_payments_by_status;
mod m20261208_000016_index_payments_by_currency;
mod m20261208_000017_plan_currency_pages_by_their_index;
mod m20261208_000018_index_payments_by_status_and_currency;

pub struct Migrator;

#[async_trait::async_trait]
impl MigratorTrait for Migrator {
    fn migrations() -> Vec<Box<dyn MigrationTrait>> {
        vec![
            Box::new(m20261130_000001_create_accounts::Migration),
            Box::new(m20261130_000002_create_payments::Migration),
            Box::new(m20261130_000003_create_idempotency_keys::Migration),
            Box::new(m20261130_000004_create_processor_tables::Migration),
            Box::new(m20261130_000005_create_change_feed::Migration),
            Box::new(m20261130_000006_create_payment_counts::Migration),
            Box::new(m20261202_000007_add_card_lifecycle::Migration),
            Box::new(m20261203_000008_add_merchant_data_and_event_log::Migration),
            Box::new(m20261204_000009_add_key_expiry::Migration),
            Box::new(m20261205_000010_add_webhook_secret_roll::Migration),
            Box::new(m20261206_000011_create_signing_keys::Migration),
            Box::new(m20261207_000012_add_restricted_keys_and_submit_tokens::Migration),
            Box::new(m20261207_000013_index_spread_payment_counts::Migration),
            Box::new(m20261207_000014_count_writes_beside_the_folded_row::Migration),
            Box::new(m20261207_000015_index_payments_by_status::Migration),
            Box::new(m20261208_000016_index_payments_by_currency::Migration),
            Box::new(m20261208_000017_plan_currency_pages_by_their_index::Migration),
            Box::new(m20261208_000018_index_payments_by_status_and_currency::Migration),
        ]
    }
}

/// A text id or key column whose order is byte order on both backends.
pub(crate) fn id_column(backend: DbBackend, name: impl IntoIden) -> ColumnDef {
    let mut col = ColumnDef::new(name);
    col.string().not_null();
    if backend == DbBackend::Postgres {
        col.extra("COLLATE \"C\"");
    }
    col
}

/// A timestamp column: integer microseconds since the Unix epoch.
pub(crate) fn micros_column(name: impl IntoIden) -> ColumnDef {
    let mut col = ColumnDef::new(name);
    col.big_integer().not_null();
    col
}

/// A nullable timestamp column: integer microseconds since the Unix epoch.
pub(crate) fn nullable_micros_column(name: impl IntoIden) -> ColumnDef {
    let mut col = ColumnDef::new(name);
    col.big_integer().null();
    col
}
