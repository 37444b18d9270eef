//! Client tokens: short-lived, signed credentials that a server holding a secret API key mints
//! for a browser, limited to some scopes.
//!
//! A token is `gpct_<payload>.<signature>`, both base64url without padding. The payload is
//! JSON naming the minting key, its account, the scopes and the expiry; the signature is an
//! HMAC-SHA256 of the payload's base64 text under a secret every instance shares. Nothing is
//! stored per token: a token is checked by its signature and expiry, and by its minting key
//! still being live, so revoking the key revokes every token it minted.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::Mac;
use serde::{Deserialize, Serialize};

use super::keyring::Keyring;
pub use super::scope::{Scope, Scopes};
use super::time::Timestamp;

/// Every client token starts with this, so that it is told from a secret key at a glance.
pub const TOKEN_PREFIX: &str = "gpct_";
/// The longest a token may live, in seconds (24 hours).
pub const MAX_TTL_SECONDS: i64 = 86_400;
/// How long a token lives when the minting request does not say, in seconds (1 hour).
pub const DEFAULT_TTL_SECONDS: i64 = 3_600;
/// Longest token accepted for checking at all: real ones are about 200 bytes.
const MAX_TOKEN_LEN: usize = 512;

/// What a token says, once its signature has been checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClientToken {
    /// The secret key that minted it (`key_...`); the token dies with it.
    pub key_id: String,
    pub account_id: String,
    pub scopes: Scopes,
    pub expires_at: Timestamp,
}

#[derive(Serialize, Deserialize)]
struct Claims {
    /// Format version.
    v: u8,
    /// The id of the signing secret; absent from tokens minted before secrets had ids, which
    /// the first secret signed.
    #[serde(default)]
    i: u16,
    k: String,
    a: String,
    s: u8,
    /// Expiry, in microseconds since the epoch.
    e: i64,
}

/// Why a token was not accepted. Callers answer every one of them with `UNAUTHENTICATED`;
/// the distinction is for tests and logs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TokenRejected {
    #[error("not a client token")]
    Malformed,
    #[error("the signature does not match")]
    Forged,
    #[error("the token has expired")]
    Expired,
}

/// Signs and checks tokens with the gateway's signing secrets (shared by all instances).
#[derive(Clone)]
pub struct TokenSigner {
    keys: Keyring,
}

impl TokenSigner {
    /// A signer with one secret, the first.
    pub fn new(secret: &[u8]) -> Self {
        Self::with_keys(Keyring::single(secret))
    }

    /// A signer with the live secrets of `keys`; each token is signed with a key derived
    /// from its secret for this purpose only, so that the same secret can sign cursors
    /// without one signature passing for the other.
    pub fn with_keys(keys: Keyring) -> Self {
        Self { keys }
    }

    pub fn mint(&self, token: &ClientToken) -> String {
        let (kid, material) = self.keys.active();
        let claims = Claims {
            v: 1,
            i: kid,
            k: token.key_id.clone(),
            a: token.account_id.clone(),
            s: token.scopes.bits(),
            e: token.expires_at.micros(),
        };
        let payload =
            URL_SAFE_NO_PAD.encode(serde_json::to_vec(&claims).expect("claims serialize"));
        let mut mac = material.token.clone();
        mac.update(payload.as_bytes());
        let signature = URL_SAFE_NO_PAD.encode(mac.finalize().into_bytes());
        format!("{TOKEN_PREFIX}{payload}.{signature}")
    }

    /// What `text` says, if a live secret signed it and it has not expired at `now`. The
    /// claims are read before the signature is checked only to learn which secret to check
    /// it with; nothing else of them is trusted until it matches.
    pub fn check(&self, text: &str, now: Timestamp) -> Result<ClientToken, TokenRejected> {
        if text.len() > MAX_TOKEN_LEN {
            return Err(TokenRejected::Malformed);
        }
        let body = text
            .strip_prefix(TOKEN_PREFIX)
            .ok_or(TokenRejected::Malformed)?;
        let (payload, signature) = body.split_once('.').ok_or(TokenRejected::Malformed)?;
        let signature = URL_SAFE_NO_PAD
            .decode(signature)
            .map_err(|_| TokenRejected::Malformed)?;
        let claims: Claims = URL_SAFE_NO_PAD
            .decode(payload)
            .ok()
            .and_then(|json| serde_json::from_slice(&json).ok())
            .ok_or(TokenRejected::Malformed)?;
        let material = self.keys.get(claims.i).ok_or(TokenRejected::Forged)?;
        let mut mac = material.token.clone();
        mac.update(payload.as_bytes());
        mac.verify_slice(&signature)
            .map_err(|_| TokenRejected::Forged)?;
        let scopes = Scopes::from_bits(claims.s).ok_or(TokenRejected::Malformed)?;
        if claims.v != 1 || scopes.is_empty() || !scopes.iter().all(Scope::fits_client_token) {
            return Err(TokenRejected::Malformed);
        }
        let expires_at = Timestamp::from_micros(claims.e);
        if expires_at <= now {
            return Err(TokenRejected::Expired);
        }
        Ok(ClientToken {
            key_id: claims.k,
            account_id: claims.a,
            scopes,
            expires_at,
        })
    }
}

/// Whether `text` has a client token's shape (as opposed to a secret key's).
pub fn looks_like_token(text: &str) -> bool {
    text.starts_with(TOKEN_PREFIX)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn token(scopes: &[Scope], expires_at: Timestamp) -> ClientToken {
        ClientToken {
            key_id: "key_1".into(),
            account_id: "acct_1".into(),
            scopes: scopes.iter().copied().collect(),
            expires_at,
        }
    }

    fn later(seconds: i64) -> Timestamp {
        Timestamp::from_micros(Timestamp::now().micros() + seconds * 1_000_000)
    }

    #[test]
    fn a_minted_token_checks_out_with_what_it_was_minted_with() {
        let signer = TokenSigner::new(b"secret");
        let minted = token(&[Scope::PaymentsRead, Scope::RefundsWrite], later(60));
        let text = signer.mint(&minted);
        assert!(looks_like_token(&text));
        assert_eq!(signer.check(&text, Timestamp::now()), Ok(minted));
    }

    #[test]
    fn expired_forged_tampered_and_malformed_tokens_are_refused() {
        let signer = TokenSigner::new(b"secret");
        let text = signer.mint(&token(&[Scope::PaymentsRead], later(60)));
        assert_eq!(
            signer.check(&text, later(61)),
            Err(TokenRejected::Expired),
            "checked after its expiry"
        );
        let other = TokenSigner::new(b"another secret");
        assert_eq!(
            other.check(&text, Timestamp::now()),
            Err(TokenRejected::Forged)
        );
        // Widening the scopes in the payload breaks the signature.
        let wider = other.mint(&token(&Scope::ALL, later(60)));
        let (_, wider_payload) = wider.split_once('_').unwrap();
        let (_, signature) = text.rsplit_once('.').unwrap();
        let (wider_payload, _) = wider_payload.split_once('.').unwrap();
        let spliced = format!("{TOKEN_PREFIX}{wider_payload}.{signature}");
        assert_eq!(
            signer.check(&spliced, Timestamp::now()),
            Err(TokenRejected::Forged)
        );
        for malformed in ["", "gpct_", "gpct_abc", "gpct_a.b!", "gpk_abc.def"] {
            assert!(
                signer.check(malformed, Timestamp::now()).is_err(),
                "{malformed}"
            );
        }
        assert_eq!(
            signer.check(&"x".repeat(10_000), Timestamp::now()),
            Err(TokenRejected::Malformed)
        );
    }
}
