//! What the flows can refuse or fail with, in the service's own terms; `crate::error` turns
//! each into the contract's code.

use crate::domain::state_machine::InvalidTransition;
use crate::persistence::DbError;

/// Why a flow did not do what it was asked.
#[derive(Debug)]
pub enum ServiceError {
    /// An argument that does not hold; `field` names it as the client sent it.
    BadInput {
        field: String,
        message: String,
    },
    InvalidAmount(String),
    /// The idempotency key cannot be used: an unknown or expired submit token, or a key of
    /// the client's own where a submit token is required.
    InvalidIdempotencyKey(String),
    /// The idempotency key was used for a different request.
    IdempotencyKeyReused,
    /// The first request with this key (or a concurrent writer) is still at work.
    RequestInProgress {
        retry_after_seconds: i64,
    },
    /// The payment's state does not allow the operation.
    InvalidTransition(InvalidTransition),
    RefundExceedsAvailable(String),
    /// The processor could not be reached; safe to retry with the same key.
    ProcessorUnavailable,
    /// The credential may not do this (`field`); `required_scope` names the scope that
    /// would allow it, `None` when only an unrestricted secret key may.
    Forbidden {
        field: String,
        required_scope: Option<&'static str>,
    },
    /// Storage failed.
    Store(DbError),
    /// Something that should not happen; the text is for the log only.
    Internal(String),
}

impl ServiceError {
    pub fn bad_input(field: &str, message: impl Into<String>) -> Self {
        ServiceError::BadInput {
            field: field.to_string(),
            message: message.into(),
        }
    }

    pub fn internal(cause: impl std::fmt::Display) -> Self {
        ServiceError::Internal(cause.to_string())
    }
}

impl From<DbError> for ServiceError {
    fn from(err: DbError) -> Self {
        ServiceError::Store(err)
    }
}

impl From<InvalidTransition> for ServiceError {
    fn from(refused: InvalidTransition) -> Self {
        ServiceError::InvalidTransition(refused)
    }
}
