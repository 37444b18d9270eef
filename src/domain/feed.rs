//! The change feed's values: where a reader stands in the event log, and what it reads there.

use super::payment::{Payment, PaymentEvent, Refund};

/// A place in the event log. On PostgreSQL it is the writing transaction's id and the event's
/// position within the log; readers go in that order, which is final for every event they
/// may read (see `persistence::feed`). On SQLite `txid` is 0 and `position` is the row id.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FeedPosition {
    pub txid: i64,
    pub position: i64,
}

/// One committed change of a payment, as the feed hands it out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FeedEntry {
    pub at: FeedPosition,
    pub event: PaymentEvent,
    /// The payment as this change left it.
    pub payment: Payment,
    /// For a refund's event, the refund as this change left it.
    pub refund: Option<Refund>,
}

impl FeedEntry {
    /// The event's type as merchants see it (see `payment::event_type`).
    pub fn event_type(&self) -> &str {
        &self.event.event_type
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_order_by_transaction_then_position() {
        let p = |txid, position| FeedPosition { txid, position };
        assert!(p(1, 9) < p(2, 1));
        assert!(p(2, 1) < p(2, 2));
        assert_eq!(p(3, 3), p(3, 3));
    }
}
