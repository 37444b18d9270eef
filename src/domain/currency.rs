//! ISO 4217 currencies, from the `iso_currency` crate's maintained data.

use std::fmt;

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
        if code.len() != 3 || !code.bytes().all(|b| b.is_ascii_uppercase()) {
            return Err(refuse());
        }
        let currency = iso_currency::Currency::from_code(code).ok_or_else(refuse)?;
        if currency.is_superseded().is_some() || currency.is_special() {
            return Err(refuse());
        }
        Ok(Self(currency))
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
    fn refuses_everything_else() {
        for code in [
            "usd", "US", "USDD", "", "ABC", "XXX", "XTS", "XAU", "VES", "U$D",
        ] {
            assert!(Currency::parse(code).is_err(), "{code}");
        }
    }
}
