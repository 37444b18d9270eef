//! The flags and environment variables of `graphpay serve`, each with its documented default.

use std::net::SocketAddr;

use clap::builder::BoolishValueParser;
use clap::{ArgAction, Args};

use super::{ConnectionArgs, DatabaseArgs};
use crate::graphql::limits::budget::{DEFAULT_BUDGET_CAPACITY, DEFAULT_BUDGET_RESTORE_RATE};

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

    /// Threads that answer requests; unset, one per CPU core, also where a database server
    /// shares those cores: measured in `docs/benchmarks/reads.md`, a thread per core answered
    /// as many pages or more, mostly sooner, than one core less (whose idle threads count
    /// less CPU per page).
    #[arg(long, env = "GRAPHPAY_WORKER_THREADS", value_parser = clap::value_parser!(u16).range(1..=1024))]
    pub worker_threads: Option<u16>,

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

    /// Turns the query limits, cost and budgets off. For benchmarks only: built without the
    /// feature `test-support`, as shipped, the gateway has no such flag and keeps its limits on.
    #[cfg_attr(feature = "test-support", arg(long, env = "GRAPHPAY_UNLIMITED_QUERIES", value_parser = clap::builder::BoolishValueParser::new(), default_value_t = false, hide = true))]
    #[cfg_attr(not(feature = "test-support"), arg(skip))]
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

    /// Seconds an authorization (`captureMethod: MANUAL`) waits for `capturePayment` before
    /// the reconciler voids it (its `captureBefore`).
    #[arg(
        long,
        env = "GRAPHPAY_AUTHORIZATION_TTL_SECS",
        default_value_t = 604_800
    )]
    pub authorization_ttl_secs: u64,

    /// Seconds the event log is kept for readers (`Query.events`, `Subscription.events`): a
    /// cursor older than this gets `CURSOR_EXPIRED`. At least 30 days in production.
    #[arg(
        long,
        env = "GRAPHPAY_EVENT_RETENTION_SECS",
        default_value_t = 2_592_000
    )]
    pub event_retention_secs: u64,

    /// Seconds a customer action (3-D Secure) waits for the customer before the payment is
    /// canceled (`ACTION_EXPIRED`), after reconciling with the processor.
    #[arg(long, env = "GRAPHPAY_ACTION_TTL_SECS", default_value_t = 3_600)]
    pub action_ttl_secs: u64,

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

    /// A Redis server (`redis://host:port/db`) that keeps the accounts' cost budgets, shared
    /// by every gateway instance using it. Unset: each instance keeps its own. While Redis
    /// cannot be reached, each instance uses its own (logged once at WARN, counted in the
    /// metrics).
    #[arg(long, env = "GRAPHPAY_REDIS_URL")]
    pub redis_url: Option<String>,

    /// Streaming replicas of the PostgreSQL database (`postgres://...`, comma-separated) that
    /// may answer documents without a mutation; mutations and everything that moves money
    /// stay on the primary. Unset: every read on the primary.
    #[arg(
        long,
        env = "GRAPHPAY_REPLICA_URLS",
        value_delimiter = ',',
        hide_env_values = true
    )]
    pub replica_urls: Vec<String>,

    /// The most a replica may lag behind the primary, in milliseconds, to answer a read that
    /// sends no consistency token (a read that sends one goes to a replica only once it has
    /// replayed that far).
    #[arg(long, env = "GRAPHPAY_REPLICA_MAX_LAG_MS", default_value_t = 1_000)]
    pub replica_max_lag_ms: u64,

    /// Client tokens must send a submit token (`sbt_...`, from `createSubmitToken`) as the
    /// `idempotencyKey` of every money-moving mutation, so that one rendered form moves money
    /// at most once; a key of their own is refused with `INVALID_IDEMPOTENCY_KEY`. Secret
    /// keys are unaffected. Takes 1/0, true/false, yes/no, on/off.
    #[arg(
        long,
        env = "GRAPHPAY_CLIENT_TOKENS_REQUIRE_SUBMIT_TOKENS",
        value_parser = BoolishValueParser::new(),
        default_value_t = false
    )]
    pub client_tokens_require_submit_tokens: bool,

    /// The longest a submit token may wait for its first use, in seconds (a request's
    /// `ttlSeconds` beyond it is refused). A used token's outcome is replayed as long as the
    /// token is kept (the idempotency retention after it expired).
    #[arg(
        long,
        env = "GRAPHPAY_SUBMIT_TOKEN_MAX_TTL_SECS",
        default_value_t = 86_400
    )]
    pub submit_token_max_ttl_secs: u64,

    /// Resolves the payments of a page field by field, as any other object, instead of
    /// writing each row's fields straight into the answer: slower, the same bytes. For
    /// comparing the two ways of answering and for diagnosis. Takes 1/0, true/false, yes/no,
    /// on/off.
    #[arg(
        long,
        env = "GRAPHPAY_RESOLVE_FIELD_BY_FIELD",
        value_parser = BoolishValueParser::new(),
        default_value_t = false
    )]
    pub resolve_field_by_field: bool,
}
