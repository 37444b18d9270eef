//! Bearer credentials (secret API keys and client tokens), resolved on every request to who
//! the request acts for (through [`Keys`], which remembers live keys for half a second).

use axum::http::HeaderMap;
use axum::http::header::AUTHORIZATION;

use crate::error::ApiError;
use crate::service::accounts::{Caller, Keys};

/// The key from an `Authorization: Bearer <key>` value, if it has that shape.
pub fn bearer(value: Option<&str>) -> Option<&str> {
    let value = value?.trim();
    let (scheme, key) = value.split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| key.trim())
        .filter(|k| !k.is_empty())
}

/// Who the request's credential stands for, or `UNAUTHENTICATED`.
pub async fn caller_of(keys: &Keys, headers: &HeaderMap) -> Result<Caller, ApiError> {
    let header = headers.get(AUTHORIZATION).and_then(|v| v.to_str().ok());
    authenticate(keys, header).await
}

/// Checks an `Authorization` value (from a header or a WebSocket `connection_init`).
pub async fn authenticate(keys: &Keys, authorization: Option<&str>) -> Result<Caller, ApiError> {
    let credential = bearer(authorization).ok_or(ApiError::Unauthenticated)?;
    keys.caller(credential)
        .await?
        .ok_or(ApiError::Unauthenticated)
}

#[cfg(test)]
mod tests {
    use super::bearer;

    #[test]
    fn reads_bearer_values_only() {
        assert_eq!(bearer(Some("Bearer abc")), Some("abc"));
        assert_eq!(bearer(Some("bearer  abc ")), Some("abc"));
        assert_eq!(bearer(Some("Basic abc")), None);
        assert_eq!(bearer(Some("Bearer ")), None);
        assert_eq!(bearer(Some("abc")), None);
        assert_eq!(bearer(None), None);
    }
}
