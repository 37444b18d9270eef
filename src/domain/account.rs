//! Merchant accounts and the API keys that act for them.

use super::time::Timestamp;

/// A merchant account: the owner of API keys and payments.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Account {
    /// `acct_...`
    pub id: String,
    pub name: String,
    pub created_at: Timestamp,
}

/// An API key as it is kept: never its secret, only a visible prefix.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ApiKey {
    /// `key_...`
    pub id: String,
    pub account_id: String,
    /// The first characters of the secret, to recognise it by.
    pub prefix: String,
    pub created_at: Timestamp,
    pub revoked_at: Option<Timestamp>,
}
