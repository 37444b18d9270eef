//! Payment and refund statuses, and their stored spelling.

/// Where a payment is in its life; `state_machine` says how it moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PaymentStatus {
    Pending,
    Processing,
    /// The processor asks the customer to act (3-D Secure) before it decides.
    RequiresAction,
    /// Authorized (`MANUAL` capture): the money is held until `capturePayment` or a void.
    RequiresCapture,
    Succeeded,
    Failed,
    Canceled,
    Refunding,
    PartiallyRefunded,
    Refunded,
}

/// Where a refund is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RefundStatus {
    Pending,
    Succeeded,
    Failed,
}

macro_rules! stored_names {
    ($ty:ident { $($variant:ident => $name:literal),+ $(,)? }) => {
        impl $ty {
            pub const ALL: &'static [$ty] = &[$($ty::$variant),+];

            /// The spelling kept in the database and shown in the API.
            pub const fn as_str(self) -> &'static str {
                match self { $($ty::$variant => $name),+ }
            }

            pub fn parse(text: &str) -> Option<Self> {
                match text { $($name => Some($ty::$variant),)+ _ => None }
            }
        }

        impl std::fmt::Display for $ty {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

/// The stored spelling of the domain's enums, for the other modules that name values.
pub(crate) use stored_names;

stored_names!(PaymentStatus {
    Pending => "PENDING",
    Processing => "PROCESSING",
    RequiresAction => "REQUIRES_ACTION",
    RequiresCapture => "REQUIRES_CAPTURE",
    Succeeded => "SUCCEEDED",
    Failed => "FAILED",
    Canceled => "CANCELED",
    Refunding => "REFUNDING",
    PartiallyRefunded => "PARTIALLY_REFUNDED",
    Refunded => "REFUNDED",
});

stored_names!(RefundStatus {
    Pending => "PENDING",
    Succeeded => "SUCCEEDED",
    Failed => "FAILED",
});

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_status_round_trips_through_its_stored_name() {
        for s in PaymentStatus::ALL {
            assert_eq!(PaymentStatus::parse(s.as_str()), Some(*s));
        }
        for s in RefundStatus::ALL {
            assert_eq!(RefundStatus::parse(s.as_str()), Some(*s));
        }
        assert_eq!(PaymentStatus::parse("pending"), None);
    }
}
