//! `/graphql` over HTTP, as GraphQL over HTTP describes it: `POST` with a JSON body (one
//! operation or a bounded batch) and `GET` with the parameters in the query string (reads
//! only; a browser asking for HTML gets the playground instead). Both authenticate, resolve
//! trusted documents, run within the request deadline and answer in the negotiated media
//! type (429 with `Retry-After` when throttled).

use async_graphql::{BatchResponse, ServerError};
use axum::body::Body;
use axum::extract::State;
use axum::http::header::{ALLOW, RETRY_AFTER};
use axum::http::{HeaderMap, HeaderValue, StatusCode, Uri};
use axum::response::Response;
use futures_util::FutureExt;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use tracing::Instrument;

use super::media::{self, Answer, BodyType};
use super::params::{self, Params};
use super::wire::{self, is_request_error, respond, retry_after};
use super::{AppState, auth, consistency, playground};
use crate::domain::consistency::ReadAfter;
use crate::error::{ApiError, codes, request_error};
use crate::graphql::read_only::OverGet;
use crate::service::accounts::Caller;
use crate::{graphql, metrics};

/// One exchange's answering: the negotiated media type, and the clock its refusals are
/// counted with.
struct Exchange {
    started: std::time::Instant,
    graphql_media: bool,
    /// What its reads ask of the server that answers them (its consistency token).
    after: ReadAfter,
}

impl Exchange {
    fn new(answer: Answer, headers: &HeaderMap) -> Self {
        Self {
            started: std::time::Instant::now(),
            graphql_media: answer == Answer::GraphqlResponse,
            after: consistency::read_after(headers),
        }
    }

    /// The answer, with the consistency token of any mutation in it.
    fn reply(&self, status: StatusCode, response: &BatchResponse) -> Response {
        let token = match response {
            BatchResponse::Single(one) => consistency::header_for([one]),
            BatchResponse::Batch(many) => consistency::header_for(many),
        };
        let mut answer = respond(status, response, self.graphql_media);
        if let Some(token) = token {
            answer.headers_mut().insert(consistency::HEADER, token);
        }
        answer
    }

    /// A refusal before the schema runs (the schema counts the rest).
    fn refuse(&self, status: StatusCode, err: ApiError) -> Response {
        metrics::record_request(
            metrics::UNKNOWN_OPERATION,
            err.code(),
            self.started.elapsed(),
        );
        let response = async_graphql::Response::from_errors(vec![ServerError::from(err)]);
        self.reply(status, &BatchResponse::Single(response))
    }

    /// The status for a request error: GraphQL over HTTP answers a well-formed request 200
    /// in `application/json`, and 400 in `application/graphql-response+json` when it failed
    /// before execution began.
    fn request_error_status(&self) -> StatusCode {
        if self.graphql_media {
            StatusCode::BAD_REQUEST
        } else {
            StatusCode::OK
        }
    }

    /// Refuses a request whose document could not be resolved.
    fn refuse_document(&self, err: ApiError) -> Response {
        let status = match err {
            // The credential is valid but may not send free text: not permitted, whatever
            // the media type.
            ApiError::PersistedQueryRequired => StatusCode::FORBIDDEN,
            // An unknown `documentId` is a GraphQL response of a single error (the persisted
            // documents proposal of GraphQL over HTTP), so it gets the status of any request
            // error: 200 in `application/json`, where clients such as Apollo's and Relay's
            // read the error's code from the body (and may then send the text instead), and
            // 400 in `application/graphql-response+json`, since nothing was executed.
            ApiError::PersistedQueryNotFound(_) => self.request_error_status(),
            ApiError::Internal => StatusCode::INTERNAL_SERVER_ERROR,
            _ => StatusCode::BAD_REQUEST,
        };
        self.refuse(status, err)
    }

    /// Who the request acts for, or the refusal to send.
    async fn caller(&self, state: &AppState, headers: &HeaderMap) -> Result<Caller, Response> {
        auth::caller_of(&state.keys, headers).await.map_err(|err| {
            let status = match err {
                ApiError::Unauthenticated => StatusCode::UNAUTHORIZED,
                _ => StatusCode::INTERNAL_SERVER_ERROR,
            };
            self.refuse(status, err)
        })
    }
}

/// `POST /graphql`.
pub async fn post(State(state): State<Arc<AppState>>, headers: HeaderMap, body: Body) -> Response {
    let exchange = Exchange::new(media::preferred(&headers), &headers);
    let caller = match exchange.caller(&state, &headers).await {
        Ok(caller) => caller,
        Err(refused) => return refused,
    };
    match media::body_type(&headers) {
        BodyType::Json => {}
        BodyType::Missing => {
            return exchange.refuse(
                StatusCode::BAD_REQUEST,
                ApiError::ParseFailed(
                    "the request has no Content-Type: send the body as JSON with                      `Content-Type: application/json`"
                        .into(),
                ),
            );
        }
        BodyType::Unsupported => {
            return exchange.refuse(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                ApiError::ParseFailed(
                    "the body must be JSON in UTF-8: send `Content-Type: application/json`".into(),
                ),
            );
        }
    }
    let body = match axum::body::to_bytes(body, state.max_body_bytes).await {
        Ok(body) => body,
        Err(err) => return refuse_body(err, state.max_body_bytes, |s, e| exchange.refuse(s, e)),
    };
    match params::from_body(&body) {
        Err(malformed) => exchange.refuse(StatusCode::BAD_REQUEST, malformed.into()),
        Ok(params::Body::Single(params)) => single(&state, &exchange, &caller, params, None).await,
        Ok(params::Body::Batch(requests)) if requests.len() > state.max_batch => exchange.refuse(
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
        Ok(params::Body::Batch(requests)) => batch(&state, &exchange, &caller, requests).await,
    }
}

/// `GET /graphql`: the playground for a browser; for every other client, the operation in
/// the query string, which must not be a mutation.
pub async fn get(State(state): State<Arc<AppState>>, headers: HeaderMap, uri: Uri) -> Response {
    let answer = media::preferred(&headers);
    if answer == Answer::Html {
        return playground::page(&state);
    }
    let exchange = Exchange::new(answer, &headers);
    let caller = match exchange.caller(&state, &headers).await {
        Ok(caller) => caller,
        Err(refused) => return refused,
    };
    match params::from_uri(&uri) {
        Ok(params) => single(&state, &exchange, &caller, params, Some(OverGet::new())).await,
        Err(malformed) => exchange.refuse(StatusCode::BAD_REQUEST, malformed.into()),
    }
}

/// Runs one operation; `over_get` marks one that came with `GET`.
async fn single(
    state: &AppState,
    exchange: &Exchange,
    caller: &Caller,
    params: Params,
    over_get: Option<OverGet>,
) -> Response {
    let mut request = match params.resolve(&state.documents, Some(caller)) {
        Ok(request) => request,
        Err(err) => return exchange.refuse_document(err),
    };
    if let Some(over_get) = &over_get {
        request = request.data(over_get.clone());
    }
    let response = run(state, request, caller, exchange.after).await;
    if over_get.is_some_and(|o| o.refused_mutation()) {
        let mut answer = exchange.reply(
            StatusCode::METHOD_NOT_ALLOWED,
            &BatchResponse::Single(response),
        );
        answer
            .headers_mut()
            .insert(ALLOW, HeaderValue::from_static("POST"));
        return answer;
    }
    let throttled = retry_after(&response);
    let status = if throttled.is_some() {
        StatusCode::TOO_MANY_REQUESTS
    } else if is_request_error(&response) {
        exchange.request_error_status()
    } else {
        StatusCode::OK
    };
    let mut answer = exchange.reply(status, &BatchResponse::Single(response));
    if let Some(seconds) = throttled {
        answer
            .headers_mut()
            .insert(RETRY_AFTER, HeaderValue::from(seconds));
    }
    answer
}

/// Runs a batch's operations one after another: a batch takes no more of the gateway at once
/// than a request, and each operation pays for itself from the account's budget. One that
/// cannot be resolved is answered with its error; the others run all the same.
async fn batch(
    state: &AppState,
    exchange: &Exchange,
    caller: &Caller,
    requests: Vec<Params>,
) -> Response {
    let mut responses = Vec::with_capacity(requests.len());
    // A read after a mutation of the same batch sees its writes.
    let mut after = exchange.after;
    for params in requests {
        let response = match params.resolve(&state.documents, Some(caller)) {
            Ok(request) => run(state, request, caller, after).await,
            Err(err) => {
                metrics::record_request(
                    metrics::UNKNOWN_OPERATION,
                    err.code(),
                    exchange.started.elapsed(),
                );
                async_graphql::Response::from_errors(vec![ServerError::from(err)])
            }
        };
        after = consistency::after_answer(after, &response);
        responses.push(response);
    }
    // Throttled operations make the whole answer a 429, as for a single one; the others'
    // results are in it all the same.
    let throttled = responses.iter().filter_map(retry_after).max();
    let status = match throttled {
        Some(_) => StatusCode::TOO_MANY_REQUESTS,
        None => StatusCode::OK,
    };
    let mut answer = exchange.reply(status, &BatchResponse::Batch(responses));
    if let Some(seconds) = throttled {
        answer
            .headers_mut()
            .insert(RETRY_AFTER, HeaderValue::from(seconds));
    }
    answer
}

/// Runs one operation for `caller` within the request deadline; a read on a replica when one
/// is far enough along for `after`, a mutation on the primary, its answer with its token.
async fn run(
    state: &AppState,
    request: async_graphql::Request,
    caller: &Caller,
    after: ReadAfter,
) -> async_graphql::Response {
    let started = std::time::Instant::now();
    let operation = request
        .operation_name
        .clone()
        .or_else(|| wire::operation_name_in(&request.query).map(str::to_string));
    tracing::Span::current().record("operation", operation.as_deref().unwrap_or("anonymous"));

    // A mutation runs to completion in a task of its own, even when the client goes away or
    // the deadline passes: one stopped halfway would leave its idempotency key claimed until
    // the lock timeout, while finishing it stores the outcome a retry then replays. Anything
    // else runs in the exchange's own task: stopping a read halfway loses nothing, and a task
    // of its own cost every page read a spawn and a wake-up. Which it is comes from the
    // operation the checks before execution found in the parsed document (nothing in them
    // waits, so a client going away cannot stop a request between them and its task).
    let request = graphql::request_for(request, &state.db, caller.clone());
    let mut prepared =
        std::panic::catch_unwind(AssertUnwindSafe(|| state.http_schema.prepare(request)));
    let may_mutate = prepared
        .as_ref()
        .is_ok_and(|prepared| prepared.runs_mutation());
    if let Ok(prepared) = &mut prepared {
        consistency::route(state, prepared, after);
    }
    let execution = async move {
        // A panic is answered like one in a task of its own.
        let prepared = prepared.map_err(|_| "the request panicked".to_string())?;
        if may_mutate {
            tokio::spawn(prepared.execute().instrument(tracing::Span::current()))
                .await
                .map_err(|failed| failed.to_string())
        } else {
            AssertUnwindSafe(prepared.execute())
                .catch_unwind()
                .await
                .map_err(|_| "the request panicked".to_string())
        }
    };
    match tokio::time::timeout(state.request_timeout, execution).await {
        Ok(Ok(mut response)) => {
            if may_mutate {
                graphql::consistency::stamp(&state.db, &mut response).await;
            }
            response
        }
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
            if !may_mutate {
                // Stopped, so it counts itself nowhere else.
                metrics::record_request(
                    metrics::UNKNOWN_OPERATION,
                    codes::INTERNAL,
                    started.elapsed(),
                );
            }
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
