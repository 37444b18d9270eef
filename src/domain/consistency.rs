//! Consistency tokens: a position in the primary database's write-ahead log, handed to a
//! client after its mutation so that a later read can ask for a server that has replayed at
//! least that far (read your writes across streaming replicas).
//!
//! The token is opaque to clients: `ct1_` and the position as 16 hexadecimal digits. Parsing
//! is strict; a token that does not parse is treated as one no replica can be known to have
//! reached, so such a read goes to the primary.

use std::fmt;

/// A write-ahead log position (PostgreSQL's `pg_lsn`), ordered as the log is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Lsn(pub u64);

/// What the token text starts with.
const PREFIX: &str = "ct1_";
/// The longest header value read as a token; anything longer is not one.
pub const MAX_TOKEN_LEN: usize = PREFIX.len() + 16;

impl Lsn {
    /// Reads PostgreSQL's text form of a `pg_lsn`: two hexadecimal numbers of at most 8 digits
    /// around a slash (`16/B374D848`).
    pub fn parse_pg(text: &str) -> Option<Lsn> {
        let (high, low) = text.split_once('/')?;
        let half = |part: &str| {
            (!part.is_empty() && part.len() <= 8 && part.bytes().all(|b| b.is_ascii_hexdigit()))
                .then(|| u32::from_str_radix(part, 16).ok())
                .flatten()
        };
        Some(Lsn((u64::from(half(high)?) << 32) | u64::from(half(low)?)))
    }

    /// The token a client is given for this position.
    pub fn token(self) -> String {
        format!("{PREFIX}{:016x}", self.0)
    }

    /// The position a client's token names; `None` when it is not a token.
    pub fn from_token(token: &str) -> Option<Lsn> {
        let hex = token.strip_prefix(PREFIX)?;
        if hex.len() != 16 || !hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
            return None;
        }
        u64::from_str_radix(hex, 16).ok().map(Lsn)
    }
}

impl fmt::Display for Lsn {
    /// PostgreSQL's text form.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:X}/{:X}", self.0 >> 32, self.0 & 0xFFFF_FFFF)
    }
}

/// What a read asked for in the `graphpay-consistency-token` header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReadAfter {
    /// No token: any server whose lag is within the bound will do.
    Anything,
    /// A server that has replayed this far.
    Position(Lsn),
    /// A header that is not a token: only the primary is sure to be far enough.
    Unknown,
}

impl ReadAfter {
    /// The header's value as sent (`None`: no header).
    pub fn of_header(value: Option<&[u8]>) -> ReadAfter {
        match value {
            None => ReadAfter::Anything,
            Some(bytes) if bytes.len() > MAX_TOKEN_LEN => ReadAfter::Unknown,
            Some(bytes) => std::str::from_utf8(bytes)
                .ok()
                .and_then(|text| Lsn::from_token(text.trim()))
                .map_or(ReadAfter::Unknown, ReadAfter::Position),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_read_as_postgresql_writes_them_and_order_as_the_log() {
        assert_eq!(Lsn::parse_pg("0/0"), Some(Lsn(0)));
        assert_eq!(Lsn::parse_pg("16/B374D848"), Some(Lsn(0x16_B374_D848)));
        assert_eq!(Lsn::parse_pg("FFFFFFFF/FFFFFFFF"), Some(Lsn(u64::MAX)));
        assert!(Lsn::parse_pg("1/2") < Lsn::parse_pg("2/1"));
        for bad in [
            "",
            "/",
            "1/",
            "/1",
            "1/2/3",
            "G/1",
            "123456789/0",
            "-1/0",
            "1 /0",
        ] {
            assert_eq!(Lsn::parse_pg(bad), None, "{bad:?}");
        }
        assert_eq!(Lsn(0x16_B374_D848).to_string(), "16/B374D848");
    }

    #[test]
    fn a_token_gives_back_its_position_and_nothing_else_reads_as_one() {
        for lsn in [0, 1, 0x16_B374_D848, u64::MAX] {
            let token = Lsn(lsn).token();
            assert_eq!(token.len(), MAX_TOKEN_LEN);
            assert_eq!(Lsn::from_token(&token), Some(Lsn(lsn)));
            assert_eq!(
                ReadAfter::of_header(Some(token.as_bytes())),
                ReadAfter::Position(Lsn(lsn))
            );
        }
        for bad in [
            "",
            "ct1_",
            "ct1_000000000000000",
            "ct1_0000000000000000a",
            "ct1_000000000000000G",
            "ct1_000000000000000A",
            "ct2_0000000000000000",
            "16/B374D848",
        ] {
            assert_eq!(Lsn::from_token(bad), None, "{bad:?}");
            assert_eq!(
                ReadAfter::of_header(Some(bad.as_bytes())),
                ReadAfter::Unknown
            );
        }
        assert_eq!(ReadAfter::of_header(Some(&[0xff; 20])), ReadAfter::Unknown);
        assert_eq!(
            ReadAfter::of_header(Some(&[b'a'; 100_000])),
            ReadAfter::Unknown
        );
        assert_eq!(ReadAfter::of_header(None), ReadAfter::Anything);
    }
}
