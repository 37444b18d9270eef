//! Opaque, signed, versioned page cursors.
//!
//! Layout before encoding (base64url, no padding):
//! `version (1) | sort key (8, big-endian i64) | id suffix (16, ULID bytes) | filter and order
//! fingerprint (8) | HMAC-SHA256 over all of the above, first 16 bytes`.
//! The id's prefix is implied by the list the cursor pages through (payments, webhook
//! endpoints, deliveries), whose fingerprint it carries; the key is a server secret kept in the
//! database, so every instance and every restart accepts the same cursors.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;
use ulid::Ulid;

use super::ids::{IdKind, is_id_of};
use super::paging::Position;

pub const CURSOR_VERSION: u8 = 1;
const BODY_LEN: usize = 1 + 8 + 16 + 8;
const TAG_LEN: usize = 16;
const CURSOR_LEN: usize = BODY_LEN + TAG_LEN;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CursorError {
    /// Not issued by this server: malformed, tampered with, signed with another key, or of a
    /// version this server does not read.
    Invalid(&'static str),
    /// Issued for a different filter or order.
    Mismatch,
}

/// Signs and checks cursors with the server's secret.
#[derive(Clone)]
pub struct CursorCodec {
    /// The MAC with the secret already taken in; each cursor signs with a copy of it.
    keyed: Hmac<Sha256>,
}

impl std::fmt::Debug for CursorCodec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CursorCodec(<secret>)")
    }
}

impl CursorCodec {
    pub fn new(secret: &[u8]) -> Self {
        Self {
            // HMAC accepts keys of any length.
            keyed: <Hmac<Sha256> as KeyInit>::new_from_slice(secret)
                .unwrap_or_else(|_| unreachable!()),
        }
    }

    fn mac(&self) -> Hmac<Sha256> {
        self.keyed.clone()
    }

    pub fn encode(&self, position: &Position, fingerprint: [u8; 8]) -> String {
        self.encode_at(position.key, &position.id, fingerprint)
    }

    /// [`CursorCodec::encode`] of the position `(key, id)` as a listed row holds them, with no
    /// `Position` to build.
    pub fn encode_at(&self, key: i64, id: &str, fingerprint: [u8; 8]) -> String {
        self.encode_parts(CURSOR_VERSION, key, id, fingerprint)
    }

    /// A cursor of another version, as another server might sign one.
    #[cfg(test)]
    fn encode_version(&self, version: u8, position: &Position, fingerprint: [u8; 8]) -> String {
        self.encode_parts(version, position.key, &position.id, fingerprint)
    }

    fn encode_parts(&self, version: u8, key: i64, id: &str, fingerprint: [u8; 8]) -> String {
        let suffix = id.split_once('_').map_or("", |(_, suffix)| suffix);
        let ulid = Ulid::from_string(suffix).unwrap_or_default();
        let mut bytes = Vec::with_capacity(CURSOR_LEN);
        bytes.push(version);
        bytes.extend_from_slice(&key.to_be_bytes());
        bytes.extend_from_slice(&ulid.to_bytes());
        bytes.extend_from_slice(&fingerprint);
        let mut mac = self.mac();
        mac.update(&bytes);
        let tag = mac.finalize().into_bytes();
        bytes.extend_from_slice(&tag[..TAG_LEN]);
        URL_SAFE_NO_PAD.encode(bytes)
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
        let bytes = URL_SAFE_NO_PAD
            .decode(cursor)
            .map_err(|_| CursorError::Invalid("not a cursor issued by this server"))?;
        if bytes.len() != CURSOR_LEN {
            return Err(CursorError::Invalid("not a cursor issued by this server"));
        }
        let (body, tag) = bytes.split_at(BODY_LEN);
        let mut mac = self.mac();
        mac.update(body);
        mac.verify_truncated_left(tag)
            .map_err(|_| CursorError::Invalid("the cursor's signature does not match"))?;
        if body[0] != CURSOR_VERSION {
            return Err(CursorError::Invalid(
                "the cursor's version is not supported",
            ));
        }
        if body[25..33] != fingerprint {
            return Err(CursorError::Mismatch);
        }
        let key = i64::from_be_bytes(body[1..9].try_into().unwrap_or_default());
        let ulid_bytes: [u8; 16] = body[9..25].try_into().unwrap_or_default();
        let id = format!("{}{}", kind.prefix(), Ulid::from_bytes(ulid_bytes));
        if !is_id_of(kind, &id) {
            return Err(CursorError::Invalid("not a cursor issued by this server"));
        }
        Ok(Position { key, id })
    }
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
        let cursor = codec.encode_version(2, &position(), [1; 8]);
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
}
