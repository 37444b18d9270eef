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
    pub fn to_rfc3339(self) -> String {
        match self.rfc3339_bytes() {
            Some(text) => text.iter().map(|&b| char::from(b)).collect(),
            None => self.to_rfc3339_formatted(),
        }
    }

    /// [`Timestamp::to_rfc3339`]'s ASCII text, written two digits at a time into a fixed buffer from
    /// the civil date of the day (a page of 50 payments writes 50 of these); `None` for years
    /// outside 0..=9999, which need more than four digits or a sign.
    pub fn rfc3339_bytes(self) -> Option<[u8; 27]> {
        /// 0000-01-01T00:00:00Z and the last microsecond of 9999.
        const FIRST: i64 = -62_167_219_200_000_000;
        const LAST: i64 = 253_402_300_799_999_999;
        if !(FIRST..=LAST).contains(&self.0) {
            return None;
        }
        let days = self.0.div_euclid(86_400_000_000);
        let of_day = self.0.rem_euclid(86_400_000_000);
        let (year, month, day) = civil_from_days(days);
        let seconds = of_day / 1_000_000;
        let micros = of_day % 1_000_000;
        let mut text = *b"0000-00-00T00:00:00.000000Z";
        // Two digits at a time; every value here is in 0..100.
        for (at, value) in [
            (0, year / 100),
            (2, year % 100),
            (5, month),
            (8, day),
            (11, seconds / 3_600),
            (14, seconds / 60 % 60),
            (17, seconds % 60),
            (20, micros / 10_000),
            (22, micros / 100 % 100),
            (24, micros % 100),
        ] {
            let pair = value as usize * 2;
            text[at..at + 2].copy_from_slice(&DIGIT_PAIRS[pair..pair + 2]);
        }
        Some(text)
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

/// "00", "01", .. "99", one after another.
const DIGIT_PAIRS: [u8; 200] = {
    let mut pairs = [0; 200];
    let mut n = 0;
    while n < 100 {
        pairs[2 * n] = b'0' + (n / 10) as u8;
        pairs[2 * n + 1] = b'0' + (n % 10) as u8;
        n += 1;
    }
    pairs
};

/// The proleptic Gregorian (year, month, day) of `days` since 1970-01-01: Howard Hinnant's
/// `civil_from_days`, on eras of 400 years that begin on March 1st.
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let of_era = z.rem_euclid(146_097);
    let year_of_era = (of_era - of_era / 1_460 + of_era / 36_524 - of_era / 146_096) / 365;
    let of_year = of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let from_march = (5 * of_year + 2) / 153;
    let day = of_year - (153 * from_march + 2) / 5 + 1;
    let month = if from_march < 10 {
        from_march + 3
    } else {
        from_march - 9
    };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month, day)
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
    fn the_ends_of_four_digit_years_and_the_epoch_are_written_exactly() {
        for (micros, text) in [
            (-62_167_219_200_000_000, "0000-01-01T00:00:00.000000Z"),
            (253_402_300_799_999_999, "9999-12-31T23:59:59.999999Z"),
            (-1, "1969-12-31T23:59:59.999999Z"),
            (951_782_400_000_000, "2000-02-29T00:00:00.000000Z"),
        ] {
            assert_eq!(Timestamp::from_micros(micros).to_rfc3339(), text);
        }
        assert_eq!(
            Timestamp::from_micros(-62_167_219_200_000_001).rfc3339_bytes(),
            None
        );
        assert_eq!(
            Timestamp::from_micros(253_402_300_800_000_000).rfc3339_bytes(),
            None
        );
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
