//! Amounts of money in integer minor units (cents for USD, yen for JPY); never floats.

/// The largest amount one payment may carry, in minor units.
pub const MAX_AMOUNT: i64 = 99_999_999;

/// A positive amount in minor units, at most [`MAX_AMOUNT`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct MinorUnits(i64);

impl MinorUnits {
    /// Accepts 1..=99_999_999.
    pub fn parse(value: i64) -> Result<Self, String> {
        if (1..=MAX_AMOUNT).contains(&value) {
            Ok(Self(value))
        } else {
            Err(format!(
                "amount must be an integer number of minor units between 1 and {MAX_AMOUNT}, got {value}"
            ))
        }
    }

    pub const fn get(self) -> i64 {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_the_contract_range_and_nothing_else() {
        assert!(MinorUnits::parse(1).is_ok());
        assert!(MinorUnits::parse(MAX_AMOUNT).is_ok());
        for bad in [0, -1, MAX_AMOUNT + 1, i64::MIN, i64::MAX] {
            assert!(MinorUnits::parse(bad).is_err(), "{bad}");
        }
    }
}
