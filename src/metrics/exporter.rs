//! The Prometheus endpoint: installs the process-wide recorder once, and serves `GET /metrics`
//! on an address of its own, apart from the API, refreshing the pool and runtime gauges at each
//! scrape.

use std::net::SocketAddr;
use std::sync::OnceLock;
use std::time::Duration;

use axum::Router;
use axum::extract::State;
use axum::http::HeaderValue;
use axum::http::header::CONTENT_TYPE;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};
use tokio::net::TcpListener;
use tokio::task::JoinHandle;

use super::{PROCESSOR_ATTEMPT_DURATION_SECONDS, REQUEST_DURATION_SECONDS};
use crate::persistence::Db;

/// Histogram buckets for durations, in seconds.
const DURATION_BUCKETS: &[f64] = &[
    0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0,
];

/// How often histogram samples are folded into their buckets between scrapes.
const UPKEEP_INTERVAL: Duration = Duration::from_secs(5);

const TEXT_FORMAT: &str = "text/plain; version=0.0.4; charset=utf-8";

#[derive(Debug, thiserror::Error)]
pub enum MetricsError {
    #[error("cannot install the metrics recorder: {0}")]
    Install(String),
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        addr: SocketAddr,
        source: std::io::Error,
    },
}

/// Installs the Prometheus recorder for the whole process. Only the first call installs it;
/// later calls get the same handle (or the same failure), so starting twice is harmless.
pub fn install() -> Result<PrometheusHandle, MetricsError> {
    static INSTALLED: OnceLock<Result<PrometheusHandle, String>> = OnceLock::new();
    INSTALLED
        .get_or_init(|| {
            let handle = PrometheusBuilder::new()
                .set_buckets_for_metric(
                    Matcher::Full(REQUEST_DURATION_SECONDS.to_string()),
                    DURATION_BUCKETS,
                )
                .and_then(|builder| {
                    builder.set_buckets_for_metric(
                        Matcher::Full(PROCESSOR_ATTEMPT_DURATION_SECONDS.to_string()),
                        DURATION_BUCKETS,
                    )
                })
                .and_then(|builder| builder.install_recorder())
                .map_err(|err| err.to_string())?;
            super::describe();
            Ok(handle)
        })
        .clone()
        .map_err(MetricsError::Install)
}

/// The metrics endpoint, bound and ready to serve.
pub struct MetricsListener {
    listener: TcpListener,
    handle: PrometheusHandle,
}

impl MetricsListener {
    /// Installs the recorder (see [`install`]) and binds `addr`; port 0 picks a free port.
    pub async fn bind(addr: SocketAddr) -> Result<Self, MetricsError> {
        let handle = install()?;
        let listener = TcpListener::bind(addr)
            .await
            .map_err(|source| MetricsError::Bind { addr, source })?;
        Ok(Self { listener, handle })
    }

    pub fn local_addr(&self) -> Result<SocketAddr, MetricsError> {
        self.listener
            .local_addr()
            .map_err(|source| MetricsError::Bind {
                addr: SocketAddr::from(([0, 0, 0, 0], 0)),
                source,
            })
    }

    /// Serves `GET /metrics` in a task of its own, reporting `db`'s pool at each scrape.
    pub fn spawn(self, db: Db) -> JoinHandle<()> {
        let handle = self.handle.clone();
        let router = Router::new()
            .route("/metrics", get(scrape))
            .with_state(Scraped { handle, db });
        let upkeep = self.handle;
        tokio::spawn(async move {
            let serve = axum::serve(self.listener, router);
            let upkeep = async move {
                let mut ticks = tokio::time::interval(UPKEEP_INTERVAL);
                loop {
                    ticks.tick().await;
                    upkeep.run_upkeep();
                }
            };
            tokio::select! {
                served = serve => {
                    if let Err(err) = served {
                        tracing::error!(error = %err, "the metrics endpoint stopped");
                    }
                }
                () = upkeep => {}
            }
        })
    }
}

#[derive(Clone)]
struct Scraped {
    handle: PrometheusHandle,
    db: Db,
}

async fn scrape(State(scraped): State<Scraped>) -> Response {
    if let Some(pool) = scraped.db.pool_sizes() {
        super::record_pool(pool.idle, pool.in_use, pool.max);
    }
    super::record_runtime();
    (
        [(CONTENT_TYPE, HeaderValue::from_static(TEXT_FORMAT))],
        scraped.handle.render(),
    )
        .into_response()
}
