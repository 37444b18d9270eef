//! Liveness (`/healthz`: the process answers) and readiness (`/readyz`: the database answers
//! and this instance can read the change feed; its detail also says whether secrets are
//! sealed at rest).

use std::sync::Arc;
use std::time::Duration;

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde_json::{Value, json};

use super::AppState;
use crate::service::readiness;

pub async fn healthz() -> Json<Value> {
    Json(json!({"status": "ok"}))
}

/// How long the database may take to answer a readiness check: whoever asks (a load
/// balancer, an orchestrator) needs an answer sooner than the pool would give up.
const READINESS_DEADLINE: Duration = Duration::from_secs(1);

pub async fn readyz(State(state): State<Arc<AppState>>) -> (StatusCode, Json<Value>) {
    if !state.feed.is_ready() {
        return (
            StatusCode::SERVICE_UNAVAILABLE,
            Json(json!({"status": "unavailable", "changeFeed": "cannot read"})),
        );
    }
    match tokio::time::timeout(READINESS_DEADLINE, readiness::database_answers(&state.db)).await {
        Ok(Ok(())) => {
            let at_rest = if state.db.sealer().has_key() {
                "sealed"
            } else {
                "in the clear: no secrets key is configured"
            };
            return (
                StatusCode::OK,
                Json(json!({"status": "ok", "database": "ok", "changeFeed": "ok",
                    "secretsAtRest": at_rest})),
            );
        }
        Ok(Err(err)) => tracing::warn!(error = ?err, "readiness check failed"),
        Err(_) => tracing::warn!(
            deadline_ms = READINESS_DEADLINE.as_millis(),
            "readiness check failed: the database did not answer in time"
        ),
    }
    (
        StatusCode::SERVICE_UNAVAILABLE,
        Json(json!({"status": "unavailable", "database": "unreachable"})),
    )
}
