//! How a payment is captured, and why one was canceled: the card lifecycle's own values, with
//! their stored spelling.

use super::status::stored_names;

/// When an approved payment's money is taken.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum CaptureMethod {
    /// Charged at once: approval captures the whole amount.
    #[default]
    Automatic,
    /// Only authorized: the money is held until `capturePayment` takes some or all of it.
    Manual,
}

/// Why a payment was canceled.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CancellationReason {
    RequestedByCustomer,
    Duplicate,
    Fraudulent,
    Abandoned,
    /// An authorization not captured by its `captureBefore`, voided by the reconciler.
    AuthorizationExpired,
    /// A customer action not answered in time.
    ActionExpired,
}

stored_names!(CaptureMethod {
    Automatic => "AUTOMATIC",
    Manual => "MANUAL",
});

stored_names!(CancellationReason {
    RequestedByCustomer => "REQUESTED_BY_CUSTOMER",
    Duplicate => "DUPLICATE",
    Fraudulent => "FRAUDULENT",
    Abandoned => "ABANDONED",
    AuthorizationExpired => "AUTHORIZATION_EXPIRED",
    ActionExpired => "ACTION_EXPIRED",
});

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_value_round_trips_through_its_stored_name() {
        for m in CaptureMethod::ALL {
            assert_eq!(CaptureMethod::parse(m.as_str()), Some(*m));
        }
        for r in CancellationReason::ALL {
            assert_eq!(CancellationReason::parse(r.as_str()), Some(*r));
        }
        assert_eq!(CaptureMethod::parse("manual"), None);
    }
}
