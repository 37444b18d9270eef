//! `POST /graphql`: authenticate, parse the body, execute, answer in the negotiated media type.

use axum::body::Bytes;
use axum::extract::State;
use axum::http::header::{ACCEPT, CONTENT_TYPE};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use tracing::Instrument;

use super::AppState;
use super::auth;
use crate::error::{ApiError, codes, request_error};
use crate::{graphql, metrics};

const GRAPHQL_RESPONSE: &str = "application/graphql-response+json";

pub async fn execute(State(state): State<AppState>, headers: HeaderMap, body: Bytes) -> Response {
    let started = std::time::Instant::now();
    let wants_graphql_response = headers
        .get(ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|accept| accept.contains(GRAPHQL_RESPONSE));
    let reply = |status, response: &async_graphql::Response| {
        respond(status, response, wants_graphql_response)
    };

    let account_id = match auth::account_of(&state.db, &headers).await {
        Ok(account_id) => account_id,
        Err(err) => {
            let status = match err {
                ApiError::Unauthenticated => StatusCode::UNAUTHORIZED,
                _ => StatusCode::INTERNAL_SERVER_ERROR,
            };
            metrics::record_request(metrics::UNKNOWN_OPERATION, err.code(), started.elapsed());
            let response = async_graphql::Response::from_errors(vec![request_error(
                err.code(),
                &err.message(),
            )]);
            return reply(status, &response);
        }
    };

    let request: async_graphql::Request = match serde_json::from_slice(&body) {
        Ok(request) => request,
        Err(err) => {
            let message = format!(
                "the body is not a GraphQL request (expected JSON with `query`, and optionally \
                 `variables` and `operationName`): {err}"
            );
            let response = async_graphql::Response::from_errors(vec![request_error(
                codes::GRAPHQL_PARSE_FAILED,
                &message,
            )]);
            metrics::record_request(
                metrics::UNKNOWN_OPERATION,
                codes::GRAPHQL_PARSE_FAILED,
                started.elapsed(),
            );
            return reply(StatusCode::BAD_REQUEST, &response);
        }
    };
    let operation = request
        .operation_name
        .clone()
        .or_else(|| operation_name_in(&request.query).map(str::to_string));
    tracing::Span::current().record("operation", operation.as_deref().unwrap_or("anonymous"));

    let request = graphql::request_for(request, &state.db, account_id);
    // The request runs to completion in a task of its own, even when the client goes away or
    // the deadline passes: a mutation stopped halfway would leave its idempotency key claimed
    // until the lock timeout, while finishing it stores the outcome a retry then replays.
    let schema = state.schema.clone();
    let execution = tokio::spawn(
        async move { schema.execute(request).await }.instrument(tracing::Span::current()),
    );
    let response = match tokio::time::timeout(state.request_timeout, execution).await {
        Ok(Ok(response)) => response,
        Ok(Err(failed)) => {
            tracing::error!(error = %failed, "request execution failed");
            metrics::record_request(
                metrics::UNKNOWN_OPERATION,
                codes::INTERNAL,
                started.elapsed(),
            );
            async_graphql::Response::from_errors(vec![request_error(
                codes::INTERNAL,
                ApiError::Internal.message().as_str(),
            )])
        }
        Err(_) => {
            tracing::warn!("request deadline exceeded");
            async_graphql::Response::from_errors(vec![request_error(
                codes::INTERNAL,
                "the request did not finish within its deadline; if it moved money, ask \
                 idempotencyRecord or retry it with the same idempotency key",
            )])
        }
    };
    let status = if wants_graphql_response
        && response.data == async_graphql::Value::Null
        && response.is_err()
    {
        StatusCode::BAD_REQUEST
    } else {
        StatusCode::OK
    };
    reply(status, &response)
}

fn respond(
    status: StatusCode,
    response: &async_graphql::Response,
    graphql_media: bool,
) -> Response {
    let content_type = if graphql_media {
        GRAPHQL_RESPONSE
    } else {
        "application/json"
    };
    match serde_json::to_vec(response) {
        Ok(body) => (
            status,
            [(CONTENT_TYPE, HeaderValue::from_static(content_type))],
            body,
        )
            .into_response(),
        Err(err) => {
            tracing::error!(error = %err, "could not serialise a response");
            StatusCode::INTERNAL_SERVER_ERROR.into_response()
        }
    }
}

/// The name of the first named operation in a document, for logs; a cheap scan, not a parse.
fn operation_name_in(query: &str) -> Option<&str> {
    let rest = query.trim_start();
    let rest = ["query", "mutation", "subscription"]
        .iter()
        .find_map(|kw| rest.strip_prefix(kw))?
        .trim_start();
    let end = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(rest.len());
    (end > 0).then(|| &rest[..end])
}

#[cfg(test)]
mod tests {
    use super::operation_name_in;

    #[test]
    fn finds_the_operation_name_for_logs() {
        assert_eq!(
            operation_name_in("query Viewer { viewer { id } }"),
            Some("Viewer")
        );
        assert_eq!(
            operation_name_in("  mutation Pay($a: Int) { x }"),
            Some("Pay")
        );
        assert_eq!(operation_name_in("{ viewer { id } }"), None);
        assert_eq!(operation_name_in("query { viewer { id } }"), None);
    }
}
