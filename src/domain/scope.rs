//! What a credential may do. An unrestricted secret key may do everything; a restricted key
//! holds some of these scopes, and a client token (minted for a browser) some of the first
//! three. Which root field needs which scope is the API's business (`graphql::scopes`).

use serde::{Deserialize, Serialize};

/// One scope.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Scope {
    /// Reading payments, refunds, events and idempotency records; their subscriptions.
    PaymentsRead,
    /// Creating, confirming, cancelling and updating payments.
    PaymentsWrite,
    /// Refunding payments.
    RefundsWrite,
    /// Capturing an authorization, and voiding one (cancelling a payment in REQUIRES_CAPTURE).
    PaymentsCapture,
    /// Managing webhook endpoints and their deliveries.
    WebhooksManage,
    /// Minting client tokens, with scopes the key holds itself.
    ClientTokensCreate,
}

impl Scope {
    pub const ALL: [Scope; 6] = [
        Scope::PaymentsRead,
        Scope::PaymentsWrite,
        Scope::RefundsWrite,
        Scope::PaymentsCapture,
        Scope::WebhooksManage,
        Scope::ClientTokensCreate,
    ];

    /// The scope's name in the API and in storage (`PAYMENTS_READ`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::PaymentsRead => "PAYMENTS_READ",
            Scope::PaymentsWrite => "PAYMENTS_WRITE",
            Scope::RefundsWrite => "REFUNDS_WRITE",
            Scope::PaymentsCapture => "PAYMENTS_CAPTURE",
            Scope::WebhooksManage => "WEBHOOKS_MANAGE",
            Scope::ClientTokensCreate => "CLIENT_TOKENS_CREATE",
        }
    }

    /// The scope named `name` (its API spelling).
    pub fn parse(name: &str) -> Option<Self> {
        Scope::ALL.into_iter().find(|scope| scope.as_str() == name)
    }

    /// Whether a client token may hold this scope (the others are secret keys' only).
    pub fn fits_client_token(self) -> bool {
        matches!(
            self,
            Scope::PaymentsRead | Scope::PaymentsWrite | Scope::RefundsWrite
        )
    }

    fn bit(self) -> u8 {
        1 << (self as u8)
    }
}

/// A set of scopes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Scopes(u8);

impl Scopes {
    pub fn contains(self, scope: Scope) -> bool {
        self.0 & scope.bit() != 0
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Whether every scope of `self` is in `other`.
    pub fn within(self, other: Scopes) -> bool {
        self.0 & !other.0 == 0
    }

    /// The scopes both hold.
    pub fn intersection(self, other: Scopes) -> Scopes {
        Scopes(self.0 & other.0)
    }

    /// The scopes in the API's order.
    pub fn iter(self) -> impl Iterator<Item = Scope> {
        Scope::ALL.into_iter().filter(move |s| self.contains(*s))
    }

    /// The set's compact form (one bit per scope, in the order of [`Scope::ALL`]).
    pub fn bits(self) -> u8 {
        self.0
    }

    /// The set `bits` stands for, if every bit names a scope.
    pub fn from_bits(bits: u8) -> Option<Self> {
        let all = Scopes::from_iter(Scope::ALL).0;
        (bits & !all == 0).then_some(Scopes(bits))
    }

    /// The stored form: the scopes' names, comma-separated, in the API's order.
    pub fn to_stored(self) -> String {
        self.iter().map(Scope::as_str).collect::<Vec<_>>().join(",")
    }

    /// The set a stored form names. A name this version does not know grants nothing (a
    /// later version's scope, met during a rolling downgrade): the others still hold.
    pub fn from_stored(text: &str) -> Self {
        text.split(',').filter_map(Scope::parse).collect()
    }
}

impl FromIterator<Scope> for Scopes {
    fn from_iter<I: IntoIterator<Item = Scope>>(iter: I) -> Self {
        Scopes(iter.into_iter().fold(0, |bits, s| bits | s.bit()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scopes_keep_exactly_their_members() {
        let scopes: Scopes = [Scope::RefundsWrite, Scope::PaymentsRead]
            .into_iter()
            .collect();
        assert!(scopes.contains(Scope::PaymentsRead));
        assert!(!scopes.contains(Scope::PaymentsWrite));
        assert_eq!(
            scopes.iter().collect::<Vec<_>>(),
            [Scope::PaymentsRead, Scope::RefundsWrite]
        );
        assert!(Scopes::from_bits(64).is_none());
        assert_eq!(Scopes::from_bits(scopes.bits()), Some(scopes));
    }

    #[test]
    fn the_stored_form_round_trips_and_unknown_names_grant_nothing() {
        let all: Scopes = Scope::ALL.into_iter().collect();
        assert_eq!(
            all.to_stored(),
            "PAYMENTS_READ,PAYMENTS_WRITE,REFUNDS_WRITE,PAYMENTS_CAPTURE,WEBHOOKS_MANAGE,CLIENT_TOKENS_CREATE"
        );
        for scope in Scope::ALL {
            let one: Scopes = [scope].into_iter().collect();
            assert_eq!(Scopes::from_stored(&one.to_stored()), one);
            assert_eq!(Scope::parse(scope.as_str()), Some(scope));
        }
        assert_eq!(Scopes::from_stored(""), Scopes::default());
        assert_eq!(
            Scopes::from_stored("PAYMENTS_READ,ROOT"),
            [Scope::PaymentsRead].into_iter().collect()
        );
    }

    #[test]
    fn within_and_intersection() {
        let read: Scopes = [Scope::PaymentsRead].into_iter().collect();
        let both: Scopes = [Scope::PaymentsRead, Scope::PaymentsWrite]
            .into_iter()
            .collect();
        assert!(read.within(both));
        assert!(!both.within(read));
        assert_eq!(both.intersection(read), read);
    }
}
