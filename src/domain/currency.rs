//! ISO 4217 currencies, from the `iso_currency` crate's maintained data.

use std::fmt;
use std::sync::LazyLock;

use iso_currency::IntoEnumIterator;

/// The active currencies, at the index of their code's three letters (`AAA` is 0, `ZZZ` the
/// last), from the crate's data once: every code read back from a stored payment is looked up
/// here, a few dozen times a page, with no hashing and no comparison of names.
static ACTIVE: LazyLock<Vec<Option<iso_currency::Currency>>> = LazyLock::new(|| {
    let mut active = vec![None; 26 * 26 * 26];
    for currency in iso_currency::Currency::iter() {
        if currency.is_superseded().is_none()
            && !currency.is_special()
            && let Some(at) = index_of(currency.code())
        {
            active[at] = Some(currency);
        }
    }
    active
});

/// Where a code of three upper-case ASCII letters sits in [`ACTIVE`].
fn index_of(code: &str) -> Option<usize> {
    let &[a, b, c] = code.as_bytes() else {
        return None;
    };
    let letter = |l: u8| l.is_ascii_uppercase().then(|| usize::from(l - b'A'));
    Some((letter(a)? * 26 + letter(b)?) * 26 + letter(c)?)
}

/// An active ISO 4217 alphabetic currency code that money can be moved in.
///
/// Refused: codes that are not in ISO 4217, lower-case spellings, superseded codes (e.g. `VES`
/// after `VED`), and the special codes that are not money (`XXX`, `XTS`, precious metals,
/// `XDR`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Currency(iso_currency::Currency);

impl Currency {
    pub fn parse(code: &str) -> Result<Self, String> {
        let refuse = || format!("{code:?} is not an active ISO 4217 alphabetic currency code");
        index_of(code)
            .and_then(|at| ACTIVE[at])
            .map(Self)
            .ok_or_else(refuse)
    }

    pub fn code(self) -> String {
        self.code_str().to_string()
    }

    /// [`Currency::code`], borrowed.
    pub fn code_str(self) -> &'static str {
        self.0.code()
    }

    /// Digits after the decimal point (2 for USD, 0 for JPY).
    pub fn exponent(self) -> u16 {
        self.0.exponent().unwrap_or(0)
    }
}

impl fmt::Display for Currency {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0.code())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_active_codes() {
        for code in ["USD", "EUR", "JPY", "GBP", "CHF", "VED", "BOV"] {
            assert_eq!(
                Currency::parse(code).map(|c| c.code()),
                Ok(code.to_string())
            );
        }
        assert_eq!(Currency::parse("JPY").unwrap().exponent(), 0);
        assert_eq!(Currency::parse("USD").unwrap().exponent(), 2);
    }

    #[test]
    fn every_code_of_the_data_parses_as_it_is_active() {
        let mut active = 0;
        for currency in iso_currency::Currency::iter() {
            let is_active = currency.is_superseded().is_none() && !currency.is_special();
            let parsed = Currency::parse(currency.code());
            assert_eq!(parsed.is_ok(), is_active, "{}", currency.code());
            if let Ok(parsed) = parsed {
                assert_eq!(parsed.code_str(), currency.code());
                active += 1;
            }
        }
        assert!(active > 100, "{active} active currencies");
    }

    #[test]
    fn refuses_everything_else() {
        for code in [
            "usd", "US", "USDD", "", "ABC", "XXX", "XTS", "XAU", "VES", "U$D", "É", "ZZZ", "[[[",
            "@@@",
        ] {
            assert!(Currency::parse(code).is_err(), "{code}");
        }
    }
}
