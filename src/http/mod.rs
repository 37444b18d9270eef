//! HTTP: the axum router, with request ids and tracing on every request, and the server
//! that runs it over TCP.

mod auth;
mod body_deadline;
mod consistency;
pub mod cors;
mod graphql;
mod health;
mod media;
mod params;
mod playground;
mod processor_events;
mod server;
mod subscriptions;
mod wire;

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::http::{HeaderName, Request};
use axum::middleware;
use axum::routing::{get, post};
use tower::ServiceBuilder;
use tower_http::request_id::{
    MakeRequestId, PropagateRequestIdLayer, RequestId, SetRequestIdLayer,
};
use tower_http::trace::TraceLayer;

use crate::graphql::AppSchema;
use crate::graphql::trusted_documents::TrustedDocuments;
use crate::persistence::Db;
use crate::service::accounts::Keys;
use crate::service::feed::PaymentFeed;

pub use playground::PlaygroundPage;
pub use server::{ConnectionLimits, serve};

/// What every handler can reach.
#[derive(Clone)]
pub struct AppState {
    pub db: Db,
    /// The API-key check.
    pub keys: Keys,
    /// The schema for operations over the WebSocket.
    pub schema: AppSchema,
    /// The schema for requests over HTTP.
    pub http_schema: crate::graphql::over_http::HttpSchema,
    /// The trusted documents, and whether client tokens may run only them.
    pub documents: TrustedDocuments,
    pub playground: Arc<PlaygroundPage>,
    pub request_timeout: Duration,
    /// Most operations in one batched request.
    pub max_batch: usize,
    /// Largest GraphQL request body, in bytes.
    pub max_body_bytes: usize,
    /// What processor webhooks are signed with.
    pub webhook_secret: Arc<[u8]>,
    /// How long an authorization a processor webhook approves waits for its capture.
    pub authorization_ttl: Duration,
    /// The in-process sandbox, whose customer-action pages this listener serves; `None` when
    /// the processor is reached over HTTP.
    pub sandbox: Option<Arc<crate::sandbox::Sandbox>>,
    /// Payment changes, for webhooks to announce and subscriptions to hear.
    pub feed: PaymentFeed,
    /// Deadlines and sizes for client connections, request bodies and WebSockets.
    pub connections: ConnectionLimits,
    /// Web origins whose pages may call the API (CORS); empty: none.
    pub cors: cors::AllowedOrigins,
    /// The streaming replicas reads may go to; `None`: every read on the primary.
    pub reads: Option<crate::replicas::Reads>,
}

const REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");

/// Request ids are ULIDs, unless the caller sent its own `x-request-id`.
#[derive(Clone, Copy, Default)]
struct UlidRequestId;

impl MakeRequestId for UlidRequestId {
    fn make_request_id<B>(&mut self, _: &Request<B>) -> Option<RequestId> {
        ulid::Ulid::generate()
            .to_string()
            .parse()
            .ok()
            .map(RequestId::new)
    }
}

/// Answers slower than this are logged at `info`; the rest only at `debug`.
const SLOW_RESPONSE: Duration = Duration::from_secs(1);

/// One line per response costs more than a fast request itself, so a response is logged at the
/// default level only when something is wrong: it was slow, or it was a server error (which
/// the trace layer's failure hook also logs, at `error`). Everything is counted in the
/// metrics either way; `RUST_LOG=graphpay=debug` logs every response.
fn log_response<B>(response: &axum::http::Response<B>, latency: Duration, _: &tracing::Span) {
    let status = response.status().as_u16();
    let latency_ms = latency.as_secs_f64() * 1e3;
    if latency >= SLOW_RESPONSE || response.status().is_server_error() {
        tracing::info!(status, latency_ms, "slow or failed response");
    } else {
        tracing::debug!(status, latency_ms, "response");
    }
}

pub fn router(state: AppState) -> Router {
    let trace = TraceLayer::new_for_http()
        .make_span_with(|req: &Request<_>| {
            let request_id = req
                .headers()
                .get(&REQUEST_ID)
                .and_then(|v| v.to_str().ok())
                .unwrap_or_default();
            tracing::info_span!(
                "request",
                request_id,
                method = %req.method(),
                path = req.uri().path(),
                operation = tracing::field::Empty,
            )
        })
        .on_response(log_response);
    let body_read_timeout = state.connections.body_read_timeout;
    let cors = state.cors.layer();
    let mut routes = Router::new()
        .route("/graphql", get(graphql::get).post(graphql::post))
        .route("/graphql/assets/{name}", get(playground::asset))
        .route("/graphql/ws", get(subscriptions::upgrade))
        .route("/webhooks/processor", post(processor_events::receive))
        .route("/healthz", get(health::healthz))
        .route("/readyz", get(health::readyz));
    if let Some(sandbox) = &state.sandbox {
        routes = routes.nest(
            "/sandbox",
            crate::sandbox::action_page::routes(sandbox.clone()),
        );
    }
    routes
        .with_state(Arc::new(state))
        .layer(middleware::from_fn_with_state(
            body_read_timeout,
            body_deadline::limit,
        ))
        .layer(tower::util::option_layer(cors))
        .layer(
            ServiceBuilder::new()
                .layer(SetRequestIdLayer::new(REQUEST_ID, UlidRequestId))
                .layer(trace)
                .layer(PropagateRequestIdLayer::new(REQUEST_ID)),
        )
}
