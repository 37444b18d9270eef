//! API keys: random secrets shown once, stored only as a SHA-256 hash plus a short prefix.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use rand::RngCore;
use sha2::{Digest, Sha256};

/// Every key starts with this, so a leaked key is recognisable by secret scanners.
pub const KEY_PREFIX: &str = "gpk_";
/// Characters of a key kept in clear, to tell keys apart in listings.
pub const VISIBLE_PREFIX_LEN: usize = 12;
const KEY_RANDOM_BYTES: usize = 32;
const KEY_LEN: usize = KEY_PREFIX.len() + 43;

/// A freshly generated key; its secret is given to the owner once and never stored.
pub struct NewApiKey {
    pub secret: String,
    pub hash: String,
    pub prefix: String,
}

pub fn generate() -> NewApiKey {
    let mut bytes = [0u8; KEY_RANDOM_BYTES];
    rand::rng().fill_bytes(&mut bytes);
    let secret = format!("{KEY_PREFIX}{}", URL_SAFE_NO_PAD.encode(bytes));
    NewApiKey {
        hash: hash(&secret),
        prefix: secret[..VISIBLE_PREFIX_LEN].to_string(),
        secret,
    }
}

/// The stored form of a key: lowercase hex SHA-256.
pub fn hash(secret: &str) -> String {
    hex::encode(digest(secret))
}

/// The SHA-256 of a key, whose hex is what is stored.
pub fn digest(secret: &str) -> [u8; 32] {
    Sha256::digest(secret.as_bytes()).into()
}

/// Cheap shape check before any database work.
pub fn looks_like_key(candidate: &str) -> bool {
    candidate.len() == KEY_LEN
        && candidate.starts_with(KEY_PREFIX)
        && candidate[KEY_PREFIX.len()..]
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_keys_are_unique_well_formed_and_hash_to_what_is_stored() {
        let a = generate();
        let b = generate();
        assert_ne!(a.secret, b.secret);
        assert!(looks_like_key(&a.secret));
        assert_eq!(hash(&a.secret), a.hash);
        assert_eq!(a.hash.len(), 64);
        assert!(a.secret.starts_with(&a.prefix));
    }

    #[test]
    fn shape_check_refuses_other_strings() {
        assert!(!looks_like_key(""));
        assert!(!looks_like_key("gpk_short"));
        assert!(!looks_like_key(&format!("xyz_{}", "a".repeat(43))));
        assert!(!looks_like_key(&format!("gpk_{}", "!".repeat(43))));
    }
}
