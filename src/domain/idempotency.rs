//! Idempotency rules: key validation, request fingerprints, and what to do with a key that is
//! already claimed. No I/O here; the flow that applies these rules is `service::idempotency`.

use sha2::{Digest, Sha256};

use super::submit_token;
use super::time::Timestamp;

/// Longest key accepted, in characters.
pub const MAX_KEY_LEN: usize = 255;

/// A client-chosen key: 1 to 255 printable ASCII characters; or a submit token
/// (`sbt_...`), which is kept as its hash.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IdempotencyKey {
    /// What the key is stored as.
    stored: String,
    /// The hash of the submit token the key is, if it is one.
    submit_token: Option<String>,
}

impl IdempotencyKey {
    pub fn parse(key: &str) -> Result<Self, String> {
        if key.is_empty() {
            return Err("idempotencyKey must not be empty".into());
        }
        if key.len() > MAX_KEY_LEN {
            return Err(format!(
                "idempotencyKey must be at most {MAX_KEY_LEN} characters, got {}",
                key.len()
            ));
        }
        if !key.bytes().all(|b| (0x20..=0x7e).contains(&b)) {
            return Err("idempotencyKey may contain only printable ASCII characters".into());
        }
        if submit_token::is_submit_token(key) {
            let hash = submit_token::hash(key);
            return Ok(Self {
                stored: submit_token::stored_key(&hash),
                submit_token: Some(hash),
            });
        }
        Ok(Self {
            stored: key.to_string(),
            submit_token: None,
        })
    }

    /// The key as it is stored (a submit token's is its hash).
    pub fn as_str(&self) -> &str {
        &self.stored
    }

    /// The hash of the submit token this key is, if it is one.
    pub fn submit_token_hash(&self) -> Option<&str> {
        self.submit_token.as_deref()
    }
}

/// SHA-256 over the operation name and the canonical JSON of its input (object keys sorted,
/// no insignificant whitespace), hex encoded.
pub fn fingerprint(operation: &str, input: &serde_json::Value) -> String {
    let mut hasher = Sha256::new();
    hasher.update(operation.as_bytes());
    hasher.update([0u8]);
    hasher.update(canonical_json(input).as_bytes());
    hex::encode(hasher.finalize())
}

fn canonical_json(value: &serde_json::Value) -> String {
    match value {
        serde_json::Value::Object(map) => {
            let mut entries: Vec<_> = map.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            let parts: Vec<String> = entries
                .into_iter()
                .map(|(k, v)| {
                    format!(
                        "{}:{}",
                        serde_json::Value::from(k.as_str()),
                        canonical_json(v)
                    )
                })
                .collect();
            format!("{{{}}}", parts.join(","))
        }
        serde_json::Value::Array(items) => {
            format!(
                "[{}]",
                items
                    .iter()
                    .map(canonical_json)
                    .collect::<Vec<_>>()
                    .join(",")
            )
        }
        other => other.to_string(),
    }
}

/// Where a claimed key stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyState {
    /// A request holds (or held, until it crashed or released it) the claim.
    Started,
    /// The outcome is stored.
    Done,
}

impl KeyState {
    pub const fn as_str(self) -> &'static str {
        match self {
            KeyState::Started => "started",
            KeyState::Done => "done",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "started" => Some(KeyState::Started),
            "done" => Some(KeyState::Done),
            _ => None,
        }
    }
}

/// What a request must do about a key another request claimed first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    /// Return the stored outcome, marked as replayed.
    Replay,
    /// The first request is still running: come back later.
    InProgress { retry_after_seconds: i64 },
    /// The claim was released or abandoned: take it over and execute again.
    TakeOver,
    /// The key was used for a different request.
    Reused,
}

/// Decides what to do with an existing claim. `locked_at` is `None` once the claim was
/// released (after a retryable processor failure).
pub fn decide(
    state: KeyState,
    stored_fingerprint: &str,
    fingerprint: &str,
    locked_at: Option<Timestamp>,
    now: Timestamp,
    lock_timeout_seconds: i64,
) -> Decision {
    if stored_fingerprint != fingerprint {
        return Decision::Reused;
    }
    match (state, locked_at) {
        (KeyState::Done, _) => Decision::Replay,
        (KeyState::Started, None) => Decision::TakeOver,
        (KeyState::Started, Some(locked)) => {
            let expires = locked.plus_seconds(lock_timeout_seconds);
            if now >= expires {
                Decision::TakeOver
            } else {
                let left = (expires.micros() - now.micros()).div_euclid(1_000_000) + 1;
                Decision::InProgress {
                    retry_after_seconds: left.max(1),
                }
            }
        }
    }
}

/// A stored idempotency key: who claimed it for what, and what became of the request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IdempotencyRecord {
    pub account_id: String,
    pub key: String,
    pub operation: String,
    /// The request's fingerprint.
    pub request_hash: String,
    pub state: KeyState,
    /// When the current claim was taken; `None` once done or released.
    pub locked_at: Option<crate::domain::time::Timestamp>,
    pub payment_id: Option<String>,
    pub refund_id: Option<String>,
    /// The stored outcome (its format is the storage's business).
    pub outcome: Option<String>,
    pub created_at: crate::domain::time::Timestamp,
    pub updated_at: crate::domain::time::Timestamp,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn keys_follow_the_contract() {
        assert!(IdempotencyKey::parse("order-42").is_ok());
        assert!(IdempotencyKey::parse(&"k".repeat(255)).is_ok());
        assert!(IdempotencyKey::parse("with space").is_ok());
        for bad in ["", "tab\there", "é", "new\nline"] {
            assert!(IdempotencyKey::parse(bad).is_err(), "{bad:?}");
        }
        assert!(IdempotencyKey::parse(&"k".repeat(256)).is_err());
    }

    #[test]
    fn fingerprints_ignore_key_order_but_not_values_or_operation() {
        let a = fingerprint("createPayment", &json!({"amount": 100, "currency": "USD"}));
        let b = fingerprint("createPayment", &json!({"currency": "USD", "amount": 100}));
        assert_eq!(a, b);
        assert_ne!(
            a,
            fingerprint("createPayment", &json!({"amount": 101, "currency": "USD"}))
        );
        assert_ne!(
            a,
            fingerprint("confirmPayment", &json!({"amount": 100, "currency": "USD"}))
        );
    }

    #[test]
    fn decisions() {
        let now = Timestamp::from_micros(100_000_000);
        let fp = "f";
        assert_eq!(
            decide(KeyState::Done, fp, "g", None, now, 60),
            Decision::Reused
        );
        assert_eq!(
            decide(KeyState::Done, fp, fp, None, now, 60),
            Decision::Replay
        );
        assert_eq!(
            decide(KeyState::Started, fp, fp, None, now, 60),
            Decision::TakeOver
        );
        assert_eq!(
            decide(
                KeyState::Started,
                fp,
                fp,
                Some(now.plus_seconds(-10)),
                now,
                60
            ),
            Decision::InProgress {
                retry_after_seconds: 51
            }
        );
        assert_eq!(
            decide(
                KeyState::Started,
                fp,
                fp,
                Some(now.plus_seconds(-60)),
                now,
                60
            ),
            Decision::TakeOver
        );
    }
}
