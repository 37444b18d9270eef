//! The gateway's signing secrets: what signs cursors and client tokens, each secret known by a
//! key id carried in what it signs. The operator adds a secret and retires an old one
//! (`graphpay signing-key`); every instance reloads the set now and then, verifies with any
//! live secret, and signs with the newest one that every instance has had time to load.

use std::collections::HashMap;
use std::sync::{Arc, RwLock};
use std::time::Duration;

use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

use super::time::Timestamp;

/// The id of the secret every gateway had before secrets could be rotated: what signed the
/// cursors and tokens that carry no key id.
pub const FIRST_KID: u16 = 0;

/// One signing secret as stored.
#[derive(Clone, PartialEq, Eq)]
pub struct SigningKey {
    pub kid: u16,
    pub secret: String,
    pub created_at: Timestamp,
    pub retired_at: Option<Timestamp>,
}

impl std::fmt::Debug for SigningKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SigningKey")
            .field("kid", &self.kid)
            .field("created_at", &self.created_at)
            .field("retired_at", &self.retired_at)
            .finish_non_exhaustive()
    }
}

/// The MACs one secret keys: cursors take the secret as it is (as they always did), client
/// tokens a key derived from it for that purpose only, so one signature never passes for
/// the other.
pub struct Material {
    pub cursor: Hmac<Sha256>,
    pub token: Hmac<Sha256>,
}

impl Material {
    fn new(secret: &[u8]) -> Self {
        let keyed = |key: &[u8]| {
            <Hmac<Sha256> as KeyInit>::new_from_slice(key).unwrap_or_else(|_| unreachable!())
        };
        let mut derive = keyed(secret);
        derive.update(b"graphpay client token v1");
        Self {
            cursor: keyed(secret),
            token: keyed(&derive.finalize().into_bytes()),
        }
    }
}

struct Live {
    active: u16,
    by_kid: HashMap<u16, Arc<Material>>,
}

/// The live signing secrets, shared by every signer of one instance.
#[derive(Clone)]
pub struct Keyring {
    live: Arc<RwLock<Arc<Live>>>,
}

impl std::fmt::Debug for Keyring {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Keyring(<secrets>)")
    }
}

impl Keyring {
    /// A ring of one secret, the first one.
    pub fn single(secret: &[u8]) -> Self {
        let by_kid = HashMap::from([(FIRST_KID, Arc::new(Material::new(secret)))]);
        Self {
            live: Arc::new(RwLock::new(Arc::new(Live {
                active: FIRST_KID,
                by_kid,
            }))),
        }
    }

    /// A ring of the live secrets among `keys` (see [`Keyring::replace`]); `None` when none
    /// is live.
    pub fn of(keys: &[SigningKey], now: Timestamp, activation: Duration) -> Option<Self> {
        let first = keys.iter().find(|k| k.retired_at.is_none())?;
        let ring = Self {
            live: Arc::new(RwLock::new(Arc::new(Live {
                active: first.kid,
                by_kid: HashMap::from([(
                    first.kid,
                    Arc::new(Material::new(first.secret.as_bytes())),
                )]),
            }))),
        };
        ring.replace(keys, now, activation);
        Some(ring)
    }

    /// Takes `keys` as the live set: retired ones are dropped; the active one (which signs)
    /// is the newest that was added at least `activation` before `now`, so that every
    /// instance knows it before anything signed with it reaches them; the oldest live one
    /// when none is that old (a fresh database's first secret). A set with no live secret
    /// changes nothing.
    pub fn replace(&self, keys: &[SigningKey], now: Timestamp, activation: Duration) {
        let live: Vec<&SigningKey> = keys.iter().filter(|k| k.retired_at.is_none()).collect();
        let Some(newest) = live.iter().map(|k| k.kid).max() else {
            return;
        };
        let settled = now.micros() - i64::try_from(activation.as_micros()).unwrap_or(i64::MAX);
        let oldest = live.iter().map(|k| k.kid).min().unwrap_or(newest);
        let active = live
            .iter()
            .filter(|k| k.created_at.micros() <= settled)
            .map(|k| k.kid)
            .max()
            .unwrap_or(oldest);
        let current = self.snapshot();
        let by_kid = live
            .iter()
            .map(|k| {
                let material = current
                    .by_kid
                    .get(&k.kid)
                    .cloned()
                    .unwrap_or_else(|| Arc::new(Material::new(k.secret.as_bytes())));
                (k.kid, material)
            })
            .collect();
        *self.live.write().unwrap_or_else(|e| e.into_inner()) = Arc::new(Live { active, by_kid });
    }

    fn snapshot(&self) -> Arc<Live> {
        self.live.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// The secret that signs, with its id.
    pub fn active(&self) -> (u16, Arc<Material>) {
        let live = self.snapshot();
        let material = live
            .by_kid
            .get(&live.active)
            .cloned()
            .unwrap_or_else(|| unreachable!("the active secret is live"));
        (live.active, material)
    }

    /// The live secret `kid`; `None` when it is unknown or retired.
    pub fn get(&self, kid: u16) -> Option<Arc<Material>> {
        self.snapshot().by_kid.get(&kid).cloned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(kid: u16, age_secs: i64, retired: bool) -> SigningKey {
        let now = Timestamp::now();
        SigningKey {
            kid,
            secret: format!("secret-{kid}"),
            created_at: now.plus_seconds(-age_secs),
            retired_at: retired.then_some(now),
        }
    }

    #[test]
    fn the_newest_settled_secret_signs_and_every_live_one_verifies() {
        let ring = Keyring::single(b"secret-0");
        let activation = Duration::from_secs(10);
        ring.replace(
            &[key(0, 100, false), key(1, 1, false)],
            Timestamp::now(),
            activation,
        );
        assert_eq!(ring.active().0, 0, "the new secret is not settled yet");
        assert!(ring.get(1).is_some(), "but it verifies already");
        ring.replace(
            &[key(0, 100, false), key(1, 20, false)],
            Timestamp::now(),
            activation,
        );
        assert_eq!(ring.active().0, 1);
        ring.replace(
            &[key(0, 100, true), key(1, 20, false)],
            Timestamp::now(),
            activation,
        );
        assert!(ring.get(0).is_none(), "a retired secret verifies nothing");
        ring.replace(
            &[key(0, 100, true), key(1, 20, true)],
            Timestamp::now(),
            activation,
        );
        assert!(
            ring.get(1).is_some(),
            "a set without a live secret changes nothing"
        );
    }
}
