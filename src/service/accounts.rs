//! Who a request acts for: the account an API key belongs to.
//!
//! Every request names its key, and looking the key up costs a database round trip. `Keys`
//! remembers a live key for at most [`LIVE_KEY_TTL`], so a busy key is looked up about twice a
//! second per instance. A revoked key (revocation happens in another process, `graphpay
//! keys revoke`, on any instance) stops working on every instance once the entry expires:
//! within one second, the bound the contract promises. Unknown and malformed keys are never
//! remembered, so a stream of made-up keys cannot fill the cache or keep a key alive.

use std::sync::Arc;
use std::time::Duration;

use super::ServiceError;
use crate::domain::api_key;
use crate::persistence::{Db, accounts};

/// How long a key found live is trusted without asking the database again.
pub const LIVE_KEY_TTL: Duration = Duration::from_millis(500);
/// Most live keys remembered at once; beyond it the least used are looked up again.
const MAX_REMEMBERED_KEYS: u64 = 10_000;

/// A live key's owner, as the database last confirmed it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyOwner {
    pub key_id: String,
    pub account_id: String,
}

/// The key check, with live keys remembered briefly (see the module's comment).
#[derive(Clone)]
pub struct Keys {
    db: Db,
    live: moka::sync::Cache<[u8; 32], Arc<KeyOwner>>,
}

impl Keys {
    /// Trusts a live key for `ttl` ([`LIVE_KEY_TTL`] in production).
    pub fn new(db: Db, ttl: Duration) -> Self {
        Self {
            db,
            live: moka::sync::Cache::builder()
                .max_capacity(MAX_REMEMBERED_KEYS)
                .time_to_live(ttl)
                .build(),
        }
    }

    /// The owner of the live API key `secret`, or `None` for an unknown, malformed or revoked
    /// key.
    pub async fn owner(&self, secret: &str) -> Result<Option<Arc<KeyOwner>>, ServiceError> {
        if !api_key::looks_like_key(secret) {
            return Ok(None);
        }
        let digest = api_key::digest(secret);
        if let Some(owner) = self.live.get(&digest) {
            return Ok(Some(owner));
        }
        let Some((key_id, account_id)) =
            accounts::authenticate(&self.db, &hex::encode(digest)).await?
        else {
            return Ok(None);
        };
        let owner = Arc::new(KeyOwner { key_id, account_id });
        self.live.insert(digest, owner.clone());
        Ok(Some(owner))
    }
}
