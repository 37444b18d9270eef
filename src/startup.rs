//! Building and running the gateway: connect, migrate, make the schema and router, bind, serve
//! until told to stop, then finish the requests in flight.

use std::future::Future;
use std::io::Write;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::Arc;

use tokio::net::TcpListener;
use tokio::sync::watch;

use crate::config::Config;
use crate::domain::client_token::TokenSigner;
use crate::domain::cursor::CursorCodec;
use crate::domain::keyring::Keyring;
use crate::graphql::limits::budgets::Budget;
use crate::graphql::trusted_documents::{ManifestError, TrustedDocuments};
use crate::graphql::{self, Guards, SubscriptionSlots};
use crate::http::cors::AllowedOrigins;
use crate::http::{self, AppState, ConnectionLimits, PlaygroundPage};
use crate::merchant_webhooks::endpoints::WebhookEndpoints;
use crate::merchant_webhooks::worker::Deliveries;
use crate::metrics::exporter::{MetricsError, MetricsListener};
use crate::persistence::{Db, DbError, accounts, settings};
use crate::processor::breaker::CircuitBreaker;
use crate::processor::http_client::HttpProcessor;
use crate::processor::{Processor, Retrying};
use crate::replicas::Reads;
use crate::sandbox::{Sandbox, WebhookTarget};
use crate::service::accounts::Keys;
use crate::service::feed::PaymentFeed;
use crate::service::payments::PaymentService;
use crate::service::signing_keys::{self, KeyringSettings};
use crate::service::submit_tokens::SubmitTokens;

mod housekeeper;
mod secrets;

use housekeeper::Housekeeper;

/// The setting that holds the webhook signing secret when none is configured.
const WEBHOOK_SECRET: &str = "processor_webhook_secret";

pub(crate) fn random_secret() -> String {
    let mut bytes = [0u8; 32];
    rand::RngCore::fill_bytes(&mut rand::rng(), &mut bytes);
    hex::encode(bytes)
}

#[derive(Debug, thiserror::Error)]
pub enum StartupError {
    #[error("database: {0}")]
    Database(#[from] DbError),
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        addr: SocketAddr,
        source: std::io::Error,
    },
    #[error("processor: {0}")]
    Processor(String),
    #[error("settings: {0}")]
    Settings(String),
    #[error("metrics: {0}")]
    Metrics(#[from] MetricsError),
    #[error("{0}")]
    TrustedDocuments(#[from] ManifestError),
}

/// A gateway that is bound to its address and ready to serve.
pub struct Application {
    listener: TcpListener,
    router: axum::Router,
    connections: ConnectionLimits,
    db: Db,
    /// Set when this start created the demo account: its id and API key.
    pub demo: Option<(String, String)>,
    housekeeper: Housekeeper,
    deliveries: Deliveries,
    /// The signing secrets, how they are reloaded, and the pool they are reloaded on (the
    /// background pool: a reload each second is no request's statement).
    keyring: (Keyring, KeyringSettings, Db),
}

/// The `application_name` of the background pool's connections on PostgreSQL.
pub const BACKGROUND_NAME: &str = "graphpay-background";

/// Where the gateway itself can be reached from this machine (for the built-in sandbox's
/// webhooks): a wildcard listen address becomes loopback.
pub(crate) fn reachable(addr: SocketAddr) -> SocketAddr {
    match addr.ip() {
        IpAddr::V4(ip) if ip.is_unspecified() => {
            SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), addr.port())
        }
        IpAddr::V6(ip) if ip.is_unspecified() => {
            SocketAddr::new(IpAddr::V6(Ipv6Addr::LOCALHOST), addr.port())
        }
        _ => addr,
    }
}

impl Application {
    pub async fn build(config: Config) -> Result<Self, StartupError> {
        crate::tls::install_default_provider();
        // Before anything else: a manifest that cannot be used stops the start at once.
        let documents = match &config.trusted_documents {
            Some(path) => {
                let documents = TrustedDocuments::load(path)?;
                graphql::prevalidated::validate_manifest(&documents, path).await?;
                tracing::info!(
                    path = %path.display(),
                    documents = documents.len(),
                    "trusted documents loaded"
                );
                documents
            }
            None if config.client_tokens_trusted_documents_only => {
                tracing::warn!(
                    "client tokens may run trusted documents only, and none are registered:                      client tokens can run nothing"
                );
                TrustedDocuments::none()
            }
            None => TrustedDocuments::none(),
        }
        .client_tokens_only(config.client_tokens_trusted_documents_only);
        Db::migrate(&config.database).await?;
        let sealer = secrets::sealer(&config)?;
        let db = Db::connect(&config.database)
            .await?
            .with_sealer(sealer.clone());
        secrets::seal_at_start(&db, &sealer).await?;
        let demo = if config.create_demo_account && accounts::count(&db).await? == 0 {
            let created = accounts::create(&db, "Demo account").await?;
            Some((created.account.id, created.api_key))
        } else {
            None
        };
        let listener =
            TcpListener::bind(config.listen)
                .await
                .map_err(|source| StartupError::Bind {
                    addr: config.listen,
                    source,
                })?;
        let local = listener.local_addr().map_err(|source| StartupError::Bind {
            addr: config.listen,
            source,
        })?;

        let keyring = signing_keys::load(&db, config.signing_keys, random_secret).await?;
        let webhook_secret = match &config.webhook_secret {
            Some(secret) => secret.clone(),
            None => {
                let stored =
                    settings::get_or_insert(&db, WEBHOOK_SECRET, || sealer.seal(&random_secret()))
                        .await?;
                sealer
                    .open(&stored)
                    .map_err(|e| StartupError::Settings(e.to_string()))?
            }
        };
        let webhooks = WebhookTarget {
            url: format!("http://{}/webhooks/processor", reachable(local)),
            secret: webhook_secret.as_bytes().to_vec(),
            delay: config.sandbox_webhook_delay,
        };
        let mut sandbox = None;
        let processor: Arc<dyn Processor> = match &config.processor_url {
            None => {
                let base = format!("http://{}/sandbox", reachable(local));
                let in_process = Arc::new(Sandbox::new(db.clone(), Some(webhooks), base));
                sandbox = Some(in_process.clone());
                in_process
            }
            Some(url) => {
                let client = HttpProcessor::new(
                    url,
                    config.processor_connect_timeout,
                    config.processor_limits.attempt_timeout,
                )
                .map_err(|e| StartupError::Processor(e.to_string()))?;
                tracing::info!(%url, "using the processor over HTTP");
                Arc::new(CircuitBreaker::new(Arc::new(client), config.breaker))
            }
        };
        // Background work (the change feed's nudges, merchant webhooks) has a pool of its own,
        // whose commits need not wait for the disk: all of it is done again if its record is
        // lost (see `Db::connect_dedicated`).
        let background = Db::connect_dedicated(&config.database, BACKGROUND_NAME, 8, false)
            .await?
            .with_sealer(sealer.clone());
        let feed = PaymentFeed::start(background.clone(), &config.database, config.feed).await?;
        let reads = Reads::start(&config.database, &config.replicas, &background).await?;
        let deliveries = Deliveries::new(background.clone(), feed.clone(), config.deliveries)
            .map_err(StartupError::Processor)?;
        let payments = PaymentService::new(
            db.clone(),
            Retrying::new(processor, config.processor_limits),
            config.idempotency,
            feed.clone(),
            config.lifecycle,
        );
        let guards = Guards {
            query: config.query_limits,
            budget: Budget::start(config.redis_url.as_deref(), &config.throttle)
                .map_err(StartupError::Settings)?,
            subscriptions: SubscriptionSlots::new(config.max_subscriptions_per_account),
        };
        let cors =
            AllowedOrigins::parse(&config.cors_allowed_origins).map_err(StartupError::Settings)?;
        let keys = Keys::new(
            db.clone(),
            config.live_key_ttl,
            TokenSigner::with_keys(keyring.clone()),
        );
        let submit_tokens = SubmitTokens::new(db.clone(), config.submit_tokens);
        let schemas = graphql::build(
            db.clone(),
            CursorCodec::with_keys(keyring.clone()),
            graphql::Services {
                payments: payments.clone(),
                endpoints: WebhookEndpoints::new(db.clone(), config.deliveries.policy),
                keys: keys.clone(),
                submit_tokens: submit_tokens.clone(),
            },
            guards,
            config.resolve_field_by_field,
        );
        let state = AppState {
            db: db.clone(),
            keys: keys.clone(),
            schema: schemas.socket,
            http_schema: schemas.http,
            documents,
            playground: Arc::new(PlaygroundPage::new(
                demo.as_ref().map(|(_, key)| key.as_str()),
            )),
            request_timeout: config.request_timeout,
            max_batch: config.max_batch,
            max_body_bytes: config.max_body_bytes,
            webhook_secret: Arc::from(webhook_secret.into_bytes()),
            authorization_ttl: config.lifecycle.authorization_ttl,
            sandbox,
            feed,
            connections: config.connections,
            cors,
            reads,
        };
        Ok(Self {
            listener,
            router: http::router(state),
            connections: config.connections,
            db,
            demo,
            deliveries,
            keyring: (keyring, config.signing_keys, background),
            housekeeper: Housekeeper {
                interval: config.sweep_interval,
                idempotency: config.idempotency,
                reconcile: config.reconcile,
                payments,
                submit_tokens,
            },
        })
    }

    /// The gateway's own database pool (its statement count shows how many queries it ran).
    pub fn db(&self) -> Db {
        self.db.clone()
    }

    /// The payment service the gateway runs with.
    ///
    /// Exists for the tests and benchmarks (feature `test-support`).
    #[cfg(feature = "test-support")]
    pub fn payments(&self) -> PaymentService {
        self.housekeeper.payments.clone()
    }

    pub fn local_addr(&self) -> SocketAddr {
        self.listener
            .local_addr()
            .unwrap_or_else(|_| SocketAddr::from(([127, 0, 0, 1], 0)))
    }

    /// Serves until `shutdown` completes, then stops accepting and lets requests in flight
    /// finish before returning. Connections are capped and bounded in time as
    /// `config.connections` says (see `http::serve`).
    pub async fn run_until(
        self,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> Result<(), StartupError> {
        let (stop, stopped) = watch::channel(false);
        let housekeeper = tokio::spawn(self.housekeeper.run(self.db.clone(), stopped.clone()));
        let (keyring, keyring_settings, keyring_db) = self.keyring;
        let refresh = tokio::spawn(signing_keys::refresh(
            keyring_db,
            keyring,
            keyring_settings,
            stopped.clone(),
        ));
        let deliveries = tokio::spawn(self.deliveries.run(stopped));
        http::serve(self.listener, self.router, self.connections, shutdown).await;
        let _ = stop.send(true);
        let _ = housekeeper.await;
        let _ = deliveries.await;
        let _ = refresh.await;
        if let Err(err) = self.db.close().await {
            tracing::warn!(error = %err, "closing the database pool failed");
        }
        Ok(())
    }
}

/// `graphpay serve`: run until SIGINT or SIGTERM.
pub async fn serve(config: Config) -> Result<(), StartupError> {
    // The recorder goes in before the gateway is built, so what it records while starting
    // counts too.
    let metrics = match config.metrics_listen {
        Some(addr) => Some(MetricsListener::bind(addr).await?),
        None => None,
    };
    let app = Application::build(config).await?;
    let addr = app.local_addr();
    let worker_threads = tokio::runtime::Handle::current().metrics().num_workers();
    tracing::info!(%addr, worker_threads, "graphpay listening");
    let mut lines = vec![
        format!("graphpay is listening on http://{addr}"),
        format!("playground: http://{addr}/graphql"),
    ];
    let metrics = match metrics {
        Some(listener) => {
            let metrics_addr = listener.local_addr()?;
            tracing::info!(addr = %metrics_addr, "metrics listening");
            lines.push(format!("metrics: http://{metrics_addr}/metrics"));
            Some(listener.spawn(app.db()))
        }
        None => None,
    };
    if let Some((account_id, key)) = &app.demo {
        lines.push(format!("created a demo account {account_id}"));
        lines.push(format!(
            "its API key (shown once, pre-filled in the playground): {key}"
        ));
    }
    // Whoever started us may have stopped reading stdout: that must not stop the gateway.
    let mut out = std::io::stdout().lock();
    for line in lines {
        let _ = writeln!(out, "{line}");
    }
    let _ = out.flush();
    drop(out);
    app.run_until(shutdown_signal()).await?;
    if let Some(metrics) = metrics {
        metrics.abort();
    }
    tracing::info!("graphpay stopped");
    Ok(())
}

/// Completes on SIGINT or SIGTERM.
pub async fn shutdown_signal() {
    let ctrl_c = async {
        if let Err(err) = tokio::signal::ctrl_c().await {
            tracing::error!(error = %err, "cannot listen for SIGINT");
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(err) => {
                tracing::error!(error = %err, "cannot listen for SIGTERM");
                std::future::pending::<()>().await;
            }
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {}
        () = terminate => {}
    }
    tracing::info!("shutting down: finishing requests in flight");
}
