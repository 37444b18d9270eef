//! The one place where failures become the contract's error codes (`extensions.code`).
//!
//! Internal causes are logged with the request's span and never shown to clients.

use std::sync::Arc;

use async_graphql::extensions::{
    Extension, ExtensionContext, ExtensionFactory, NextParseQuery, NextRequest, NextValidation,
};
use async_graphql::parser::types::ExecutableDocument;
use async_graphql::{
    ErrorExtensionValues, ErrorExtensions, Response, ServerError, ServerResult, ValidationResult,
    Value, Variables,
};

use crate::persistence::DbError;
use crate::service::ServiceError;

/// Every error a client can see. Deliberately not `Display`: the only way into a GraphQL error
/// is `From<ApiError>`, which always attaches the code.
#[derive(Debug)]
pub enum ApiError {
    Unauthenticated,
    BadUserInput {
        field: String,
        message: String,
    },
    InvalidAmount(String),
    InvalidCurrency(String),
    InvalidIdempotencyKey(String),
    IdempotencyKeyReused,
    RequestInProgress {
        retry_after_seconds: i64,
    },
    InvalidCursor(String),
    CursorMismatch,
    /// A cursor before the oldest data still kept for it (the event log's retention).
    CursorExpired,
    PageSizeOutOfRange(String),
    InvalidStateTransition {
        from: String,
        operation: String,
    },
    RefundExceedsAvailable(String),
    ProcessorUnavailable,
    /// Over a depth, size, count or cost limit; `cost` when it was calculated.
    QueryTooComplex {
        message: String,
        cost: Option<u64>,
    },
    Throttled {
        retry_after_seconds: u64,
        message: String,
    },
    ParseFailed(String),
    ValidationFailed(String),
    /// The credential is valid but may not use `field`; `required_scope` names the scope that
    /// would allow it, `None` when only an unrestricted secret key may. `keys_only`: only a
    /// secret key can hold that scope for this field (the caller is a client token).
    Forbidden {
        field: String,
        required_scope: Option<&'static str>,
        keys_only: bool,
    },
    /// A `documentId` that is not registered.
    PersistedQueryNotFound(String),
    /// Free query text from a credential that may run trusted documents only.
    PersistedQueryRequired,
    Internal,
}

impl ApiError {
    pub fn code(&self) -> &'static str {
        match self {
            ApiError::Unauthenticated => codes::UNAUTHENTICATED,
            ApiError::BadUserInput { .. } => codes::BAD_USER_INPUT,
            ApiError::InvalidAmount(_) => codes::INVALID_AMOUNT,
            ApiError::InvalidCurrency(_) => codes::INVALID_CURRENCY,
            ApiError::InvalidIdempotencyKey(_) => codes::INVALID_IDEMPOTENCY_KEY,
            ApiError::IdempotencyKeyReused => codes::IDEMPOTENCY_KEY_REUSED,
            ApiError::RequestInProgress { .. } => codes::REQUEST_IN_PROGRESS,
            ApiError::InvalidCursor(_) => codes::INVALID_CURSOR,
            ApiError::CursorMismatch => codes::CURSOR_MISMATCH,
            ApiError::CursorExpired => codes::CURSOR_EXPIRED,
            ApiError::PageSizeOutOfRange(_) => codes::PAGE_SIZE_OUT_OF_RANGE,
            ApiError::InvalidStateTransition { .. } => codes::INVALID_STATE_TRANSITION,
            ApiError::RefundExceedsAvailable(_) => codes::REFUND_EXCEEDS_AVAILABLE,
            ApiError::ProcessorUnavailable => codes::PROCESSOR_UNAVAILABLE,
            ApiError::QueryTooComplex { .. } => codes::QUERY_TOO_COMPLEX,
            ApiError::Throttled { .. } => codes::THROTTLED,
            ApiError::ParseFailed(_) => codes::GRAPHQL_PARSE_FAILED,
            ApiError::ValidationFailed(_) => codes::GRAPHQL_VALIDATION_FAILED,
            ApiError::Forbidden { .. } => codes::FORBIDDEN,
            ApiError::PersistedQueryNotFound(_) => codes::PERSISTED_QUERY_NOT_FOUND,
            ApiError::PersistedQueryRequired => codes::PERSISTED_QUERY_REQUIRED,
            ApiError::Internal => codes::INTERNAL,
        }
    }

    /// What went wrong and what to do, for the client.
    pub fn message(&self) -> String {
        match self {
            ApiError::Unauthenticated => "a valid API key or client token is required: send \
                `Authorization: Bearer <key or token>`"
                .into(),
            ApiError::Forbidden {
                field,
                required_scope: Some(scope),
                keys_only: false,
            } => format!("this credential may not use `{field}`: that needs the {scope} scope"),
            ApiError::Forbidden {
                field,
                required_scope: Some(scope),
                keys_only: true,
            } => format!(
                "`{field}` needs a secret API key with the {scope} scope; client tokens may not \
                 use it"
            ),
            ApiError::Forbidden {
                field,
                required_scope: None,
                ..
            } => format!("`{field}` needs an unrestricted secret API key"),
            ApiError::PersistedQueryNotFound(id) => format!(
                "no trusted document is registered with the id {id:?}; send one of the \
                 registered ids"
            ),
            ApiError::PersistedQueryRequired => "this credential may run trusted documents \
                only: send `documentId` instead of `query`"
                .into(),
            ApiError::BadUserInput { message, .. } => message.clone(),
            ApiError::InvalidAmount(m)
            | ApiError::InvalidCurrency(m)
            | ApiError::InvalidIdempotencyKey(m)
            | ApiError::InvalidCursor(m)
            | ApiError::PageSizeOutOfRange(m)
            | ApiError::RefundExceedsAvailable(m)
            | ApiError::ParseFailed(m)
            | ApiError::ValidationFailed(m)
            | ApiError::QueryTooComplex { message: m, .. }
            | ApiError::Throttled { message: m, .. } => m.clone(),
            ApiError::IdempotencyKeyReused => "this idempotency key was already used for a \
                different request; use a new key for a new request"
                .into(),
            ApiError::RequestInProgress {
                retry_after_seconds,
            } => format!(
                "a request with this idempotency key is still in progress; retry after \
                 {retry_after_seconds} s"
            ),
            ApiError::CursorMismatch => "this cursor was issued for a different filter or \
                order; start again without a cursor"
                .into(),
            ApiError::CursorExpired => "this cursor points before the oldest event still kept; \
                start again without a cursor"
                .into(),
            ApiError::InvalidStateTransition { from, operation } => {
                format!("cannot {operation} a payment in status {from}")
            }
            ApiError::ProcessorUnavailable => "the payment processor could not be reached; \
                retry with the same idempotency key"
                .into(),
            ApiError::Internal => "an internal error occurred".into(),
        }
    }

    pub fn bad_input(field: &str, message: impl Into<String>) -> Self {
        ApiError::BadUserInput {
            field: field.to_string(),
            message: message.into(),
        }
    }

    /// Logs an unexpected failure and hides it behind `INTERNAL`.
    pub fn internal(cause: impl std::fmt::Display) -> Self {
        tracing::error!(error = %cause, "internal error");
        ApiError::Internal
    }
}

impl From<crate::domain::state_machine::InvalidTransition> for ApiError {
    fn from(refused: crate::domain::state_machine::InvalidTransition) -> Self {
        ApiError::InvalidStateTransition {
            from: refused.from.as_str().to_string(),
            operation: refused.operation.name().to_string(),
        }
    }
}

impl From<ServiceError> for ApiError {
    fn from(err: ServiceError) -> Self {
        match err {
            ServiceError::BadInput { field, message } => ApiError::BadUserInput { field, message },
            ServiceError::InvalidAmount(m) => ApiError::InvalidAmount(m),
            ServiceError::InvalidIdempotencyKey(m) => ApiError::InvalidIdempotencyKey(m),
            ServiceError::IdempotencyKeyReused => ApiError::IdempotencyKeyReused,
            ServiceError::RequestInProgress {
                retry_after_seconds,
            } => ApiError::RequestInProgress {
                retry_after_seconds,
            },
            ServiceError::InvalidTransition(refused) => refused.into(),
            ServiceError::RefundExceedsAvailable(m) => ApiError::RefundExceedsAvailable(m),
            ServiceError::ProcessorUnavailable => ApiError::ProcessorUnavailable,
            ServiceError::Forbidden {
                field,
                required_scope,
            } => ApiError::Forbidden {
                field,
                required_scope,
                keys_only: false,
            },
            ServiceError::Store(err) => ApiError::internal(err),
            ServiceError::Internal(cause) => ApiError::internal(cause),
        }
    }
}

impl From<ServiceError> for async_graphql::Error {
    fn from(err: ServiceError) -> Self {
        ApiError::from(err).into()
    }
}

impl From<DbError> for ApiError {
    fn from(err: DbError) -> Self {
        ApiError::internal(err)
    }
}

impl From<ApiError> for async_graphql::Error {
    fn from(err: ApiError) -> Self {
        async_graphql::Error::new(err.message()).extend_with(|_, ext| {
            ext.set("code", err.code());
            match &err {
                ApiError::BadUserInput { field, .. } => ext.set("field", field.as_str()),
                ApiError::Forbidden {
                    required_scope: Some(scope),
                    ..
                } => ext.set("requiredScope", *scope),
                ApiError::RequestInProgress {
                    retry_after_seconds,
                } => ext.set("retryAfterSeconds", *retry_after_seconds),
                ApiError::InvalidStateTransition { from, operation } => {
                    ext.set("from", from.as_str());
                    ext.set("operation", operation.as_str());
                }
                ApiError::QueryTooComplex {
                    cost: Some(cost), ..
                } => ext.set("cost", *cost),
                ApiError::Throttled {
                    retry_after_seconds,
                    ..
                } => ext.set("retryAfterSeconds", *retry_after_seconds),
                _ => {}
            }
        })
    }
}

/// The contract's error codes.
pub mod codes;

impl From<ApiError> for ServerError {
    fn from(err: ApiError) -> Self {
        let err = async_graphql::Error::from(err);
        let mut server = ServerError::new(err.message, None);
        server.extensions = err.extensions;
        server
    }
}

/// A GraphQL error for failures outside any resolver (a bad body, a missing key).
pub fn request_error(code: &'static str, message: &str) -> ServerError {
    let mut err = ServerError::new(message, None);
    let mut ext = ErrorExtensionValues::default();
    ext.set("code", Value::from(code));
    err.extensions = Some(ext);
    err
}

/// Gives every error that async-graphql itself raises (syntax, validation, limits, argument
/// coercion) a contract code, and hides anything unexpected behind `INTERNAL`.
pub struct ErrorCodes;

impl ExtensionFactory for ErrorCodes {
    fn create(&self) -> Arc<dyn Extension> {
        Arc::new(ErrorCodes)
    }
}

#[async_trait::async_trait]
impl Extension for ErrorCodes {
    async fn request(&self, ctx: &ExtensionContext<'_>, next: NextRequest<'_>) -> Response {
        let mut response = next.run(ctx).await;
        code_uncoded(&mut response);
        response
    }

    async fn parse_query(
        &self,
        ctx: &ExtensionContext<'_>,
        query: &str,
        variables: &Variables,
        next: NextParseQuery<'_>,
    ) -> ServerResult<ExecutableDocument> {
        next.run(ctx, query, variables)
            .await
            .map_err(|err| with_code(err, codes::GRAPHQL_PARSE_FAILED))
    }

    async fn validation(
        &self,
        ctx: &ExtensionContext<'_>,
        next: NextValidation<'_>,
    ) -> Result<ValidationResult, Vec<ServerError>> {
        next.run(ctx)
            .await
            .map_err(|errors| errors.into_iter().map(code_validation_error).collect())
    }
}

/// Gives an error of validation its contract code.
pub(crate) fn code_validation_error(err: ServerError) -> ServerError {
    let code = validation_code(&err.message);
    with_code(err, code)
}

/// Gives every error of `response` that has no code one (see [`classify_uncoded`]).
pub(crate) fn code_uncoded(response: &mut Response) {
    for err in &mut response.errors {
        if code_of(err).is_none() {
            classify_uncoded(err);
        }
    }
}

/// Whether `err` has a contract code already.
pub(crate) fn is_coded(err: &ServerError) -> bool {
    code_of(err).is_some()
}

/// Validation failures keep the contract's specific codes where one applies: limits, amounts
/// that are not integers, and values a custom scalar refuses.
fn validation_code(message: &str) -> &'static str {
    if message.contains("too complex") || message.contains("nested too deep") {
        return codes::QUERY_TOO_COMPLEX;
    }
    if let Some(rest) = message.strip_prefix("Invalid value for argument \"") {
        let argument = rest.split('"').next().unwrap_or_default();
        let last = argument.rsplit('.').next().unwrap_or_default();
        if last == "amount" {
            return codes::INVALID_AMOUNT;
        }
        if message.ends_with("expected type \"Currency\"") {
            return codes::INVALID_CURRENCY;
        }
    }
    codes::GRAPHQL_VALIDATION_FAILED
}

pub(crate) fn code_of(err: &ServerError) -> Option<&Value> {
    err.extensions.as_ref().and_then(|ext| ext.get("code"))
}

fn with_code(mut err: ServerError, code: &'static str) -> ServerError {
    if code_of(&err).is_none() {
        err.extensions
            .get_or_insert_with(ErrorExtensionValues::default)
            .set("code", code);
    }
    err
}

/// Errors without a code come from argument coercion (bad input, message safe to show) or from
/// somewhere unexpected (logged, replaced by a message that reveals nothing).
fn classify_uncoded(err: &mut ServerError) {
    let coercion = err.message.starts_with("Failed to parse")
        || err.message.starts_with("Invalid value for argument")
        || err.message.starts_with("Internal error: Failed to parse");
    if coercion {
        let ext = err
            .extensions
            .get_or_insert_with(ErrorExtensionValues::default);
        ext.set("code", codes::BAD_USER_INPUT);
        if let Some(async_graphql::PathSegment::Field(field)) = err.path.last() {
            ext.set("field", field.as_str());
        }
    } else {
        tracing::error!(error = %err.message, "uncoded GraphQL error");
        err.message = ApiError::Internal.message();
        err.extensions
            .get_or_insert_with(ErrorExtensionValues::default)
            .set("code", codes::INTERNAL);
    }
}
