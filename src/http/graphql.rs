//! `POST /graphql`: authenticate, read a bounded body, execute one operation or a bounded
//! batch, answer in the negotiated media type (429 with `Retry-After` when throttled).

use async_graphql::{BatchRequest, BatchResponse, ServerError};
use axum::body::Body;
use axum::extract::State;
use axum::http::header::{ACCEPT, CONTENT_TYPE, RETRY_AFTER};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use tracing::Instrument;

use super::AppState;
use super::auth;
use crate::error::{ApiError, codes, request_error};
use crate::service::accounts::Caller;
use crate::{graphql, metrics};

const GRAPHQL_RESPONSE: &str = "application/graphql-response+json";

pub async fn execute(State(state): State<AppState>, headers: HeaderMap, body: Body) -> Response {
    let started = std::time::Instant::now();
    let wants_graphql_response = headers
        .get(ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|accept| accept.contains(GRAPHQL_RESPONSE));
    let reply =
        |status, response: &BatchResponse| respond(status, response, wants_graphql_response);
    // Refusals before the schema runs are counted here; the schema counts the rest.
    let refuse = |status, err: ApiError| {
        metrics::record_request(metrics::UNKNOWN_OPERATION, err.code(), started.elapsed());
        let response = async_graphql::Response::from_errors(vec![ServerError::from(err)]);
        reply(status, &BatchResponse::Single(response))
    };

    let caller = match auth::caller_of(&state.keys, &headers).await {
        Ok(caller) => caller,
        Err(err) => {
            let status = match err {
                ApiError::Unauthenticated => StatusCode::UNAUTHORIZED,
                _ => StatusCode::INTERNAL_SERVER_ERROR,
            };
            return refuse(status, err);
        }
    };

    let body = match axum::body::to_bytes(body, state.max_body_bytes).await {
        Ok(body) => body,
        Err(err) => return refuse_body(err, state.max_body_bytes, refuse),
    };
    let batch: BatchRequest = match serde_json::from_slice(&body) {
        Ok(batch) => batch,
        Err(err) => {
            let message = format!(
                "the body is not a GraphQL request (expected JSON with `query`, and optionally \
                 `variables` and `operationName`, or an array of such): {err}"
            );
            return refuse(StatusCode::BAD_REQUEST, ApiError::ParseFailed(message));
        }
    };
    match batch {
        BatchRequest::Single(request) => {
            let response = run(&state, request, &caller).await;
            let throttled = retry_after(&response);
            let status = if throttled.is_some() {
                StatusCode::TOO_MANY_REQUESTS
            } else if wants_graphql_response
                && response.data == async_graphql::Value::Null
                && response.is_err()
            {
                StatusCode::BAD_REQUEST
            } else {
                StatusCode::OK
            };
            let mut answer = reply(status, &BatchResponse::Single(response));
            if let Some(seconds) = throttled {
                answer
                    .headers_mut()
                    .insert(RETRY_AFTER, HeaderValue::from(seconds));
            }
            answer
        }
        BatchRequest::Batch(requests) if requests.len() > state.max_batch => refuse(
            StatusCode::BAD_REQUEST,
            ApiError::QueryTooComplex {
                message: format!(
                    "a batch may hold at most {} operations, this one holds {}",
                    state.max_batch,
                    requests.len()
                ),
                cost: None,
            },
        ),
        BatchRequest::Batch(requests) => {
            // One after another: a batch takes no more of the gateway at once than a request,
            // and each operation pays for itself from the account's budget.
            let mut responses = Vec::with_capacity(requests.len());
            for request in requests {
                responses.push(run(&state, request, &caller).await);
            }
            // Throttled operations make the whole answer a 429, as for a single one; the
            // others' results are in it all the same.
            let throttled = responses.iter().filter_map(retry_after).max();
            let status = match throttled {
                Some(_) => StatusCode::TOO_MANY_REQUESTS,
                None => StatusCode::OK,
            };
            let mut answer = reply(status, &BatchResponse::Batch(responses));
            if let Some(seconds) = throttled {
                answer
                    .headers_mut()
                    .insert(RETRY_AFTER, HeaderValue::from(seconds));
            }
            answer
        }
    }
}

/// Runs one operation for `caller` within the request deadline.
async fn run(
    state: &AppState,
    request: async_graphql::Request,
    caller: &Caller,
) -> async_graphql::Response {
    let started = std::time::Instant::now();
    let operation = request
        .operation_name
        .clone()
        .or_else(|| operation_name_in(&request.query).map(str::to_string));
    tracing::Span::current().record("operation", operation.as_deref().unwrap_or("anonymous"));

    let request = graphql::request_for(request, &state.db, caller.clone());
    // The request runs to completion in a task of its own, even when the client goes away or
    // the deadline passes: a mutation stopped halfway would leave its idempotency key claimed
    // until the lock timeout, while finishing it stores the outcome a retry then replays.
    let schema = state.schema.clone();
    let execution = tokio::spawn(
        async move { schema.execute(request).await }.instrument(tracing::Span::current()),
    );
    match tokio::time::timeout(state.request_timeout, execution).await {
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
    }
}

/// A body that could not be read: too large, or not sent in time.
fn refuse_body(
    err: axum::Error,
    max_bytes: usize,
    refuse: impl Fn(StatusCode, ApiError) -> Response,
) -> Response {
    let too_large = std::error::Error::source(&err)
        .is_some_and(|source| source.is::<http_body_util::LengthLimitError>())
        || err.to_string().contains("length limit exceeded");
    if too_large {
        return refuse(
            StatusCode::PAYLOAD_TOO_LARGE,
            ApiError::QueryTooComplex {
                message: format!("the request body is larger than {max_bytes} bytes"),
                cost: None,
            },
        );
    }
    tracing::warn!(error = %err, "the request body could not be read");
    refuse(
        StatusCode::BAD_REQUEST,
        ApiError::ParseFailed("the request body could not be read in full".into()),
    )
}

/// The seconds to wait when the account's budget refused the request.
fn retry_after(response: &async_graphql::Response) -> Option<u64> {
    response.errors.iter().find_map(|err| {
        let ext = err.extensions.as_ref()?;
        match (ext.get("code"), ext.get("retryAfterSeconds")) {
            (Some(async_graphql::Value::String(code)), Some(async_graphql::Value::Number(n)))
                if code == codes::THROTTLED =>
            {
                n.as_u64()
            }
            _ => None,
        }
    })
}

fn respond(status: StatusCode, response: &BatchResponse, graphql_media: bool) -> Response {
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
