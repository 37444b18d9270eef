//! Paging rules: sort orders, filters, page sizes, and the position a cursor names.

use sha2::{Digest, Sha256};

use super::currency::Currency;
use super::merchant_data::Metadata;
use super::status::PaymentStatus;
use super::time::Timestamp;

/// Most rows one page may hold.
pub const MAX_PAGE_SIZE: i32 = 100;
/// Page size when neither `first` nor `last` is given.
pub const DEFAULT_PAGE_SIZE: i32 = 20;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SortField {
    CreatedAt,
    Amount,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Direction {
    Asc,
    Desc,
}

/// A total order over payments: the sort key, then the id.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Order {
    pub field: SortField,
    pub direction: Direction,
}

impl Default for Order {
    fn default() -> Self {
        Order {
            field: SortField::CreatedAt,
            direction: Direction::Desc,
        }
    }
}

/// Which payments a listing includes; every part is optional and they combine with AND.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PaymentFilter {
    /// Any of these statuses (empty: any status).
    pub statuses: Vec<PaymentStatus>,
    pub currency: Option<Currency>,
    /// Inclusive lower bound.
    pub created_after: Option<Timestamp>,
    /// Exclusive upper bound.
    pub created_before: Option<Timestamp>,
    /// Inclusive bounds, in minor units.
    pub amount_min: Option<i64>,
    pub amount_max: Option<i64>,
    /// The merchant's reference, exactly.
    pub reference: Option<String>,
    /// Entries every payment listed carries (all of them).
    pub metadata: Metadata,
}

impl PaymentFilter {
    /// Sorts and de-duplicates the status list, so equal filters have equal fingerprints.
    pub fn normalised(mut self) -> Self {
        self.statuses.sort_by_key(|s| s.as_str());
        self.statuses.dedup();
        self
    }
}

/// Identifies a filter and an order, so a cursor can be bound to the listing that issued it.
pub fn fingerprint(filter: &PaymentFilter, order: Order) -> [u8; 8] {
    let statuses: Vec<&str> = filter.statuses.iter().map(|s| s.as_str()).collect();
    let canonical = format!(
        "order={:?}:{:?}|status={}|currency={}|created=[{},{})|amount=[{},{}]",
        order.field,
        order.direction,
        statuses.join(","),
        filter.currency.map(|c| c.code()).unwrap_or_default(),
        opt(filter.created_after.map(Timestamp::micros)),
        opt(filter.created_before.map(Timestamp::micros)),
        opt(filter.amount_min),
        opt(filter.amount_max),
    );
    // Only when given, so that the cursors of listings filtered by neither stay valid. The
    // parts are JSON strings: no reference or entry can pass for another's.
    let mut canonical = canonical;
    if let Some(reference) = &filter.reference {
        canonical.push_str("|reference=");
        canonical.push_str(&serde_json::Value::from(reference.as_str()).to_string());
    }
    if !filter.metadata.is_empty() {
        canonical.push_str("|metadata=");
        canonical.push_str(&filter.metadata.to_api_json().to_string());
    }
    fingerprint_of(&canonical)
}

/// The first 8 bytes of the SHA-256 of a listing's canonical text (its filter and order),
/// which cursors carry to be bound to the listing that issued them.
pub fn fingerprint_of(canonical: &str) -> [u8; 8] {
    let digest = Sha256::digest(canonical.as_bytes());
    let mut out = [0u8; 8];
    out.copy_from_slice(&digest[..8]);
    out
}

fn opt(value: Option<i64>) -> String {
    value.map(|v| v.to_string()).unwrap_or_default()
}

/// A place in an order: the sort key's value (microseconds or minor units) and the id.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Position {
    pub key: i64,
    pub id: String,
}

/// How many rows, in which direction: `first` pages forward, `last` backward.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PageSize {
    First(u64),
    Last(u64),
}

impl PageSize {
    /// Validates `first`/`last`: each 0..=100, not both; neither means `first: 20`.
    pub fn from_params(first: Option<i32>, last: Option<i32>) -> Result<Self, String> {
        let check = |name: &str, n: i32| {
            if (0..=MAX_PAGE_SIZE).contains(&n) {
                Ok(u64::try_from(n).unwrap_or_default())
            } else {
                Err(format!(
                    "`{name}` must be between 0 and {MAX_PAGE_SIZE}, got {n}"
                ))
            }
        };
        match (first, last) {
            (Some(_), Some(_)) => Err("give `first` or `last`, not both".to_string()),
            (Some(n), None) => check("first", n).map(PageSize::First),
            (None, Some(n)) => check("last", n).map(PageSize::Last),
            (None, None) => Ok(PageSize::First(DEFAULT_PAGE_SIZE as u64)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_sizes_follow_the_contract() {
        assert_eq!(PageSize::from_params(None, None), Ok(PageSize::First(20)));
        assert_eq!(PageSize::from_params(Some(0), None), Ok(PageSize::First(0)));
        assert_eq!(
            PageSize::from_params(None, Some(100)),
            Ok(PageSize::Last(100))
        );
        assert!(PageSize::from_params(Some(101), None).is_err());
        assert!(PageSize::from_params(None, Some(-1)).is_err());
        assert!(PageSize::from_params(Some(1), Some(1)).is_err());
    }

    #[test]
    fn fingerprints_tell_filters_and_orders_apart() {
        let base = PaymentFilter::default();
        let desc = Order::default();
        let asc = Order {
            direction: Direction::Asc,
            ..desc
        };
        let by_amount = Order {
            field: SortField::Amount,
            ..desc
        };
        let usd = PaymentFilter {
            currency: Currency::parse("USD").ok(),
            ..base.clone()
        };
        let min = PaymentFilter {
            amount_min: Some(1),
            ..base.clone()
        };
        let max = PaymentFilter {
            amount_max: Some(1),
            ..base.clone()
        };
        let all = [
            fingerprint(&base, desc),
            fingerprint(&base, asc),
            fingerprint(&base, by_amount),
            fingerprint(&usd, desc),
            fingerprint(&min, desc),
            fingerprint(&max, desc),
        ];
        for (i, a) in all.iter().enumerate() {
            for b in &all[i + 1..] {
                assert_ne!(a, b);
            }
        }
    }

    #[test]
    fn status_order_and_repeats_do_not_change_the_fingerprint() {
        let a = PaymentFilter {
            statuses: vec![
                PaymentStatus::Failed,
                PaymentStatus::Pending,
                PaymentStatus::Failed,
            ],
            ..Default::default()
        };
        let b = PaymentFilter {
            statuses: vec![PaymentStatus::Pending, PaymentStatus::Failed],
            ..Default::default()
        };
        let order = Order::default();
        assert_eq!(
            fingerprint(&a.normalised(), order),
            fingerprint(&b.normalised(), order)
        );
    }
}
