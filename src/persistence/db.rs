//! Connecting, migrating and starting transactions, with the few settings that must differ
//! between SQLite and PostgreSQL kept here.

use std::sync::Arc;
#[cfg(feature = "test-support")]
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use sea_orm::sqlx::postgres::PgConnectOptions;
use sea_orm::sqlx::sqlite::{SqliteJournalMode, SqliteSynchronous};
use sea_orm::{
    ConnectOptions, ConnectionTrait, Database, DatabaseConnection, DatabaseTransaction, DbErr,
    SqliteTransactionMode, TransactionOptions, TransactionTrait,
};

mod migrations;
mod on_this_host;
mod pages;
mod sizes;

pub(crate) use on_this_host::tls_as_needed;
pub use on_this_host::{server_on_this_host, without_tls};
pub use sizes::PoolSizes;

use super::DbError;
use super::observed::Observer;
use super::watch::Watch;
use crate::domain::sealed::Sealer;

/// Where the database is and how to use it.
#[derive(Clone, Debug)]
pub struct DbConfig {
    /// `sqlite://path?mode=rwc` or `postgres://user@host/db`.
    pub url: String,
    /// PostgreSQL schema to use instead of `public` (created if missing).
    pub schema: Option<String>,
    pub max_connections: u32,
    /// How long a statement waits for a busy SQLite database before failing.
    pub busy_timeout: Duration,
    /// How long a statement waits for a pooled connection (including opening one) before
    /// failing: how soon a database that is down or saturated is reported.
    pub acquire_timeout: Duration,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

/// A pooled connection to the gateway's database.
#[derive(Clone, Debug)]
pub struct Db {
    conn: DatabaseConnection,
    /// Page reads' pool on PostgreSQL (see [`pages`]); `None` where they share `conn`.
    pages: Option<DatabaseConnection>,
    backend: Backend,
    /// Seals the secrets this database stores (see [`crate::domain::sealed`]).
    sealer: Sealer,
    /// Told of every statement run.
    observer: Observer,
    /// Statements run so far, for tests that check batching.
    #[cfg(feature = "test-support")]
    statements: Arc<AtomicU64>,
}

impl Db {
    #[tracing::instrument(skip_all, fields(backend))]
    pub async fn connect(config: &DbConfig) -> Result<Self, DbError> {
        let backend = backend_of(&config.url)?;
        tracing::Span::current().record("backend", tracing::field::debug(backend));
        if let (Backend::Postgres, Some(schema)) = (backend, &config.schema) {
            create_schema(config, schema).await?;
        }
        let (main, page_reads) = pages::shares(backend, config.max_connections);
        let conn = Database::connect(options(config, backend, main, |o| o)).await?;
        #[cfg_attr(not(feature = "test-support"), allow(unused_mut))]
        let mut db = Self::wrap(conn, backend)?;
        db.pages = pages::page_pool(config, page_reads, None).await?;
        #[cfg(feature = "test-support")]
        {
            let counter = db.statements.clone();
            db.observe(move |_| {
                counter.fetch_add(1, Ordering::Relaxed);
            });
        }
        Ok(db)
    }

    /// A pool of its own (of at most `max_connections`) for background work, so that it
    /// never waits on requests' connections nor they on it; named `application_name` on
    /// PostgreSQL so operators can tell it apart in `pg_stat_activity`. It reconnects by
    /// itself on the next statement after a connection is lost, and a statement fails within
    /// `acquire_timeout` while the database cannot be reached.
    ///
    /// With `durable: false` its commits on PostgreSQL do not wait for the disk
    /// (`synchronous_commit = off`): a crash of the database may lose its last fraction of a
    /// second of commits, never corrupting anything. Only for work that is done again when
    /// its record is lost (webhook claims and attempts are: delivery is at least once).
    pub async fn connect_dedicated(
        config: &DbConfig,
        application_name: &'static str,
        max_connections: u32,
        durable: bool,
    ) -> Result<Self, DbError> {
        let backend = backend_of(&config.url)?;
        let mut opts = options(config, backend, max_connections, move |o| {
            let o = o.application_name(application_name);
            if durable {
                o
            } else {
                o.options([("synchronous_commit", "off")])
            }
        });
        opts.connect_timeout(config.acquire_timeout);
        Self::wrap(Database::connect(opts).await?, backend)
    }

    /// A pool on a streaming replica of the database (`url`; the schema as configured), for
    /// reads only. It connects lazily, so a replica that is down does not stop the gateway
    /// from starting, and it gives up on a replica that cannot be reached within a second:
    /// the read then goes to the primary.
    pub async fn connect_replica(
        config: &DbConfig,
        url: &str,
        max_connections: u32,
    ) -> Result<Self, DbError> {
        let replica = DbConfig {
            url: url.to_string(),
            acquire_timeout: config.acquire_timeout.min(REPLICA_GIVE_UP),
            ..config.clone()
        };
        if backend_of(url)? != Backend::Postgres {
            return Err(DbError::Other(
                "a replica must be a PostgreSQL URL (postgres://...)".into(),
            ));
        }
        let (main, page_reads) = pages::shares(Backend::Postgres, max_connections);
        let mut opts = options(&replica, Backend::Postgres, main, |o| {
            o.application_name("graphpay-replica-reads")
        });
        opts.connect_timeout(replica.acquire_timeout)
            .connect_lazy(true);
        let mut db = Self::wrap(Database::connect(opts).await?, Backend::Postgres)?;
        db.pages = pages::page_pool(&replica, page_reads, Some("graphpay-replica-reads")).await?;
        Ok(db)
    }

    fn wrap(conn: DatabaseConnection, backend: Backend) -> Result<Self, DbError> {
        Ok(Self {
            conn,
            pages: None,
            backend,
            sealer: Sealer::none(),
            observer: Observer::default(),
            #[cfg(feature = "test-support")]
            statements: Arc::new(AtomicU64::new(0)),
        })
    }

    /// Calls `hook` for every statement this handle runs, with whether it failed.
    fn observe(&mut self, hook: impl Fn(bool) + Send + Sync + 'static) {
        let observer = Observer::new(hook);
        self.observer = observer.clone();
        self.conn
            .set_metric_callback(move |info| observer.ran(info.failed));
    }

    /// Tells of a statement run on the driver directly, as the ORM tells of its own.
    pub(super) fn ran(&self, failed: bool) {
        self.observer.ran(failed);
    }

    /// This pool, for one request whose statements are watched: the watch is raised when any
    /// of them fails (a replica that cancelled a query for a recovery conflict, or went
    /// away), so that the request can be answered from the primary instead.
    pub fn watched(&self) -> (Db, Arc<Watch>) {
        let watch = Arc::new(Watch::default());
        let mut db = self.clone();
        let raised = watch.clone();
        #[cfg(feature = "test-support")]
        let counter = self.statements.clone();
        db.observe(move |failed| {
            #[cfg(feature = "test-support")]
            counter.fetch_add(1, Ordering::Relaxed);
            if failed {
                raised.fail();
            }
        });
        (db, watch)
    }

    /// Statements this pool has run so far (for checking that loaders batch).
    ///
    /// Exists for the tests and benchmarks (feature `test-support`).
    #[cfg(feature = "test-support")]
    pub fn statements_run(&self) -> u64 {
        self.statements.load(Ordering::Relaxed)
    }

    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// This handle, sealing the secrets it stores with `sealer`.
    pub fn with_sealer(mut self, sealer: Sealer) -> Self {
        self.sealer = sealer;
        self
    }

    /// What seals the secrets this handle stores and opens those it reads.
    pub fn sealer(&self) -> &Sealer {
        &self.sealer
    }

    pub(crate) fn conn(&self) -> &DatabaseConnection {
        &self.conn
    }

    /// The pool that page reads run on: their own on PostgreSQL (see [`pages`]).
    pub(super) fn page_reads(&self) -> &DatabaseConnection {
        self.pages.as_ref().unwrap_or(&self.conn)
    }

    /// Starts a transaction that will write. On SQLite it takes the write lock at `BEGIN`
    /// (`BEGIN IMMEDIATE`), so concurrent writers queue on the busy timeout instead of failing
    /// when a read lock cannot be upgraded.
    pub(crate) async fn begin_write(&self) -> Result<DatabaseTransaction, DbErr> {
        let options = TransactionOptions {
            sqlite_transaction_mode: Some(SqliteTransactionMode::Immediate),
            ..Default::default()
        };
        self.conn.begin_with_options(options).await
    }

    /// Cheap round trip for readiness checks.
    pub async fn ping(&self) -> Result<(), DbError> {
        Ok(self.conn.ping().await?)
    }

    /// Runs one SQL statement as given.
    ///
    /// Exists for the tests and benchmarks (feature `test-support`).
    #[cfg(feature = "test-support")]
    pub async fn execute_unprepared(&self, sql: &str) -> Result<(), DbError> {
        self.conn.execute_unprepared(sql).await?;
        Ok(())
    }

    /// Runs a query as given and returns every column of every row as text (for `EXPLAIN`).
    ///
    /// Exists for the tests and benchmarks (feature `test-support`).
    #[cfg(feature = "test-support")]
    pub async fn query_text(&self, sql: &str) -> Result<Vec<Vec<String>>, DbError> {
        let backend = self.conn.get_database_backend();
        let rows = self
            .conn
            .query_all_raw(sea_orm::Statement::from_string(backend, sql.to_string()))
            .await?;
        Ok(rows
            .iter()
            .map(|row| {
                row.column_names()
                    .iter()
                    .map(|name| {
                        row.try_get::<String>("", name)
                            .or_else(|_| row.try_get::<i64>("", name).map(|v| v.to_string()))
                            .or_else(|_| row.try_get::<i32>("", name).map(|v| v.to_string()))
                            .unwrap_or_default()
                    })
                    .collect()
            })
            .collect())
    }

    pub async fn close(self) -> Result<(), DbError> {
        if let Some(pages) = self.pages {
            pages.close().await?;
        }
        Ok(self.conn.close().await?)
    }
}

/// The database a URL names, by its scheme.
pub fn backend_of(url: &str) -> Result<Backend, DbErr> {
    if url.starts_with("sqlite:") {
        Ok(Backend::Sqlite)
    } else if url.starts_with("postgres:") || url.starts_with("postgresql:") {
        Ok(Backend::Postgres)
    } else {
        Err(DbErr::Custom(
            "DATABASE_URL must start with sqlite: or postgres:".to_string(),
        ))
    }
}

/// How long a read waits for a replica's connection before it goes to the primary.
const REPLICA_GIVE_UP: Duration = Duration::from_secs(1);

/// How long a pooled connection may sit unused before it is pinged on checkout.
const PING_IF_IDLE_FOR: Duration = Duration::from_secs(1);

/// The pool's settings; `postgres` adds to the driver's own on PostgreSQL (TLS is decided
/// here, by [`tls_as_needed`]).
fn options(
    config: &DbConfig,
    backend: Backend,
    max_connections: u32,
    postgres: impl Fn(PgConnectOptions) -> PgConnectOptions + Send + Sync + 'static,
) -> ConnectOptions {
    let mut opts = ConnectOptions::new(config.url.clone());
    opts.max_connections(max_connections)
        .min_connections(0)
        .acquire_timeout(config.acquire_timeout)
        // A connection used within the last second is handed out as it is; one idle for
        // longer is pinged first (a round trip), so a connection the database or the network
        // dropped while it sat in the pool is replaced before a request gets it. Pinging on
        // every checkout would add a round trip to every statement.
        .test_before_acquire_if_idle_for(PING_IF_IDLE_FOR)
        .sqlx_logging(false);
    match backend {
        Backend::Sqlite => {
            let busy = config.busy_timeout;
            opts.map_sqlx_sqlite_opts(move |o| {
                o.create_if_missing(true)
                    .journal_mode(SqliteJournalMode::Wal)
                    .synchronous(SqliteSynchronous::Normal)
                    .foreign_keys(true)
                    .busy_timeout(busy)
            });
        }
        Backend::Postgres => {
            if let Some(schema) = &config.schema {
                opts.set_schema_search_path(schema.clone());
            }
            let url = config.url.clone();
            opts.map_sqlx_postgres_opts(move |o| postgres(tls_as_needed(&url, o)));
        }
    }
    opts
}

async fn create_schema(config: &DbConfig, schema: &str) -> Result<(), DbErr> {
    if !schema
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'_')
        || schema.is_empty()
    {
        return Err(DbErr::Custom(format!(
            "schema name {schema:?} may contain only letters, digits and underscores"
        )));
    }
    let mut opts = ConnectOptions::new(config.url.clone());
    let url = config.url.clone();
    opts.max_connections(1)
        .acquire_timeout(config.acquire_timeout)
        .sqlx_logging(false)
        .map_sqlx_postgres_opts(move |o| tls_as_needed(&url, o));
    let conn = Database::connect(opts).await?;
    conn.execute_unprepared(&format!("CREATE SCHEMA IF NOT EXISTS \"{schema}\""))
        .await?;
    conn.close().await
}
