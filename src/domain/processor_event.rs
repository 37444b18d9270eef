//! Signing and checking processor webhooks: HMAC-SHA256 over `"{timestamp}.{body}"`, sent as
//! `Graphpay-Signature: t=<unix seconds>,v1=<hex>`; older or newer than five minutes is refused.

use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

/// The header carrying the signature.
pub const SIGNATURE_HEADER: &str = "graphpay-signature";
/// How far a webhook's timestamp may be from now, in seconds.
pub const TOLERANCE_SECONDS: i64 = 300;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WebhookRejection {
    Missing,
    Malformed,
    BadSignature,
    OutsideWindow,
}

fn mac(secret: &[u8], timestamp: i64, body: &[u8]) -> Hmac<Sha256> {
    // HMAC accepts keys of any length.
    let mut mac =
        <Hmac<Sha256> as KeyInit>::new_from_slice(secret).unwrap_or_else(|_| unreachable!());
    mac.update(timestamp.to_string().as_bytes());
    mac.update(b".");
    mac.update(body);
    mac
}

/// The header value for `body` sent at `timestamp` (Unix seconds).
pub fn sign(secret: &[u8], timestamp: i64, body: &[u8]) -> String {
    let tag = mac(secret, timestamp, body).finalize().into_bytes();
    format!("t={timestamp},v1={}", hex::encode(tag))
}

/// Checks a header value against the body, in constant time, and the timestamp against `now`.
pub fn verify(
    secret: &[u8],
    header: Option<&str>,
    body: &[u8],
    now: i64,
) -> Result<(), WebhookRejection> {
    let header = header.ok_or(WebhookRejection::Missing)?;
    let mut timestamp = None;
    let mut signatures = Vec::new();
    for part in header.split(',') {
        match part.trim().split_once('=') {
            Some(("t", t)) => timestamp = t.parse::<i64>().ok(),
            Some(("v1", sig)) => {
                signatures.push(hex::decode(sig).map_err(|_| WebhookRejection::Malformed)?)
            }
            _ => {}
        }
    }
    let timestamp = timestamp.ok_or(WebhookRejection::Malformed)?;
    if signatures.is_empty() {
        return Err(WebhookRejection::Malformed);
    }
    let valid = signatures
        .iter()
        .any(|sig| mac(secret, timestamp, body).verify_slice(sig).is_ok());
    if !valid {
        return Err(WebhookRejection::BadSignature);
    }
    if (now - timestamp).abs() > TOLERANCE_SECONDS {
        return Err(WebhookRejection::OutsideWindow);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_signed_body_verifies_within_the_window() {
        let header = sign(b"s", 1_000, b"{}");
        assert_eq!(verify(b"s", Some(&header), b"{}", 1_000), Ok(()));
        assert_eq!(verify(b"s", Some(&header), b"{}", 1_300), Ok(()));
        assert_eq!(verify(b"s", Some(&header), b"{}", 700), Ok(()));
    }

    #[test]
    fn everything_else_is_refused() {
        let header = sign(b"s", 1_000, b"{}");
        assert_eq!(
            verify(b"s", None, b"{}", 1_000),
            Err(WebhookRejection::Missing)
        );
        assert_eq!(
            verify(b"s", Some("nonsense"), b"{}", 1_000),
            Err(WebhookRejection::Malformed)
        );
        assert_eq!(
            verify(b"s", Some(&header), b"{ }", 1_000),
            Err(WebhookRejection::BadSignature)
        );
        assert_eq!(
            verify(b"other", Some(&header), b"{}", 1_000),
            Err(WebhookRejection::BadSignature)
        );
        assert_eq!(
            verify(b"s", Some(&header), b"{}", 1_301),
            Err(WebhookRejection::OutsideWindow)
        );
        let forged_time = header.replace("t=1000", "t=1200");
        assert_eq!(
            verify(b"s", Some(&forged_time), b"{}", 1_200),
            Err(WebhookRejection::BadSignature)
        );
    }
}

/// The kinds of processor events the gateway acts on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventKind {
    ChargeSucceeded,
    ChargeFailed,
    RefundSucceeded,
    RefundFailed,
}

impl EventKind {
    pub fn parse(kind: &str) -> Option<Self> {
        match kind {
            "charge.succeeded" => Some(EventKind::ChargeSucceeded),
            "charge.failed" => Some(EventKind::ChargeFailed),
            "refund.succeeded" => Some(EventKind::RefundSucceeded),
            "refund.failed" => Some(EventKind::RefundFailed),
            _ => None,
        }
    }
}
