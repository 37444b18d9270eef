//! Signatures on outgoing merchant webhooks, following the Standard Webhooks specification
//! (<https://www.standardwebhooks.com/>), so merchants can verify deliveries with any of its
//! libraries. Each endpoint has a secret `whsec_<base64 key>`; each delivery carries
//! `webhook-id`, `webhook-timestamp` (Unix seconds) and
//! `webhook-signature: v1,<base64 HMAC-SHA256(key, "{id}.{timestamp}.{body}")>`.

use std::fmt;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use hmac::{Hmac, KeyInit, Mac};
use rand::RngCore;
use sha2::Sha256;

/// Header carrying the delivery's unique id (the same on every retry of one event).
pub const HEADER_ID: &str = "webhook-id";
/// Header carrying the time of signing, in Unix seconds.
pub const HEADER_TIMESTAMP: &str = "webhook-timestamp";
/// Header carrying the signature, `v1,<base64>`.
pub const HEADER_SIGNATURE: &str = "webhook-signature";

/// The prefix of every secret.
pub const SECRET_PREFIX: &str = "whsec_";
/// Bytes of key in a generated secret.
const GENERATED_KEY_LEN: usize = 32;
/// Shortest and longest key the specification allows, in bytes.
const KEY_LEN: std::ops::RangeInclusive<usize> = 24..=64;

/// An endpoint's signing secret, `whsec_` followed by the base64 of 24 to 64 random bytes.
/// Shown to the merchant once; its `Debug` output never contains it.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// A new secret with a 32-byte key from the operating system's random source.
    pub fn generate() -> Secret {
        let mut key = [0u8; GENERATED_KEY_LEN];
        rand::rng().fill_bytes(&mut key);
        Secret(format!("{SECRET_PREFIX}{}", STANDARD.encode(key)))
    }

    /// Reads a stored secret: `None` unless it is `whsec_` + standard base64 of 24 to 64
    /// bytes.
    pub fn parse(text: &str) -> Option<Secret> {
        let key = decode_key(text)?;
        KEY_LEN
            .contains(&key.len())
            .then(|| Secret(text.to_owned()))
    }

    /// The secret as shown to the merchant and stored.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The HMAC key. A `Secret` is only made by [`Secret::generate`] or [`Secret::parse`],
    /// both of which guarantee the text decodes.
    fn key(&self) -> Vec<u8> {
        decode_key(&self.0).unwrap_or_default()
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(whsec_…)")
    }
}

fn decode_key(text: &str) -> Option<Vec<u8>> {
    let encoded = text.strip_prefix(SECRET_PREFIX)?;
    STANDARD.decode(encoded).ok()
}

/// The three signature headers of one delivery attempt.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SignedHeaders {
    /// `webhook-id`: the event delivery's id.
    pub id: String,
    /// `webhook-timestamp`: when the attempt was signed, in Unix seconds.
    pub timestamp: i64,
    /// `webhook-signature`: `v1,<base64 HMAC-SHA256>`.
    pub signature: String,
}

/// Signs `body` for delivery `id` at `timestamp` (Unix seconds) with each of the endpoint's
/// secrets (the current one first, then one being rolled out): `webhook-signature` lists one
/// `v1,<base64>` per secret, separated by spaces, as the specification allows, and a receiver
/// accepts the delivery when any of them verifies with the secret it holds.
pub fn sign(secrets: &[Secret], id: &str, timestamp: i64, body: &[u8]) -> SignedHeaders {
    let signature = secrets
        .iter()
        .map(|secret| {
            format!(
                "v1,{}",
                STANDARD.encode(mac(&secret.key(), id, timestamp, body))
            )
        })
        .collect::<Vec<_>>()
        .join(" ");
    SignedHeaders {
        id: id.to_owned(),
        timestamp,
        signature,
    }
}

fn mac(key: &[u8], id: &str, timestamp: i64, body: &[u8]) -> Vec<u8> {
    // HMAC takes keys of any length, so this never fails.
    let Ok(mut mac) = <Hmac<Sha256> as KeyInit>::new_from_slice(key) else {
        return Vec::new();
    };
    mac.update(id.as_bytes());
    mac.update(b".");
    mac.update(timestamp.to_string().as_bytes());
    mac.update(b".");
    mac.update(body);
    mac.finalize().into_bytes().to_vec()
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::{HeaderMap, HeaderValue};
    use standardwebhooks::Webhook;

    const BODY: &[u8] = br#"{"type":"payment.succeeded","data":{"id":"pay_1"}}"#;

    fn headers(signed: &SignedHeaders) -> HeaderMap {
        let mut map = HeaderMap::new();
        let value = |s: &str| HeaderValue::from_str(s).expect("header value");
        map.insert(HEADER_ID, value(&signed.id));
        map.insert(HEADER_TIMESTAMP, value(&signed.timestamp.to_string()));
        map.insert(HEADER_SIGNATURE, value(&signed.signature));
        map
    }

    fn now() -> i64 {
        time::OffsetDateTime::now_utc().unix_timestamp()
    }

    #[test]
    fn known_answer_from_the_specification() {
        // The test vector of the Standard Webhooks reference libraries.
        let secret = Secret::parse("whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD").expect("secret");
        let signed = sign(
            std::slice::from_ref(&secret),
            "msg_27UH4WbU6Z5A5EzD8u03UvzRbpk",
            1649367553,
            br#"{"email":"test@example.com","username":"test_user"}"#,
        );
        assert_eq!(
            signed.signature,
            "v1,tZ1I4/hDygAJgO5TYxiSd6Sd0kDW6hPenDe+bTa3Kkw="
        );
    }

    #[test]
    fn the_reference_library_verifies_our_signatures() {
        let secret = Secret::generate();
        let signed = sign(std::slice::from_ref(&secret), "msg_01J", now(), BODY);
        let webhook = Webhook::new(secret.as_str()).expect("reference library reads the secret");
        webhook
            .verify(BODY, &headers(&signed))
            .expect("signature verifies");
    }

    #[test]
    fn two_secrets_sign_so_that_either_verifies_and_no_third() {
        let (new, old, other) = (Secret::generate(), Secret::generate(), Secret::generate());
        let signed = sign(&[new.clone(), old.clone()], "msg_01J", now(), BODY);
        assert_eq!(signed.signature.split(' ').count(), 2);
        assert!(
            signed
                .signature
                .split(' ')
                .all(|part| part.starts_with("v1,"))
        );
        for secret in [&new, &old] {
            let webhook = Webhook::new(secret.as_str()).expect("secret");
            webhook
                .verify(BODY, &headers(&signed))
                .expect("either secret verifies");
        }
        let webhook = Webhook::new(other.as_str()).expect("secret");
        assert!(webhook.verify(BODY, &headers(&signed)).is_err());
    }

    #[test]
    fn the_reference_library_rejects_a_tampered_body_id_or_secret() {
        let secret = Secret::generate();
        let signed = sign(std::slice::from_ref(&secret), "msg_01J", now(), BODY);
        let webhook = Webhook::new(secret.as_str()).expect("secret");
        let tampered = br#"{"type":"payment.succeeded","data":{"id":"pay_2"}}"#;
        assert!(webhook.verify(tampered, &headers(&signed)).is_err());

        let other_id = SignedHeaders {
            id: "msg_02K".into(),
            ..signed.clone()
        };
        assert!(webhook.verify(BODY, &headers(&other_id)).is_err());

        let other = Webhook::new(Secret::generate().as_str()).expect("secret");
        assert!(other.verify(BODY, &headers(&signed)).is_err());
    }

    #[test]
    fn generated_secrets_parse_and_differ() {
        let a = Secret::generate();
        let b = Secret::generate();
        assert_ne!(a, b);
        assert!(a.as_str().starts_with(SECRET_PREFIX));
        assert_eq!(Secret::parse(a.as_str()), Some(a.clone()));
        assert_eq!(a.key().len(), GENERATED_KEY_LEN);
    }

    #[test]
    fn parse_accepts_only_24_to_64_byte_keys_with_the_prefix() {
        let with_len = |n: usize| format!("{SECRET_PREFIX}{}", STANDARD.encode(vec![7u8; n]));
        assert!(Secret::parse(&with_len(23)).is_none());
        assert!(Secret::parse(&with_len(24)).is_some());
        assert!(Secret::parse(&with_len(64)).is_some());
        assert!(Secret::parse(&with_len(65)).is_none());
        let unprefixed = STANDARD.encode([7u8; 32]);
        assert!(Secret::parse(&unprefixed).is_none());
        assert!(Secret::parse("whsec_not base64!").is_none());
        assert!(Secret::parse("").is_none());
    }

    #[test]
    fn debug_does_not_reveal_the_secret() {
        let secret = Secret::generate();
        let shown = format!("{secret:?}");
        let encoded = secret.as_str().trim_start_matches(SECRET_PREFIX);
        assert!(!shown.contains(encoded), "{shown}");
    }
}
