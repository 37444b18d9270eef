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

    /// What the kind is called in messages: "not a payment id".
    pub const fn noun(self) -> &'static str {
        match self {
            IdKind::Account => "account",
            IdKind::ApiKey => "API key",
            IdKind::Payment => "payment",
            IdKind::Refund => "refund",
            IdKind::PaymentEvent => "payment event",
            IdKind::WebhookEndpoint => "webhook endpoint",
            IdKind::WebhookDelivery => "webhook delivery",
            IdKind::WebhookAttempt => "webhook attempt",
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

/// Makes a new id of the given kind. Ids made by one process only grow: two events written
/// one after the other by one transaction are ordered by their ids (see `persistence::feed`).
pub fn new_id(kind: IdKind) -> String {
    static MONOTONIC: std::sync::Mutex<ulid::Generator> =
        std::sync::Mutex::new(ulid::Generator::new());
    let ulid = MONOTONIC
        .lock()
        .ok()
        .and_then(|mut generator| generator.generate().ok())
        .unwrap_or_else(Ulid::generate);
    format!("{}{}", kind.prefix(), ulid)
}

/// Tells which kind of object a well-formed id names; `None` for anything else.
pub fn kind_of(id: &str) -> Option<IdKind> {
    IdKind::ALL.into_iter().find(|kind| {
        id.strip_prefix(kind.prefix()).is_some_and(|rest| {
            rest.len() == 26 && Ulid::from_string(rest).is_ok_and(|u| u.to_string() == rest)
        })
    })
}

/// When a well-formed id was made (to the millisecond); `None` for anything else.
pub fn made_at(id: &str) -> Option<super::time::Timestamp> {
    let (_, suffix) = id.split_once('_')?;
    let ulid = Ulid::from_string(suffix).ok()?;
    let millis = i64::try_from(ulid.timestamp_ms()).ok()?;
    Some(super::time::Timestamp::from_micros(
        millis.saturating_mul(1_000),
    ))
}

/// True when `id` is a well-formed id of `kind`.
pub fn is_id_of(kind: IdKind, id: &str) -> bool {
    kind_of(id) == Some(kind)
}

/// Text that is not a well-formed id of the kind asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("not a {} id (they start with {})", .0.noun(), .0.prefix())]
pub struct NotAnId(pub IdKind);

/// An id of one kind, checked once where it enters (`parse`), then carried as proof.
macro_rules! typed_id {
    ($(#[$doc:meta])* $name:ident, $kind:expr) => {
        $(#[$doc])*
        #[derive(Clone, Debug, PartialEq, Eq, Hash)]
        pub struct $name(String);

        impl $name {
            pub const KIND: IdKind = $kind;

            pub fn parse(text: &str) -> Result<Self, NotAnId> {
                if is_id_of(Self::KIND, text) {
                    Ok(Self(text.to_string()))
                } else {
                    Err(NotAnId(Self::KIND))
                }
            }

            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(&self.0)
            }
        }
    };
}

typed_id!(
    /// A payment's id (`pay_...`).
    PaymentId,
    IdKind::Payment
);
typed_id!(
    /// A webhook endpoint's id (`we_...`).
    WebhookEndpointId,
    IdKind::WebhookEndpoint
);
typed_id!(
    /// A webhook delivery's id (`whd_...`).
    WebhookDeliveryId,
    IdKind::WebhookDelivery
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typed_ids_take_only_their_own_kind_and_say_which_they_want() {
        let payment = new_id(IdKind::Payment);
        assert_eq!(PaymentId::parse(&payment).unwrap().as_str(), payment);
        for other in [
            new_id(IdKind::Refund),
            String::new(),
            "pay_".into(),
            payment.to_lowercase(),
        ] {
            assert_eq!(
                PaymentId::parse(&other),
                Err(NotAnId(IdKind::Payment)),
                "{other}"
            );
        }
        assert_eq!(
            NotAnId(IdKind::Payment).to_string(),
            "not a payment id (they start with pay_)"
        );
        assert_eq!(
            NotAnId(IdKind::WebhookDelivery).to_string(),
            "not a webhook delivery id (they start with whd_)"
        );
        assert!(WebhookEndpointId::parse(&new_id(IdKind::WebhookEndpoint)).is_ok());
        assert!(WebhookDeliveryId::parse(&new_id(IdKind::WebhookEndpoint)).is_err());
    }

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
