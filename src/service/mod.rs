//! Application services: the flows that combine domain rules, persistence and the processor.
//! No GraphQL here; resolvers call these.

pub mod accounts;
mod error;
pub mod feed;
pub mod idempotency;
pub mod payments;
pub mod processor_events;
pub mod rail;
pub mod readiness;
pub mod reconcile;
pub mod signing_keys;
pub(crate) mod stale;
pub mod submit_tokens;

use crate::domain::text;

pub use error::ServiceError;

/// An optional free-text input (`input.description`, `input.reason`): at most `max_chars`
/// characters and no control characters, or `BAD_USER_INPUT` naming the field.
pub(crate) fn check_free_text(
    field: &str,
    value: Option<&str>,
    max_chars: usize,
) -> Result<(), ServiceError> {
    if value.is_some_and(|v| !text::is_acceptable(v, max_chars)) {
        let name = field.rsplit('.').next().unwrap_or(field);
        return Err(ServiceError::bad_input(
            field,
            format!("{name} must be at most {max_chars} characters, without control characters"),
        ));
    }
    Ok(())
}
