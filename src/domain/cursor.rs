//! Opaque, signed, versioned page cursors.
//!
//! Layout before encoding (base64url, no padding), version 2:
//! `version (1) | key id (2, big-endian) | sort key (8, big-endian i64) | id suffix (16, ULID
//! bytes) | filter and order fingerprint (8) | HMAC-SHA256 over all of the above, first 16
//! bytes`. Version 1, issued before signing secrets could be rotated, has no key id and is
//! checked with the first secret while that one is live.
//! The id's prefix is implied by the list the cursor pages through (payments, webhook
//! endpoints, deliveries), whose fingerprint it carries; the secrets are kept in the database
//! ([`Keyring`]), so every instance and every restart accepts the same cursors.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::Mac;
use ulid::Ulid;

use super::ids::{IdKind, is_id_of};
use super::keyring::{FIRST_KID, Keyring};
use super::paging::Position;

pub const CURSOR_VERSION: u8 = 2;
/// Cursors without a key id, signed with the first secret.
const UNKEYED_VERSION: u8 = 1;
const TAG_LEN: usize = 16;
/// Sort key, id suffix and fingerprint.
const FIELDS_LEN: usize = 8 + 16 + 8;
const UNKEYED_LEN: usize = 1 + FIELDS_LEN + TAG_LEN;
const CURSOR_LEN: usize = 1 + 2 + FIELDS_LEN + TAG_LEN;
/// A cursor's length as text: base64 without padding.
const CURSOR_TEXT_LEN: usize = (CURSOR_LEN * 4).div_ceil(3);

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CursorError {
    /// Not issued by this server: malformed, tampered with, signed with another key (or a
    /// retired one), or of a version this server does not read.
    Invalid(&'static str),
    /// Issued for a different filter or order.
    Mismatch,
}

/// Signs and checks cursors with the server's signing secrets.
#[derive(Clone, Debug)]
pub struct CursorCodec {
    keys: Keyring,
}

impl CursorCodec {
    /// A codec with one secret, the first.
    pub fn new(secret: &[u8]) -> Self {
        Self::with_keys(Keyring::single(secret))
    }

    pub fn with_keys(keys: Keyring) -> Self {
        Self { keys }
    }

    pub fn encode(&self, position: &Position, fingerprint: [u8; 8]) -> String {
        self.encode_at(position.key, &position.id, fingerprint)
    }

    /// [`CursorCodec::encode`] of the position `(key, id)` as a listed row holds them, with no
    /// `Position` to build.
    pub fn encode_at(&self, key: i64, id: &str, fingerprint: [u8; 8]) -> String {
        self.signer().encode_at(key, id, fingerprint)
    }

    /// The active secret, taken once to sign many cursors (a page's).
    pub fn signer(&self) -> Signer {
        let (kid, material) = self.keys.active();
        Signer { kid, material }
    }

    /// A cursor as the gateway signed them before its secrets had ids: no key id, the first
    /// secret, version 1.
    #[cfg(any(test, feature = "test-support"))]
    pub fn encode_unkeyed(&self, position: &Position, fingerprint: [u8; 8]) -> String {
        self.encode_version(UNKEYED_VERSION, position, fingerprint)
    }

    /// A cursor of any version byte without a key id, as another server might sign one.
    #[cfg(any(test, feature = "test-support"))]
    fn encode_version(&self, version: u8, position: &Position, fingerprint: [u8; 8]) -> String {
        let Some(material) = self.keys.get(FIRST_KID) else {
            return String::new();
        };
        let mut bytes = vec![version];
        bytes.extend_from_slice(&fields(position.key, &position.id, fingerprint));
        sealed(bytes, material.cursor.clone())
    }

    /// Checks a payment cursor's signature and version, then that it belongs to `fingerprint`.
    pub fn decode(&self, cursor: &str, fingerprint: [u8; 8]) -> Result<Position, CursorError> {
        self.decode_for(IdKind::Payment, cursor, fingerprint)
    }

    /// [`CursorCodec::decode`] for a list of objects of `kind`.
    pub fn decode_for(
        &self,
        kind: IdKind,
        cursor: &str,
        fingerprint: [u8; 8],
    ) -> Result<Position, CursorError> {
        const FOREIGN: CursorError = CursorError::Invalid("not a cursor issued by this server");
        let bytes = URL_SAFE_NO_PAD.decode(cursor).map_err(|_| FOREIGN)?;
        let (kid, fields_at) = match (bytes.first(), bytes.len()) {
            (Some(&CURSOR_VERSION), CURSOR_LEN) => (u16::from_be_bytes([bytes[1], bytes[2]]), 3),
            (Some(&UNKEYED_VERSION), UNKEYED_LEN) => (FIRST_KID, 1),
            (Some(_), CURSOR_LEN | UNKEYED_LEN) => {
                return Err(CursorError::Invalid(
                    "the cursor's version is not supported",
                ));
            }
            _ => return Err(FOREIGN),
        };
        let (body, tag) = bytes.split_at(bytes.len() - TAG_LEN);
        let material = self.keys.get(kid).ok_or(CursorError::Invalid(
            "the cursor was signed with a secret this server no longer accepts",
        ))?;
        let mut mac = material.cursor.clone();
        mac.update(body);
        mac.verify_truncated_left(tag)
            .map_err(|_| CursorError::Invalid("the cursor's signature does not match"))?;
        let fields = &body[fields_at..];
        if fields[24..32] != fingerprint {
            return Err(CursorError::Mismatch);
        }
        let key = i64::from_be_bytes(fields[0..8].try_into().unwrap_or_default());
        let ulid_bytes: [u8; 16] = fields[8..24].try_into().unwrap_or_default();
        let id = format!("{}{}", kind.prefix(), Ulid::from_bytes(ulid_bytes));
        if !is_id_of(kind, &id) {
            return Err(FOREIGN);
        }
        Ok(Position { key, id })
    }
}

/// Signs cursors with the secret that was active when it was made ([`CursorCodec::signer`]).
pub struct Signer {
    kid: u16,
    material: std::sync::Arc<super::keyring::Material>,
}

impl Signer {
    /// [`CursorCodec::encode_at`].
    pub fn encode_at(&self, key: i64, id: &str, fingerprint: [u8; 8]) -> String {
        let mut text = String::with_capacity(CURSOR_TEXT_LEN);
        URL_SAFE_NO_PAD.encode_string(self.signed(key, id, fingerprint), &mut text);
        text
    }

    /// The cursor of [`Signer::encode_at`] as a JSON string, appended to `out` (its
    /// characters, base64url, need no escaping).
    pub fn write_at(&self, key: i64, id: &str, fingerprint: [u8; 8], out: &mut Vec<u8>) {
        let signed = self.signed(key, id, fingerprint);
        let start = out.len() + 1;
        out.resize(start + CURSOR_TEXT_LEN + 1, b'"');
        let written = URL_SAFE_NO_PAD
            .encode_slice(signed, &mut out[start..start + CURSOR_TEXT_LEN])
            .unwrap_or(0);
        out.truncate(start + written);
        out.push(b'"');
    }

    /// The cursor's bytes, made on the stack: a page signs one per row.
    fn signed(&self, key: i64, id: &str, fingerprint: [u8; 8]) -> [u8; CURSOR_LEN] {
        let mut bytes = [0; CURSOR_LEN];
        bytes[0] = CURSOR_VERSION;
        bytes[1..3].copy_from_slice(&self.kid.to_be_bytes());
        bytes[3..3 + FIELDS_LEN].copy_from_slice(&fields(key, id, fingerprint));
        let mut mac = self.material.cursor.clone();
        mac.update(&bytes[..3 + FIELDS_LEN]);
        let tag = mac.finalize().into_bytes();
        bytes[3 + FIELDS_LEN..].copy_from_slice(&tag[..TAG_LEN]);
        bytes
    }
}

/// The sort key, the id's ULID bytes and the fingerprint.
fn fields(key: i64, id: &str, fingerprint: [u8; 8]) -> [u8; FIELDS_LEN] {
    // The id's prefix is a few ASCII letters: a byte scan finds its `_` where a general
    // character search set itself up for every row's cursor.
    let suffix = id
        .bytes()
        .position(|b| b == b'_')
        .map_or("", |at| &id[at + 1..]);
    let ulid = Ulid::from_string(suffix).unwrap_or_default();
    let mut fields = [0; FIELDS_LEN];
    fields[..8].copy_from_slice(&key.to_be_bytes());
    fields[8..24].copy_from_slice(&ulid.to_bytes());
    fields[24..].copy_from_slice(&fingerprint);
    fields
}

/// The cursor text of `bytes` with their tag appended.
#[cfg(any(test, feature = "test-support"))]
fn sealed(mut bytes: Vec<u8>, mut mac: hmac::Hmac<sha2::Sha256>) -> String {
    mac.update(&bytes);
    let tag = mac.finalize().into_bytes();
    bytes.extend_from_slice(&tag[..TAG_LEN]);
    URL_SAFE_NO_PAD.encode(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::ids::new_id;

    fn position() -> Position {
        Position {
            key: 1_764_475_308_000_120,
            id: new_id(IdKind::Payment),
        }
    }

    #[test]
    fn a_cursor_written_as_json_is_the_cursor_as_a_json_string() {
        let codec = CursorCodec::new(b"secret");
        let at = position();
        let signer = codec.signer();
        let mut out = b"[".to_vec();
        signer.write_at(at.key, &at.id, [7; 8], &mut out);
        out.push(b']');
        let text = codec.encode_at(at.key, &at.id, [7; 8]);
        assert_eq!(text.len(), CURSOR_TEXT_LEN);
        assert_eq!(out, serde_json::to_vec(&[&text]).expect("json"));
        assert_eq!(codec.decode(&text, [7; 8]), Ok(at));
    }

    #[test]
    fn a_cursor_round_trips_and_is_url_safe() {
        let codec = CursorCodec::new(b"secret");
        let p = position();
        let cursor = codec.encode(&p, [1; 8]);
        assert!(
            cursor
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        );
        assert_eq!(codec.decode(&cursor, [1; 8]), Ok(p));
    }

    #[test]
    fn negative_and_extreme_keys_round_trip() {
        let codec = CursorCodec::new(b"secret");
        for key in [i64::MIN, -1, 0, i64::MAX] {
            let p = Position { key, ..position() };
            assert_eq!(codec.decode(&codec.encode(&p, [0; 8]), [0; 8]), Ok(p));
        }
    }

    #[test]
    fn tampered_truncated_and_foreign_cursors_are_invalid() {
        let codec = CursorCodec::new(b"secret");
        let cursor = codec.encode(&position(), [1; 8]);
        let mut bytes = URL_SAFE_NO_PAD.decode(&cursor).unwrap();
        bytes[3] ^= 1;
        let tampered = URL_SAFE_NO_PAD.encode(&bytes);
        let foreign = CursorCodec::new(b"other").encode(&position(), [1; 8]);
        for bad in [
            &tampered,
            &cursor[..cursor.len() - 2].to_string(),
            &foreign,
            &"".to_string(),
            &"!!".to_string(),
        ] {
            assert!(
                matches!(codec.decode(bad, [1; 8]), Err(CursorError::Invalid(_))),
                "{bad}"
            );
        }
    }

    #[test]
    fn another_version_is_invalid_even_when_signed() {
        let codec = CursorCodec::new(b"secret");
        let cursor = codec.encode_version(3, &position(), [1; 8]);
        assert_eq!(
            codec.decode(&cursor, [1; 8]),
            Err(CursorError::Invalid(
                "the cursor's version is not supported"
            ))
        );
    }

    #[test]
    fn a_cursor_from_another_listing_is_a_mismatch() {
        let codec = CursorCodec::new(b"secret");
        let cursor = codec.encode(&position(), [1; 8]);
        assert_eq!(codec.decode(&cursor, [2; 8]), Err(CursorError::Mismatch));
    }

    #[test]
    fn cursors_of_every_live_secret_decode_and_a_retired_ones_do_not() {
        use crate::domain::keyring::{Keyring, SigningKey};
        use crate::domain::time::Timestamp;
        let at = position();
        let keys = Keyring::single(b"first");
        let codec = CursorCodec::with_keys(keys.clone());
        let unkeyed = codec.encode_unkeyed(&at, [1; 8]);
        let first = codec.encode(&at, [1; 8]);
        assert_eq!(codec.decode(&unkeyed, [1; 8]), Ok(at.clone()));
        let now = Timestamp::now();
        let key = |kid: u16, secret: &str, retired: bool| SigningKey {
            kid,
            secret: secret.into(),
            created_at: now.plus_seconds(-60),
            retired_at: retired.then_some(now),
        };
        let settle = std::time::Duration::from_secs(1);
        keys.replace(
            &[key(0, "first", false), key(1, "second", false)],
            now,
            settle,
        );
        let second = codec.encode(&at, [1; 8]);
        assert_ne!(second, first);
        for cursor in [&unkeyed, &first, &second] {
            assert_eq!(codec.decode(cursor, [1; 8]), Ok(at.clone()));
        }
        keys.replace(
            &[key(0, "first", true), key(1, "second", false)],
            now,
            settle,
        );
        assert_eq!(codec.decode(&second, [1; 8]), Ok(at.clone()));
        for cursor in [&unkeyed, &first] {
            assert!(matches!(
                codec.decode(cursor, [1; 8]),
                Err(CursorError::Invalid(_))
            ));
        }
    }
}
