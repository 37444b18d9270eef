//! Where the database is: its URL, schema and pool, as flags and environment variables.

use std::time::Duration;

use clap::Args;

use crate::persistence::DbConfig;

/// Where the database is.
#[derive(Args, Clone, Debug)]
pub struct DatabaseArgs {
    /// Database URL: `sqlite://FILE?mode=rwc` (embedded, the default) or
    /// `postgres://USER@HOST:PORT/DB` (production; many gateways may share one).
    #[arg(
        long,
        env = "DATABASE_URL",
        default_value = "sqlite://graphpay.db?mode=rwc"
    )]
    pub database_url: String,

    /// PostgreSQL schema to keep graphpay's tables in (created if missing); default `public`.
    #[arg(long, env = "DATABASE_SCHEMA")]
    pub database_schema: Option<String>,

    /// Size of the database connection pool.
    #[arg(long, env = "DATABASE_MAX_CONNECTIONS", default_value_t = 16)]
    pub database_max_connections: u32,

    /// How long a statement waits on a busy SQLite database before it fails, in milliseconds.
    #[arg(long, env = "SQLITE_BUSY_TIMEOUT_MS", default_value_t = 10_000)]
    pub sqlite_busy_timeout_ms: u64,

    /// How long a statement waits for a pooled database connection (opening one included)
    /// before it fails, in milliseconds: how soon a database that is down is reported.
    #[arg(long, env = "DATABASE_ACQUIRE_TIMEOUT_MS", default_value_t = 3_000)]
    pub database_acquire_timeout_ms: u64,
}

impl DatabaseArgs {
    pub fn db_config(&self) -> DbConfig {
        DbConfig {
            url: self.database_url.clone(),
            schema: self.database_schema.clone(),
            max_connections: self.database_max_connections.max(1),
            busy_timeout: Duration::from_millis(self.sqlite_busy_timeout_ms),
            acquire_timeout: Duration::from_millis(self.database_acquire_timeout_ms.max(1)),
        }
    }
}
