//! Persistence: the sea-orm entities and every query the gateway runs. This is the only module
//! that speaks to sea-orm; queries are written once and work on SQLite and PostgreSQL alike,
//! except the two writes of a create that PostgreSQL does in one statement each (see
//! `payment_writes`).

pub mod accounts;
mod db;
mod entities;
mod error;
pub mod event_log;
pub mod feed;
pub mod idempotency_keys;
pub mod keyset;
mod listen;
mod merchant_data;
pub mod merchant_webhooks;
mod observed;
mod payment_columns;
pub mod payment_counts;
pub mod payment_pages;
pub mod payment_writes;
pub mod payments;
pub mod processor_events;
mod rows;
pub mod sandbox;
pub mod sealing;
pub mod settings;
pub mod signing_keys;
mod streamed;
pub mod submit_tokens;
pub mod wal;
mod watch;

pub use db::{Backend, Db, DbConfig, PoolSizes, backend_of, server_on_this_host, without_tls};
pub use error::DbError;
pub use listen::listen;
pub use watch::Watch;

/// The storage libraries' log targets, kept to warnings unless `RUST_LOG` says otherwise: they
/// log every statement.
pub const QUIET_LOG_TARGETS: &str = "sqlx=warn,sea_orm=warn,sea_orm_migration=warn";
