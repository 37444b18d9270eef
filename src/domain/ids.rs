//! Prefixed, opaque, time-ordered identifiers (`acct_`, `pay_`, `re_`, ...).
//!
//! The suffix is a ULID: unique across gateway instances without a central sequence, and its
//! text form sorts in creation order, byte by byte.

use ulid::Ulid;

/// What an id names; the prefix of its text form says which.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IdKind {
    Account,
    ApiKey,
    Payment,
    Refund,
    PaymentEvent,
    WebhookEndpoint,
    WebhookDelivery,
    WebhookAttempt,
}

impl IdKind {
    pub const fn prefix(self) -> &'static str {
        match self {
            IdKind::Account => "acct_",
            IdKind::ApiKey => "key_",
            IdKind::Payment => "pay_",
            IdKind::Refund => "re_",
            IdKind::PaymentEvent => "evt_",
            IdKind::WebhookEndpoint => "we_",
            IdKind::WebhookDelivery => "whd_",
            IdKind::WebhookAttempt => "wha_",
        }
    }

    const ALL: [IdKind; 8] = [
        IdKind::Account,
        IdKind::ApiKey,
        IdKind::Payment,
        IdKind::Refund,
        IdKind::PaymentEvent,
        IdKind::WebhookEndpoint,
        IdKind::WebhookDelivery,
        IdKind::WebhookAttempt,
    ];
}

/// Makes a new id of the given kind.
pub fn new_id(kind: IdKind) -> String {
    format!("{}{}", kind.prefix(), Ulid::generate())
}

/// Tells which kind of object a well-formed id names; `None` for anything else.
pub fn kind_of(id: &str) -> Option<IdKind> {
    IdKind::ALL.into_iter().find(|kind| {
        id.strip_prefix(kind.prefix()).is_some_and(|rest| {
            rest.len() == 26 && Ulid::from_string(rest).is_ok_and(|u| u.to_string() == rest)
        })
    })
}

/// True when `id` is a well-formed id of `kind`.
pub fn is_id_of(kind: IdKind, id: &str) -> bool {
    kind_of(id) == Some(kind)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn new_ids_carry_their_prefix_and_parse_back() {
        for kind in IdKind::ALL {
            let id = new_id(kind);
            assert!(id.starts_with(kind.prefix()));
            assert_eq!(kind_of(&id), Some(kind));
        }
    }

    #[test]
    fn ids_made_later_sort_after_earlier_ones() {
        let first = new_id(IdKind::Payment);
        std::thread::sleep(std::time::Duration::from_millis(2));
        let second = new_id(IdKind::Payment);
        assert!(first < second);
    }

    #[test]
    fn malformed_ids_are_refused() {
        for bad in [
            "",
            "pay_",
            "pay_123",
            "acct_01ARZ3NDEKTSV4RRFFQ69G5FA",
            "pay_01arz3ndektsv4rrffq69g5fav",
            "xyz_01ARZ3NDEKTSV4RRFFQ69G5FAV",
            "pay_01ARZ3NDEKTSV4RRFFQ69G5FAV ",
        ] {
            assert_eq!(kind_of(bad), None, "{bad:?}");
        }
        assert_eq!(
            kind_of("pay_01ARZ3NDEKTSV4RRFFQ69G5FAV"),
            Some(IdKind::Payment)
        );
    }
}
