//! Configuration: every setting is a flag and an environment variable with a documented
//! default, gathered into one typed value passed down from `main`.

use std::net::SocketAddr;
use std::time::Duration;

use clap::builder::BoolishValueParser;
use clap::{ArgAction, Args};

use crate::delivery::address::AddressPolicy;
use crate::delivery::schedule::RetrySchedule;
use crate::delivery::worker::DeliverySettings;
use crate::graphql::limits::QueryLimits;
use crate::graphql::limits::budget::{
    DEFAULT_BUDGET_CAPACITY, DEFAULT_BUDGET_RESTORE_RATE, ThrottleSettings,
};
use crate::graphql::limits::lexical::TextLimits;
use crate::graphql::limits::shape::ShapeLimits;
use crate::http::ConnectionLimits;
use crate::persistence::DbConfig;
use crate::processor::CallLimits;
use crate::processor::breaker::BreakerSettings;
use crate::service::accounts::LIVE_KEY_TTL;
use crate::service::feed::FeedSettings;
use crate::service::idempotency::IdempotencySettings;
use crate::service::reconcile::ReconcileSettings;

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

/// Limits on client connections: how many may be open, and how long each may take over
/// what it sends.
#[derive(Args, Clone, Debug)]
pub struct ConnectionArgs {
    /// Most client connections open at once, WebSockets included; a connection beyond it is
    /// closed as soon as it is accepted.
    #[arg(long, env = "GRAPHPAY_MAX_CONNECTIONS", default_value_t = 1_024)]
    pub max_connections: usize,

    /// Seconds a client has to send a request's headers: from opening the connection for its
    /// first request, from the first byte for later ones. Then the connection is closed.
    #[arg(long, env = "GRAPHPAY_HEADER_READ_TIMEOUT_SECS", default_value_t = 10)]
    pub header_read_timeout_secs: u64,

    /// Seconds a client has to send a request's body, once its headers are in; then the
    /// request is answered 408 and the connection closed.
    #[arg(long, env = "GRAPHPAY_BODY_READ_TIMEOUT_SECS", default_value_t = 30)]
    pub body_read_timeout_secs: u64,

    /// Seconds a keep-alive connection may stay idle between a response and the next request.
    #[arg(long, env = "GRAPHPAY_IDLE_TIMEOUT_SECS", default_value_t = 75)]
    pub idle_timeout_secs: u64,

    /// Seconds a WebSocket has to send `connection_init`; then it is closed with 4408.
    #[arg(long, env = "GRAPHPAY_WS_INIT_TIMEOUT_SECS", default_value_t = 10)]
    pub ws_init_timeout_secs: u64,

    /// Largest WebSocket message (and frame) accepted, in bytes.
    #[arg(long, env = "GRAPHPAY_WS_MAX_MESSAGE_BYTES", default_value_t = 262_144)]
    pub ws_max_message_bytes: usize,
}

impl ConnectionArgs {
    pub fn limits(&self) -> ConnectionLimits {
        ConnectionLimits {
            max_connections: self.max_connections.max(1),
            header_read_timeout: Duration::from_secs(self.header_read_timeout_secs.max(1)),
            body_read_timeout: Duration::from_secs(self.body_read_timeout_secs.max(1)),
            idle_timeout: Duration::from_secs(self.idle_timeout_secs.max(1)),
            ws_init_timeout: Duration::from_secs(self.ws_init_timeout_secs.max(1)),
            ws_max_message_size: self.ws_max_message_bytes.max(1_024),
        }
    }
}

/// Settings of `graphpay serve`.
#[derive(Args, Clone, Debug)]
pub struct ServeArgs {
    /// Address to listen on; port 0 picks a free port (the chosen address is logged).
    #[arg(long, env = "GRAPHPAY_LISTEN", default_value = "127.0.0.1:8000")]
    pub listen: SocketAddr,

    /// Address to serve Prometheus metrics on (`GET /metrics`), apart from the API; port 0
    /// picks a free port (printed). Unset: no metrics are served.
    #[arg(long, env = "GRAPHPAY_METRICS_LISTEN")]
    pub metrics_listen: Option<SocketAddr>,

    #[command(flatten)]
    pub database: DatabaseArgs,

    #[command(flatten)]
    pub connections: ConnectionArgs,

    /// Do not create a demo account when the database has no accounts (the variable takes
    /// 1/0, true/false, yes/no, on/off).
    #[arg(
        long,
        env = "GRAPHPAY_NO_DEMO",
        action = ArgAction::SetTrue,
        value_parser = BoolishValueParser::new()
    )]
    pub no_demo: bool,

    /// Deepest selection nesting a query may have.
    #[arg(long, env = "GRAPHPAY_MAX_QUERY_DEPTH", default_value_t = 15)]
    pub max_query_depth: usize,

    /// Largest GraphQL document accepted, in bytes.
    #[arg(long, env = "GRAPHPAY_MAX_DOCUMENT_BYTES", default_value_t = 65_536)]
    pub max_document_bytes: usize,

    /// Deepest nesting of braces, brackets and parentheses in a document, and of lists and
    /// objects in its variables.
    #[arg(long, env = "GRAPHPAY_MAX_NESTING", default_value_t = 32)]
    pub max_nesting: usize,

    /// Most tokens a document may have.
    #[arg(long, env = "GRAPHPAY_MAX_TOKENS", default_value_t = 10_000)]
    pub max_tokens: usize,

    /// Most selections a document may have once its fragments are expanded.
    #[arg(long, env = "GRAPHPAY_MAX_SELECTIONS", default_value_t = 5_000)]
    pub max_selections: u64,

    /// Most a request may cost, in points (see the README's query cost rules).
    #[arg(long, env = "GRAPHPAY_MAX_QUERY_COST", default_value_t = 1_000)]
    pub max_query_cost: u64,

    /// Points each account's budget holds (all its keys together, per gateway instance).
    #[arg(long, env = "GRAPHPAY_RATE_LIMIT_CAPACITY", default_value_t = DEFAULT_BUDGET_CAPACITY)]
    pub rate_limit_capacity: u64,

    /// Points restored to each account's budget per second (at least 1).
    #[arg(long, env = "GRAPHPAY_RATE_LIMIT_RESTORE_RATE", default_value_t = DEFAULT_BUDGET_RESTORE_RATE, value_parser = clap::value_parser!(u64).range(1..))]
    pub rate_limit_restore_rate: u64,

    /// Most fields one request may resolve; beyond it the rest answer `QUERY_TOO_COMPLEX`.
    #[arg(long, env = "GRAPHPAY_MAX_RESOLVED_FIELDS", default_value_t = 50_000)]
    pub max_resolved_fields: u64,

    /// Turns the query limits, cost and budgets off. For benchmarks only: never in production.
    #[arg(long, env = "GRAPHPAY_UNLIMITED_QUERIES", value_parser = clap::builder::BoolishValueParser::new(), default_value_t = false, hide = true)]
    pub unlimited_queries: bool,

    /// Most subscriptions one account may have open at once (per gateway instance).
    #[arg(
        long,
        env = "GRAPHPAY_MAX_SUBSCRIPTIONS_PER_ACCOUNT",
        default_value_t = 100
    )]
    pub max_subscriptions_per_account: usize,

    /// Most operations in one batched request (a JSON array).
    #[arg(long, env = "GRAPHPAY_MAX_BATCH", default_value_t = 10)]
    pub max_batch: usize,

    /// Largest GraphQL request body accepted, in bytes (the document and its variables).
    #[arg(long, env = "GRAPHPAY_MAX_BODY_BYTES", default_value_t = 262_144)]
    pub max_body_bytes: usize,

    /// Deadline for a whole GraphQL request, in seconds.
    #[arg(long, env = "GRAPHPAY_REQUEST_TIMEOUT_SECS", default_value_t = 30)]
    pub request_timeout_secs: u64,

    /// Seconds after which a claim left `started` by a crashed request may be taken over.
    #[arg(
        long,
        env = "GRAPHPAY_IDEMPOTENCY_LOCK_TIMEOUT_SECS",
        default_value_t = 60
    )]
    pub idempotency_lock_timeout_secs: u64,

    /// Seconds an idempotency key is kept before the sweeper removes it.
    #[arg(
        long,
        env = "GRAPHPAY_IDEMPOTENCY_RETENTION_SECS",
        default_value_t = 86_400
    )]
    pub idempotency_retention_secs: u64,

    /// Seconds between runs of the background sweeper.
    #[arg(long, env = "GRAPHPAY_SWEEP_INTERVAL_SECS", default_value_t = 60)]
    pub sweep_interval_secs: u64,

    /// URL of a processor speaking the sandbox's HTTP API (e.g. one started with
    /// `graphpay sandbox`). Unset: the built-in sandbox processor.
    #[arg(long, env = "PROCESSOR_URL")]
    pub processor_url: Option<String>,

    /// Longest wait to connect to the processor, in milliseconds.
    #[arg(long, env = "PROCESSOR_CONNECT_TIMEOUT_MS", default_value_t = 1_000)]
    pub processor_connect_timeout_ms: u64,

    /// Consecutive processor failures that open the circuit breaker.
    #[arg(long, env = "PROCESSOR_BREAKER_THRESHOLD", default_value_t = 5)]
    pub processor_breaker_threshold: u32,

    /// How long an open circuit fails fast before probing the processor again, in ms.
    #[arg(long, env = "PROCESSOR_BREAKER_COOLDOWN_MS", default_value_t = 10_000)]
    pub processor_breaker_cooldown_ms: u64,

    /// Longest wait for one processor attempt's answer (the read timeout), in milliseconds.
    #[arg(long, env = "PROCESSOR_ATTEMPT_TIMEOUT_MS", default_value_t = 5_000)]
    pub processor_attempt_timeout_ms: u64,

    /// Longest time for all attempts of one processor operation, in milliseconds.
    #[arg(long, env = "PROCESSOR_DEADLINE_MS", default_value_t = 10_000)]
    pub processor_deadline_ms: u64,

    /// Retries of a processor operation after a retryable failure.
    #[arg(long, env = "PROCESSOR_MAX_RETRIES", default_value_t = 3)]
    pub processor_max_retries: usize,

    /// First backoff step between processor retries, in milliseconds (doubles each retry;
    /// the wait is drawn uniformly below the step).
    #[arg(long, env = "PROCESSOR_BACKOFF_BASE_MS", default_value_t = 100)]
    pub processor_backoff_base_ms: u64,

    /// Secret that processor webhooks are signed with (HMAC-SHA256). Default: one generated
    /// on first start and kept in the database, which the built-in sandbox also uses.
    #[arg(long, env = "PROCESSOR_WEBHOOK_SECRET", hide_env_values = true)]
    pub webhook_secret: Option<String>,

    /// How long the built-in sandbox waits before sending a webhook, in milliseconds.
    #[arg(long, env = "SANDBOX_WEBHOOK_DELAY_MS", default_value_t = 1_000)]
    pub sandbox_webhook_delay_ms: u64,

    /// Seconds after which a PENDING (never confirmed) payment is canceled.
    #[arg(long, env = "GRAPHPAY_PENDING_TTL_SECS", default_value_t = 86_400)]
    pub pending_ttl_secs: u64,

    /// Seconds after which a PROCESSING payment is looked up at the processor and resolved.
    #[arg(long, env = "GRAPHPAY_PROCESSING_DEADLINE_SECS", default_value_t = 600)]
    pub processing_deadline_secs: u64,

    /// Let merchant webhook endpoints resolve to loopback, private, link-local or otherwise
    /// reserved addresses (local development and tests only: it lets API users make the
    /// gateway call into its own network). Takes 1/0, true/false, yes/no, on/off.
    #[arg(
        long,
        env = "GRAPHPAY_WEBHOOKS_ALLOW_PRIVATE_ADDRESSES",
        value_parser = BoolishValueParser::new(),
        default_value_t = false
    )]
    pub webhooks_allow_private_addresses: bool,

    /// Web origins (`https://shop.example`, comma separated) whose pages may call the API from
    /// a browser (CORS). Empty: none, and no CORS headers at all.
    #[arg(
        long,
        env = "GRAPHPAY_CORS_ALLOWED_ORIGINS",
        value_delimiter = ',',
        default_value = ""
    )]
    pub cors_allowed_origins: Vec<String>,

    /// The first retry delay of a merchant webhook, in milliseconds; each later one doubles
    /// (full jitter), up to the maximum.
    #[arg(long, env = "GRAPHPAY_WEBHOOK_RETRY_BASE_MS", default_value_t = 5_000)]
    pub webhook_retry_base_ms: u64,

    /// The longest delay between two attempts of a merchant webhook, in milliseconds.
    #[arg(
        long,
        env = "GRAPHPAY_WEBHOOK_RETRY_MAX_DELAY_MS",
        default_value_t = 28_800_000
    )]
    pub webhook_retry_max_delay_ms: u64,

    /// How long a merchant webhook is retried after its first attempt before it is given up
    /// (and its endpoint disabled if nothing was acknowledged meanwhile), in seconds.
    #[arg(
        long,
        env = "GRAPHPAY_WEBHOOK_RETRY_WINDOW_SECS",
        default_value_t = 259_200
    )]
    pub webhook_retry_window_secs: u64,

    /// How long one merchant webhook attempt may take, connection included, in
    /// milliseconds. A delivery is claimed for twice that and a second more: an instance
    /// that dies mid-attempt leaves it to another after that.
    #[arg(
        long,
        env = "GRAPHPAY_WEBHOOK_ATTEMPT_TIMEOUT_MS",
        default_value_t = 10_000
    )]
    pub webhook_attempt_timeout_ms: u64,

    /// A trusted documents manifest: a JSON file mapping document ids to document text, as
    /// `relay-compiler` writes it with `persistConfig`. Those documents can then be run by
    /// `documentId`. Read at start-up (at most 16 MiB and 10,000 documents); unset: none.
    #[arg(long, env = "GRAPHPAY_TRUSTED_DOCUMENTS")]
    pub trusted_documents: Option<std::path::PathBuf>,

    /// Client tokens may run trusted documents only (free query text is refused with
    /// `PERSISTED_QUERY_REQUIRED`); secret API keys may always send free text. Takes 1/0,
    /// true/false, yes/no, on/off.
    #[arg(
        long,
        env = "GRAPHPAY_CLIENT_TOKENS_TRUSTED_DOCUMENTS_ONLY",
        value_parser = BoolishValueParser::new(),
        default_value_t = false
    )]
    pub client_tokens_trusted_documents_only: bool,
}

/// The typed configuration the server runs with.
#[derive(Clone, Debug)]
pub struct Config {
    pub listen: SocketAddr,
    /// Where `GET /metrics` is served; unset: nowhere.
    pub metrics_listen: Option<SocketAddr>,
    pub database: DbConfig,
    pub create_demo_account: bool,
    pub query_limits: Option<QueryLimits>,
    pub throttle: ThrottleSettings,
    pub max_subscriptions_per_account: usize,
    pub max_batch: usize,
    pub max_body_bytes: usize,
    pub request_timeout: Duration,
    pub idempotency: IdempotencySettings,
    pub sweep_interval: Duration,
    pub processor_limits: CallLimits,
    /// Unset: the built-in sandbox.
    pub processor_url: Option<String>,
    pub processor_connect_timeout: Duration,
    pub breaker: BreakerSettings,
    pub webhook_secret: Option<String>,
    pub sandbox_webhook_delay: Duration,
    pub reconcile: ReconcileSettings,
    pub connections: ConnectionLimits,
    pub feed: FeedSettings,
    pub deliveries: DeliverySettings,
    /// How long a live API key is trusted without a database round trip; a revoked key stops
    /// working everywhere within it. Not a flag: the contract promises one second.
    pub live_key_ttl: Duration,
    /// Origins allowed to call the API from a browser; empty: no CORS.
    pub cors_allowed_origins: Vec<String>,
    /// Where the trusted documents manifest is; unset: no trusted documents.
    pub trusted_documents: Option<std::path::PathBuf>,
    /// Whether client tokens may run trusted documents only.
    pub client_tokens_trusted_documents_only: bool,
}

impl From<ServeArgs> for Config {
    fn from(args: ServeArgs) -> Self {
        Config {
            listen: args.listen,
            metrics_listen: args.metrics_listen,
            database: args.database.db_config(),
            create_demo_account: !args.no_demo,
            query_limits: (!args.unlimited_queries).then_some(QueryLimits {
                text: TextLimits {
                    max_bytes: args.max_document_bytes,
                    max_nesting: args.max_nesting,
                    max_tokens: args.max_tokens,
                },
                shape: ShapeLimits {
                    max_depth: args.max_query_depth,
                    max_selections: args.max_selections,
                },
                max_cost: args.max_query_cost,
                max_resolved_fields: args.max_resolved_fields,
            }),
            throttle: ThrottleSettings::new(args.rate_limit_capacity, args.rate_limit_restore_rate),
            max_subscriptions_per_account: args.max_subscriptions_per_account,
            max_batch: args.max_batch.max(1),
            max_body_bytes: args.max_body_bytes,
            request_timeout: Duration::from_secs(args.request_timeout_secs.max(1)),
            idempotency: IdempotencySettings {
                lock_timeout: Duration::from_secs(args.idempotency_lock_timeout_secs),
                retention: Duration::from_secs(args.idempotency_retention_secs),
            },
            sweep_interval: Duration::from_secs(args.sweep_interval_secs.max(1)),
            processor_limits: CallLimits {
                attempt_timeout: Duration::from_millis(args.processor_attempt_timeout_ms.max(1)),
                deadline: Duration::from_millis(args.processor_deadline_ms.max(1)),
                max_retries: args.processor_max_retries,
                backoff_base: Duration::from_millis(args.processor_backoff_base_ms.max(1)),
                ..CallLimits::default()
            },
            processor_url: args.processor_url.filter(|s| !s.is_empty()),
            processor_connect_timeout: Duration::from_millis(
                args.processor_connect_timeout_ms.max(1),
            ),
            breaker: BreakerSettings {
                failure_threshold: args.processor_breaker_threshold.max(1),
                cooldown: Duration::from_millis(args.processor_breaker_cooldown_ms),
            },
            webhook_secret: args.webhook_secret.filter(|s| !s.is_empty()),
            sandbox_webhook_delay: Duration::from_millis(args.sandbox_webhook_delay_ms),
            reconcile: ReconcileSettings {
                pending_ttl: Duration::from_secs(args.pending_ttl_secs),
                processing_deadline: Duration::from_secs(args.processing_deadline_secs),
            },
            connections: args.connections.limits(),
            feed: FeedSettings::default(),
            live_key_ttl: LIVE_KEY_TTL,
            cors_allowed_origins: args
                .cors_allowed_origins
                .into_iter()
                .map(|o| o.trim().to_string())
                .filter(|o| !o.is_empty())
                .collect(),
            deliveries: DeliverySettings {
                policy: AddressPolicy {
                    allow_private: args.webhooks_allow_private_addresses,
                },
                schedule: RetrySchedule {
                    base: Duration::from_millis(args.webhook_retry_base_ms.max(1)),
                    cap: Duration::from_millis(args.webhook_retry_max_delay_ms.max(1)),
                    window: Duration::from_secs(args.webhook_retry_window_secs),
                },
                ..DeliverySettings::with_attempt_timeout(Duration::from_millis(
                    args.webhook_attempt_timeout_ms.max(1),
                ))
            },
            trusted_documents: args.trusted_documents,
            client_tokens_trusted_documents_only: args.client_tokens_trusted_documents_only,
        }
    }
}

impl Config {
    /// Defaults for a server on `database`, as `graphpay serve` would use with no flags.
    ///
    /// Exists for the tests and benchmarks (feature `test-support`).
    #[cfg(feature = "test-support")]
    pub fn with_database(database: DbConfig) -> Self {
        Config {
            listen: SocketAddr::from(([127, 0, 0, 1], 0)),
            metrics_listen: None,
            database,
            create_demo_account: false,
            query_limits: Some(QueryLimits::default()),
            throttle: ThrottleSettings::new(DEFAULT_BUDGET_CAPACITY, DEFAULT_BUDGET_RESTORE_RATE),
            max_subscriptions_per_account: 100,
            max_batch: 10,
            max_body_bytes: 262_144,
            request_timeout: Duration::from_secs(30),
            idempotency: IdempotencySettings::default(),
            sweep_interval: Duration::from_secs(60),
            processor_limits: CallLimits::default(),
            processor_url: None,
            processor_connect_timeout: Duration::from_secs(1),
            breaker: BreakerSettings::default(),
            webhook_secret: None,
            sandbox_webhook_delay: Duration::from_secs(1),
            reconcile: ReconcileSettings {
                pending_ttl: Duration::from_secs(86_400),
                processing_deadline: Duration::from_secs(600),
            },
            connections: ConnectionLimits::default(),
            feed: FeedSettings::default(),
            deliveries: DeliverySettings::default(),
            live_key_ttl: LIVE_KEY_TTL,
            cors_allowed_origins: Vec::new(),
            trusted_documents: None,
            client_tokens_trusted_documents_only: false,
        }
    }
}

mod sandbox;
#[cfg(test)]
mod tests;

pub use sandbox::SandboxArgs;
