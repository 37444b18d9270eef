//! Submit tokens: one-time idempotency keys that the merchant's server obtains when it renders
//! a form (a checkout page) and that the form's submit carries. Its first use claims it like
//! any idempotency key, and every repeat replays that outcome, so one rendered form can move
//! money once however often it is submitted. Only the SHA-256 of a token is stored, both in
//! the token's own row and as the idempotency key it becomes.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use rand::RngCore;
use sha2::{Digest, Sha256};

/// Every submit token starts with this; an idempotency key that does is one.
pub const PREFIX: &str = "sbt_";
/// How long a token may be used first when the request does not say, in seconds.
pub const DEFAULT_TTL_SECONDS: i64 = 1_800;
/// The longest a token may wait for its first use, in seconds (24 hours).
pub const MAX_TTL_SECONDS: i64 = 86_400;
const RANDOM_BYTES: usize = 32;

/// A new token: the text is given to the caller once; only `hash` is stored.
pub struct NewSubmitToken {
    pub token: String,
    pub hash: String,
}

pub fn generate() -> NewSubmitToken {
    let mut bytes = [0u8; RANDOM_BYTES];
    rand::rng().fill_bytes(&mut bytes);
    let token = format!("{PREFIX}{}", URL_SAFE_NO_PAD.encode(bytes));
    NewSubmitToken {
        hash: hash(&token),
        token,
    }
}

/// Whether an idempotency key is meant as a submit token.
pub fn is_submit_token(key: &str) -> bool {
    key.starts_with(PREFIX)
}

/// The stored form of a token: lowercase hex SHA-256.
pub fn hash(token: &str) -> String {
    hex::encode(Sha256::digest(token.as_bytes()))
}

/// The idempotency key a token is stored as: the prefix and its hash. Keys that start with
/// the prefix are always stored this way, so no key of a client's own (which never does)
/// can meet a token's record.
pub fn stored_key(hash: &str) -> String {
    format!("{PREFIX}{hash}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_unique_prefixed_and_stored_only_as_their_hash() {
        let a = generate();
        let b = generate();
        assert_ne!(a.token, b.token);
        assert!(is_submit_token(&a.token));
        assert_eq!(a.token.len(), PREFIX.len() + 43);
        assert_eq!(hash(&a.token), a.hash);
        let stored = stored_key(&a.hash);
        assert!(!stored.contains(&a.token[PREFIX.len()..]));
        assert!(stored.len() <= super::super::idempotency::MAX_KEY_LEN);
        assert!(!is_submit_token("order-42"));
    }
}
