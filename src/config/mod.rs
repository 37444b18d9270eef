//! Configuration: every setting is a flag and an environment variable with a documented
//! default, gathered into one typed value passed down from `main`.

use std::net::SocketAddr;
use std::time::Duration;

use crate::graphql::limits::QueryLimits;
use crate::graphql::limits::budget::ThrottleSettings;
use crate::graphql::limits::lexical::TextLimits;
use crate::graphql::limits::shape::ShapeLimits;
use crate::http::ConnectionLimits;
use crate::merchant_webhooks::address::AddressPolicy;
use crate::merchant_webhooks::schedule::RetrySchedule;
use crate::merchant_webhooks::worker::DeliverySettings;
use crate::persistence::DbConfig;
use crate::processor::CallLimits;
use crate::processor::breaker::BreakerSettings;
use crate::replicas::ReplicaSettings;
use crate::service::accounts::LIVE_KEY_TTL;
use crate::service::feed::FeedSettings;
use crate::service::idempotency::IdempotencySettings;
use crate::service::payments::LifecycleSettings;
use crate::service::reconcile::ReconcileSettings;
use crate::service::signing_keys::KeyringSettings;
use crate::service::submit_tokens::SubmitTokenSettings;

/// The typed configuration the server runs with.
#[derive(Clone, Debug)]
pub struct Config {
    pub listen: SocketAddr,
    /// Where `GET /metrics` is served; unset: nowhere.
    pub metrics_listen: Option<SocketAddr>,
    pub database: DbConfig,
    /// The key that seals webhook and signing secrets at rest; none: stored in the clear.
    pub secrets_key: SecretsKey,
    pub create_demo_account: bool,
    pub query_limits: Option<QueryLimits>,
    pub throttle: ThrottleSettings,
    /// Where the budgets are shared across instances; unset: each instance keeps its own.
    pub redis_url: Option<String>,
    /// Streaming replicas that may answer reads; none: every read on the primary.
    pub replicas: ReplicaSettings,
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
    /// How long authorizations and customer actions wait.
    pub lifecycle: LifecycleSettings,
    pub connections: ConnectionLimits,
    pub feed: FeedSettings,
    pub deliveries: DeliverySettings,
    /// How long a live API key is trusted without a database round trip; a revoked key stops
    /// working everywhere within it. Not a flag: the contract promises one second.
    pub live_key_ttl: Duration,
    /// How often the signing secrets are reloaded, and how long a new one waits to sign.
    pub signing_keys: KeyringSettings,
    /// Origins allowed to call the API from a browser; empty: no CORS.
    pub cors_allowed_origins: Vec<String>,
    /// Where the trusted documents manifest is; unset: no trusted documents.
    pub trusted_documents: Option<std::path::PathBuf>,
    /// Whether client tokens may run trusted documents only.
    pub client_tokens_trusted_documents_only: bool,
    /// Whether pages are resolved field by field only (see `ServeArgs`).
    pub resolve_field_by_field: bool,
    /// Whether client tokens must use submit tokens, and how long those may live.
    pub submit_tokens: SubmitTokenSettings,
}

impl From<ServeArgs> for Config {
    fn from(args: ServeArgs) -> Self {
        Config {
            listen: args.listen,
            metrics_listen: args.metrics_listen,
            database: args.database.db_config(),
            secrets_key: args.database.secrets_key(),
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
            redis_url: args.redis_url.filter(|url| !url.trim().is_empty()),
            replicas: ReplicaSettings {
                urls: args
                    .replica_urls
                    .into_iter()
                    .map(|url| url.trim().to_string())
                    .filter(|url| !url.is_empty())
                    .collect(),
                max_lag: Duration::from_millis(args.replica_max_lag_ms),
                ..ReplicaSettings::default()
            },
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
            lifecycle: LifecycleSettings {
                authorization_ttl: Duration::from_secs(args.authorization_ttl_secs),
                action_ttl: Duration::from_secs(args.action_ttl_secs),
            },
            connections: args.connections.limits(),
            feed: FeedSettings {
                retention: Duration::from_secs(args.event_retention_secs),
                ..FeedSettings::default()
            },
            live_key_ttl: LIVE_KEY_TTL,
            signing_keys: KeyringSettings::default(),
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
            resolve_field_by_field: args.resolve_field_by_field,
            submit_tokens: SubmitTokenSettings {
                required_for_client_tokens: args.client_tokens_require_submit_tokens,
                max_ttl_seconds: i64::try_from(args.submit_token_max_ttl_secs.max(1))
                    .unwrap_or(i64::MAX),
            },
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
            secrets_key: SecretsKey::None,
            create_demo_account: false,
            query_limits: Some(QueryLimits::default()),
            throttle: ThrottleSettings::new(
                crate::graphql::limits::budget::DEFAULT_BUDGET_CAPACITY,
                crate::graphql::limits::budget::DEFAULT_BUDGET_RESTORE_RATE,
            ),
            redis_url: None,
            replicas: ReplicaSettings::default(),
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
            lifecycle: LifecycleSettings::default(),
            connections: ConnectionLimits::default(),
            feed: FeedSettings::default(),
            deliveries: DeliverySettings::default(),
            live_key_ttl: LIVE_KEY_TTL,
            signing_keys: KeyringSettings::default(),
            cors_allowed_origins: Vec::new(),
            trusted_documents: None,
            client_tokens_trusted_documents_only: false,
            resolve_field_by_field: false,
            submit_tokens: SubmitTokenSettings::default(),
        }
    }
}

mod connections;
mod database;
mod sandbox;
mod serve;
#[cfg(test)]
mod tests;

pub use connections::ConnectionArgs;
pub use database::{DatabaseArgs, SecretText, SecretsKey};
pub use sandbox::SandboxArgs;
pub use serve::ServeArgs;
