//! Who a request acts for: the account an API key belongs to.

use super::ServiceError;
use crate::persistence::{Db, accounts};

/// The account whose live API key `secret` is, or `None` for an unknown, malformed or revoked
/// key.
pub async fn account_for_key(db: &Db, secret: &str) -> Result<Option<String>, ServiceError> {
    Ok(accounts::authenticate(db, secret).await?)
}
