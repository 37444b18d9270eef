//! `POST /webhooks/processor`: signed processor events. 401 for a missing or wrong signature,
//! 400 for a stale timestamp or a malformed event (nothing changes either way); 200 once the
//! event is applied, recorded as ignored, or recognised as a duplicate.

use axum::Json;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use serde_json::{Value, json};
use std::sync::Arc;

use super::AppState;
use crate::domain::processor_event::{SIGNATURE_HEADER, WebhookRejection};
use crate::service::processor_events::{self, EventOutcome, Received, Refusal};

pub async fn receive(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    body: Bytes,
) -> (StatusCode, Json<Value>) {
    let signature = headers.get(SIGNATURE_HEADER).and_then(|v| v.to_str().ok());
    match processor_events::receive(
        &state.db,
        &state.feed,
        state.authorization_ttl,
        &state.webhook_secret,
        signature,
        &body,
    )
    .await
    {
        Ok(Received::Handled(outcome)) => {
            let (status, detail) = match outcome {
                EventOutcome::Applied(_) | EventOutcome::CustomerAnswered(_) => ("applied", None),
                EventOutcome::Duplicate => ("duplicate", None),
                EventOutcome::Ignored(why) => ("ignored", Some(why)),
            };
            (
                StatusCode::OK,
                Json(json!({"status": status, "detail": detail})),
            )
        }
        Ok(Received::Refused(Refusal::Signature(rejection))) => {
            let (code, message) = match rejection {
                WebhookRejection::Missing => (StatusCode::UNAUTHORIZED, "missing signature"),
                WebhookRejection::BadSignature => {
                    (StatusCode::UNAUTHORIZED, "signature does not match")
                }
                WebhookRejection::Malformed => {
                    (StatusCode::BAD_REQUEST, "malformed signature header")
                }
                WebhookRejection::OutsideWindow => (
                    StatusCode::BAD_REQUEST,
                    "timestamp outside the 5-minute window",
                ),
            };
            (code, Json(json!({"error": message})))
        }
        Ok(Received::Refused(Refusal::Malformed(why))) => {
            (StatusCode::BAD_REQUEST, Json(json!({"error": why})))
        }
        Err(err) => {
            tracing::error!(error = ?err, "a processor webhook could not be applied");
            (
                StatusCode::INTERNAL_SERVER_ERROR,
                Json(json!({"error": "internal error"})),
            )
        }
    }
}
