//! Merchant accounts and the API keys that act for them.

use super::scope::Scopes;
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
    /// When a rolled key stops working (`None`: until revoked).
    pub expires_at: Option<Timestamp>,
    /// When the key last authenticated a request, to the minute.
    pub last_used_at: Option<Timestamp>,
    /// What the owner called it.
    pub name: Option<String>,
    /// What a restricted key may do; `None` for an unrestricted key (everything).
    pub scopes: Option<Scopes>,
}

/// The longest a rolled key may keep working beside its successor.
pub const MAX_ROLL_OVERLAP_SECS: i64 = 7 * 24 * 3600;

impl ApiKey {
    /// Whether the key authenticates requests at `now`: not revoked, and not past its expiry.
    pub fn is_live(&self, now: Timestamp) -> bool {
        self.revoked_at.is_none() && self.expires_at.is_none_or(|at| now < at)
    }

    /// What a listing says of the key at `now`.
    pub fn state(&self, now: Timestamp) -> &'static str {
        match (self.revoked_at, self.expires_at) {
            (Some(_), _) => "revoked",
            (None, Some(at)) if now >= at => "expired",
            (None, Some(_)) => "expiring",
            (None, None) => "active",
        }
    }
}

/// The longest name a key may have, in characters.
pub const MAX_KEY_NAME_CHARS: usize = 100;

/// The most live keys an account may hold at once when it creates keys through the API
/// (each roll adds one, and expires its predecessor).
pub const MAX_LIVE_KEYS: u64 = 100;

/// A key's name as given, trimmed: 1 to [`MAX_KEY_NAME_CHARS`] characters, none of them a
/// control character.
pub fn key_name(name: &str) -> Result<String, String> {
    let name = name.trim();
    let chars = name.chars().count();
    if chars == 0 || chars > MAX_KEY_NAME_CHARS {
        return Err(format!(
            "a key's name must be 1 to {MAX_KEY_NAME_CHARS} characters, got {chars}"
        ));
    }
    if name.chars().any(char::is_control) {
        return Err("a key's name must not contain control characters".into());
    }
    Ok(name.to_string())
}
