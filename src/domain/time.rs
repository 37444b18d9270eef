//! Timestamps as integer microseconds since the Unix epoch.
//!
//! Both databases store this integer, so their order is time order to the microsecond, and a
//! value read back is exactly the value written (cursors depend on that).

use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

/// A UTC instant with microsecond precision.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp(i64);

impl Timestamp {
    pub fn now() -> Self {
        Self::from_datetime(OffsetDateTime::now_utc())
    }

    pub const fn from_micros(micros: i64) -> Self {
        Self(micros)
    }

    pub const fn micros(self) -> i64 {
        self.0
    }

    /// Truncates to the microsecond.
    pub fn from_datetime(dt: OffsetDateTime) -> Self {
        let nanos = dt.unix_timestamp_nanos();
        Self(i64::try_from(nanos.div_euclid(1_000)).unwrap_or(i64::MAX))
    }

    pub fn to_datetime(self) -> OffsetDateTime {
        OffsetDateTime::from_unix_timestamp_nanos(i128::from(self.0) * 1_000)
            .unwrap_or(OffsetDateTime::UNIX_EPOCH)
    }

    /// RFC 3339 in UTC with exactly six fractional digits, e.g. `2026-11-30T04:01:48.000120Z`.
    ///
    /// Written digit by digit into a fixed buffer (a page of 50 payments writes 50 of these);
    /// years outside 0..=9999 go through `format!`.
    pub fn to_rfc3339(self) -> String {
        let dt = self.to_datetime();
        let Ok(year) = u32::try_from(dt.year()) else {
            return self.to_rfc3339_formatted();
        };
        if year > 9999 {
            return self.to_rfc3339_formatted();
        }
        let mut text = *b"0000-00-00T00:00:00.000000Z";
        for (at, width, value) in [
            (0, 4, year),
            (5, 2, u32::from(u8::from(dt.month()))),
            (8, 2, u32::from(dt.day())),
            (11, 2, u32::from(dt.hour())),
            (14, 2, u32::from(dt.minute())),
            (17, 2, u32::from(dt.second())),
            (20, 6, dt.microsecond()),
        ] {
            let mut value = value;
            for digit in text[at..at + width].iter_mut().rev() {
                *digit = b'0' + (value % 10) as u8;
                value /= 10;
            }
        }
        std::str::from_utf8(&text)
            .map(str::to_owned)
            .unwrap_or_default()
    }

    fn to_rfc3339_formatted(self) -> String {
        let dt = self.to_datetime();
        format!(
            "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:06}Z",
            dt.year(),
            u8::from(dt.month()),
            dt.day(),
            dt.hour(),
            dt.minute(),
            dt.second(),
            dt.microsecond()
        )
    }

    /// Parses any RFC 3339 instant; precision beyond the microsecond is refused rather than
    /// silently dropped, so a filter never means something other than what was sent.
    pub fn parse_rfc3339(text: &str) -> Result<Self, String> {
        let dt = OffsetDateTime::parse(text, &Rfc3339)
            .map_err(|e| format!("not an RFC 3339 date-time ({e})"))?;
        if dt.nanosecond() % 1_000 != 0 {
            return Err("precision finer than a microsecond is not supported".into());
        }
        Ok(Self::from_datetime(dt))
    }

    pub fn plus_seconds(self, seconds: i64) -> Self {
        Self(self.0.saturating_add(seconds.saturating_mul(1_000_000)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_with_six_fractional_digits_and_parses_back() {
        let t = Timestamp::from_micros(1_764_475_308_000_120);
        let text = t.to_rfc3339();
        assert_eq!(text, "2025-11-30T04:01:48.000120Z");
        assert_eq!(Timestamp::parse_rfc3339(&text), Ok(t));
    }

    proptest::proptest! {
        /// The digit-by-digit writing says what `format!` says, for any instant the
        /// timestamps can hold (the `time` crate's range).
        #[test]
        fn writes_what_format_writes(micros in -377_705_116_800_000_000i64..=253_402_300_799_999_999i64) {
            let t = Timestamp::from_micros(micros);
            proptest::prop_assert_eq!(t.to_rfc3339(), t.to_rfc3339_formatted());
        }
    }

    #[test]
    fn offsets_are_normalised_to_utc() {
        let t = Timestamp::parse_rfc3339("2026-01-01T02:00:00+02:00").unwrap();
        assert_eq!(t.to_rfc3339(), "2026-01-01T00:00:00.000000Z");
    }

    #[test]
    fn nanosecond_precision_is_refused() {
        assert!(Timestamp::parse_rfc3339("2026-01-01T00:00:00.123456789Z").is_err());
        assert!(Timestamp::parse_rfc3339("yesterday").is_err());
    }

    #[test]
    fn now_is_microsecond_exact() {
        let t = Timestamp::now();
        assert_eq!(Timestamp::from_datetime(t.to_datetime()), t);
    }
}
