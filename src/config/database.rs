//! Where the database is: its URL, schema and pool, as flags and environment variables.

use std::time::Duration;

use clap::Args;

use crate::domain::sealed::Sealer;
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

    /// The key that seals webhook and signing secrets at rest: standard base64 of 32 bytes
    /// (`graphpay secrets new-key` makes one). Never stored in the database. Without it,
    /// secrets are stored in the clear and the gateway says so.
    #[arg(long, env = "GRAPHPAY_SECRETS_KEY", hide_env_values = true)]
    pub secrets_key: Option<SecretText>,

    /// A file holding the secrets key (instead of `--secrets-key`).
    #[arg(
        long,
        env = "GRAPHPAY_SECRETS_KEY_FILE",
        conflicts_with = "secrets_key"
    )]
    pub secrets_key_file: Option<std::path::PathBuf>,
}

/// A secret given on the command line or in the environment; its `Debug` shows nothing of it.
#[derive(Clone)]
pub struct SecretText(pub String);

impl std::fmt::Debug for SecretText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SecretText(<redacted>)")
    }
}

impl std::str::FromStr for SecretText {
    type Err = std::convert::Infallible;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(SecretText(s.to_string()))
    }
}

/// Where the secrets key comes from, as given.
#[derive(Clone, Debug, Default)]
pub enum SecretsKey {
    #[default]
    None,
    Text(SecretText),
    File(std::path::PathBuf),
}

impl SecretsKey {
    /// The sealer of this key; an unreadable file or a key that is not 32 bytes of base64 is
    /// an error, said in words that do not repeat the key.
    pub fn sealer(&self) -> Result<Sealer, String> {
        let text = match self {
            SecretsKey::None => return Ok(Sealer::none()),
            SecretsKey::Text(text) => text.0.clone(),
            SecretsKey::File(path) => std::fs::read_to_string(path)
                .map_err(|e| format!("cannot read the secrets key file {}: {e}", path.display()))?,
        };
        Sealer::from_base64(&text).map_err(|e| e.to_string())
    }
}

impl DatabaseArgs {
    /// The secrets key as given (`--secrets-key` or `--secrets-key-file`).
    pub fn secrets_key(&self) -> SecretsKey {
        match (&self.secrets_key, &self.secrets_key_file) {
            (Some(text), _) => SecretsKey::Text(text.clone()),
            (None, Some(path)) => SecretsKey::File(path.clone()),
            (None, None) => SecretsKey::None,
        }
    }

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
