//! The sandbox processor as its own HTTP service (`graphpay sandbox`): the same tokens and
//! durable de-duplication by `Idempotency-Key` as in process, signed webhooks to a configured
//! gateway, and fault injection for tests of what crosses the network.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

use axum::body::{Body, Bytes};
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::{Deserialize, Serialize};
use tokio::net::TcpListener;

use super::processor::Sandbox;
use super::webhooks::WebhookTarget;
use crate::persistence::{Db, DbConfig, DbError};
use crate::processor::wire::{
    CaptureBody, ChargeBody, ErrorReply, IDEMPOTENCY_KEY, RefundBody, Reply,
};
use crate::processor::{CaptureRequest, ChargeRequest, Processor, ProcessorError, RefundRequest};

#[derive(Clone, Debug)]
pub struct SandboxConfig {
    pub listen: SocketAddr,
    pub database: DbConfig,
    pub webhooks: Option<WebhookTarget>,
}

/// Faults to inject into the next requests, and what the service has seen.
#[derive(Debug, Default)]
pub struct Faults {
    /// Answer this many requests 503 before doing anything.
    fail_next: AtomicU32,
    /// Do this many requests, then drop the connection instead of answering.
    drop_next: AtomicU32,
    /// `Retry-After` seconds sent with injected 503s.
    retry_after: AtomicU32,
    /// API requests received.
    requests: AtomicU64,
}

impl Faults {
    fn take(counter: &AtomicU32) -> bool {
        counter
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
            .is_ok()
    }
}

#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FaultSettings {
    #[serde(default)]
    pub fail_next_requests: u32,
    #[serde(default)]
    pub drop_next_responses: u32,
    #[serde(default)]
    pub retry_after_seconds: u32,
}

#[derive(Clone)]
struct ServiceState {
    sandbox: Arc<Sandbox>,
    faults: Arc<Faults>,
}

/// A sandbox service bound to its address.
/// Why the sandbox service could not start.
#[derive(Debug, thiserror::Error)]
pub enum SandboxStartError {
    #[error("database: {0}")]
    Database(#[from] DbError),
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        addr: std::net::SocketAddr,
        source: std::io::Error,
    },
}

pub struct SandboxApp {
    listener: TcpListener,
    router: Router,
    db: Db,
}

impl SandboxApp {
    pub async fn build(config: SandboxConfig) -> Result<Self, SandboxStartError> {
        Db::migrate(&config.database).await?;
        let db = Db::connect(&config.database).await?;
        let listener =
            TcpListener::bind(config.listen)
                .await
                .map_err(|source| SandboxStartError::Bind {
                    addr: config.listen,
                    source,
                })?;
        let local = listener
            .local_addr()
            .map_err(|source| SandboxStartError::Bind {
                addr: config.listen,
                source,
            })?;
        let sandbox = Arc::new(Sandbox::new(
            db.clone(),
            config.webhooks,
            format!("http://{}", crate::startup::reachable(local)),
        ));
        let state = ServiceState {
            sandbox: sandbox.clone(),
            faults: Arc::new(Faults::default()),
        };
        let router = Router::new()
            .route("/v1/charges", post(charge))
            .route("/v1/charges/{key}", get(lookup))
            .route("/v1/refunds", post(refund))
            .route("/v1/authorizations", post(authorize))
            .route("/v1/captures", post(capture))
            .route("/v1/captures/{key}", get(lookup_capture))
            .route("/v1/voids", post(void))
            .route("/_faults", post(set_faults))
            .route("/_stats", get(stats))
            .route(
                "/healthz",
                get(|| async { Json(serde_json::json!({"status": "ok"})) }),
            )
            .with_state(state)
            .merge(super::action_page::routes(sandbox));
        Ok(Self {
            listener,
            router,
            db,
        })
    }

    pub fn local_addr(&self) -> SocketAddr {
        self.listener
            .local_addr()
            .unwrap_or_else(|_| SocketAddr::from(([127, 0, 0, 1], 0)))
    }

    pub async fn run_until(
        self,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> std::io::Result<()> {
        let served = axum::serve(self.listener, self.router)
            .with_graceful_shutdown(shutdown)
            .await;
        let _ = self.db.close().await;
        served
    }
}

fn error(status: StatusCode, message: &str) -> Response {
    (
        status,
        Json(ErrorReply {
            error: message.to_string(),
        }),
    )
        .into_response()
}

/// Injected failures that happen before any work.
fn fail_first(faults: &Faults) -> Option<Response> {
    faults.requests.fetch_add(1, Ordering::SeqCst);
    if Faults::take(&faults.fail_next) {
        let mut response = error(StatusCode::SERVICE_UNAVAILABLE, "injected failure");
        let retry_after = faults.retry_after.load(Ordering::SeqCst);
        if let Some(value) = (retry_after > 0)
            .then(|| retry_after.to_string().parse().ok())
            .flatten()
        {
            response.headers_mut().insert("retry-after", value);
        }
        return Some(response);
    }
    None
}

/// The answer, or, when a drop is injected, a response whose body breaks off: the work is
/// committed but the caller never learns the outcome.
fn answer(faults: &Faults, reply: Reply) -> Response {
    if Faults::take(&faults.drop_next) {
        tracing::warn!("sandbox: dropping a response after committing");
        let broken = futures_util::stream::once(async {
            Err::<Bytes, std::io::Error>(std::io::Error::new(
                std::io::ErrorKind::ConnectionReset,
                "injected drop",
            ))
        });
        return Response::new(Body::from_stream(broken));
    }
    Json(reply).into_response()
}

fn failure(err: ProcessorError) -> Response {
    match err {
        ProcessorError::Fatal(why) => error(StatusCode::UNPROCESSABLE_ENTITY, &why),
        other => error(StatusCode::SERVICE_UNAVAILABLE, &other.to_string()),
    }
}

fn key_of(headers: &HeaderMap) -> Option<String> {
    headers
        .get(IDEMPOTENCY_KEY)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string)
        .filter(|k| !k.is_empty() && k.len() <= 255)
}

/// The request's `Idempotency-Key`, unless an injected failure or a missing key answers first.
fn admit(state: &ServiceState, headers: &HeaderMap) -> Result<String, Box<Response>> {
    if let Some(response) = fail_first(&state.faults) {
        return Err(Box::new(response));
    }
    key_of(headers).ok_or_else(|| {
        Box::new(error(
            StatusCode::BAD_REQUEST,
            "an Idempotency-Key header is required",
        ))
    })
}

/// A charge (`capture`) or an authorization.
async fn open(
    state: ServiceState,
    headers: HeaderMap,
    body: ChargeBody,
    capture: bool,
) -> Response {
    let key = match admit(&state, &headers) {
        Ok(key) => key,
        Err(response) => return *response,
    };
    let request = ChargeRequest {
        idempotency_key: key,
        amount: body.amount,
        currency: body.currency,
        source: body.source,
        return_url: body.return_url,
    };
    let outcome = if capture {
        state.sandbox.charge(&request).await
    } else {
        state.sandbox.authorize(&request).await
    };
    match outcome {
        Ok(outcome) => answer(&state.faults, Reply::from(&outcome)),
        Err(err) => failure(err),
    }
}

async fn charge(
    State(state): State<ServiceState>,
    headers: HeaderMap,
    Json(body): Json<ChargeBody>,
) -> Response {
    open(state, headers, body, true).await
}

async fn authorize(
    State(state): State<ServiceState>,
    headers: HeaderMap,
    Json(body): Json<ChargeBody>,
) -> Response {
    open(state, headers, body, false).await
}

/// A capture (`void` false) or a void of an authorization.
async fn follow_up(
    state: ServiceState,
    headers: HeaderMap,
    body: CaptureBody,
    void: bool,
) -> Response {
    let key = match admit(&state, &headers) {
        Ok(key) => key,
        Err(response) => return *response,
    };
    let request = CaptureRequest {
        idempotency_key: key,
        authorization_key: body.authorization_key,
        amount: body.amount,
        currency: body.currency,
    };
    let outcome = if void {
        state.sandbox.void(&request).await
    } else {
        state.sandbox.capture(&request).await
    };
    match outcome {
        Ok(outcome) => answer(&state.faults, Reply::from(&outcome)),
        Err(err) => failure(err),
    }
}

async fn capture(
    State(state): State<ServiceState>,
    headers: HeaderMap,
    Json(body): Json<CaptureBody>,
) -> Response {
    follow_up(state, headers, body, false).await
}

async fn void(
    State(state): State<ServiceState>,
    headers: HeaderMap,
    Json(body): Json<CaptureBody>,
) -> Response {
    follow_up(state, headers, body, true).await
}

async fn lookup_capture(State(state): State<ServiceState>, Path(key): Path<String>) -> Response {
    if let Some(response) = fail_first(&state.faults) {
        return response;
    }
    match state.sandbox.lookup_capture(&key).await {
        Ok(Some(outcome)) => answer(&state.faults, Reply::from(&outcome)),
        Ok(None) => error(StatusCode::NOT_FOUND, "no capture with this key"),
        Err(err) => failure(err),
    }
}

async fn lookup(State(state): State<ServiceState>, Path(key): Path<String>) -> Response {
    if let Some(response) = fail_first(&state.faults) {
        return response;
    }
    match state.sandbox.lookup_charge(&key).await {
        Ok(Some(outcome)) => answer(&state.faults, Reply::from(&outcome)),
        Ok(None) => error(StatusCode::NOT_FOUND, "no charge with this key"),
        Err(err) => failure(err),
    }
}

async fn refund(
    State(state): State<ServiceState>,
    headers: HeaderMap,
    Json(body): Json<RefundBody>,
) -> Response {
    let key = match admit(&state, &headers) {
        Ok(key) => key,
        Err(response) => return *response,
    };
    let request = RefundRequest {
        idempotency_key: key,
        charge_key: body.charge_key,
        amount: body.amount,
        currency: body.currency,
    };
    match state.sandbox.refund(&request).await {
        Ok(outcome) => answer(&state.faults, Reply::from(&outcome)),
        Err(err) => failure(err),
    }
}

async fn set_faults(
    State(state): State<ServiceState>,
    Json(settings): Json<FaultSettings>,
) -> StatusCode {
    state
        .faults
        .fail_next
        .store(settings.fail_next_requests, Ordering::SeqCst);
    state
        .faults
        .drop_next
        .store(settings.drop_next_responses, Ordering::SeqCst);
    state
        .faults
        .retry_after
        .store(settings.retry_after_seconds, Ordering::SeqCst);
    StatusCode::NO_CONTENT
}

async fn stats(State(state): State<ServiceState>) -> Json<serde_json::Value> {
    Json(serde_json::json!({"requests": state.faults.requests.load(Ordering::SeqCst)}))
}
