//! Who a request acts for: the account a secret API key or a client token belongs to, and
//! what the credential may do.
//!
//! Every request names its credential, and looking a key up costs a database round trip.
//! `Keys` remembers a live key for at most [`LIVE_KEY_TTL`], so a busy key is looked up about
//! twice a second per instance. A revoked key (revocation happens in another process,
//! `graphpay key revoke`, on any instance) stops working on every instance once the entry
//! expires: within one second, the bound the contract promises. The same holds for the client
//! tokens a key minted, which are checked by their signature and then by their minting key
//! being live. A rolled key carries its expiry into the cache, so it stops at its expiry
//! exactly, on every instance, not half a second later. Unknown and malformed credentials are
//! never remembered, so a stream of made-up ones cannot fill the cache or keep a key alive.

use std::sync::Arc;
use std::time::Duration;

use super::ServiceError;
use crate::domain::api_key;
use crate::domain::client_token::{self, ClientToken, Scope, Scopes, TokenSigner};
use crate::domain::time::Timestamp;
use crate::persistence::{Db, accounts};

/// How long a key found live is trusted without asking the database again.
pub const LIVE_KEY_TTL: Duration = Duration::from_millis(500);
/// Most live keys remembered at once; beyond it the least used are looked up again.
const MAX_REMEMBERED_KEYS: u64 = 10_000;

/// What kind of credential a request carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Credential {
    /// A secret API key (`gpk_...`), unrestricted or restricted.
    SecretKey,
    /// A client token (`gpct_...`) minted for a browser.
    ClientToken,
}

/// Who a request acts for, and what it may do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Caller {
    pub account_id: String,
    /// The secret key used, or the one that minted the client token used.
    pub key_id: String,
    pub credential: Credential,
    /// What the credential may do: `None` for an unrestricted secret key (everything); the
    /// scopes of a restricted key or a client token.
    pub scopes: Option<Scopes>,
    /// When the credential stops working (client tokens only).
    pub expires_at: Option<Timestamp>,
}

impl Caller {
    pub fn is_client_token(&self) -> bool {
        self.credential == Credential::ClientToken
    }

    /// Whether the credential is limited to some scopes (a restricted key, a client token).
    pub fn is_restricted(&self) -> bool {
        self.scopes.is_some()
    }

    /// Whether the credential may use what `scope` covers.
    pub fn may(&self, scope: Scope) -> bool {
        self.scopes.is_none_or(|scopes| scopes.contains(scope))
    }
}

/// How often a key's `last_used_at` is written at most (per instance; the write itself skips
/// a row another instance touched within the same period).
pub const LAST_USED_EVERY: Duration = Duration::from_secs(60);

/// An unrevoked key's owner, expiry and scopes, as the database last confirmed them.
#[derive(Clone, Debug, PartialEq, Eq)]
struct KeyOwner {
    key_id: String,
    account_id: Arc<str>,
    expires_at: Option<Timestamp>,
    scopes: Option<Scopes>,
}

impl KeyOwner {
    fn from_holder(holder: accounts::KeyHolder) -> Self {
        Self {
            key_id: holder.key_id,
            account_id: Arc::from(holder.account_id),
            expires_at: holder.expires_at,
            scopes: holder.scopes,
        }
    }

    fn live_at(&self, now: Timestamp) -> bool {
        self.expires_at.is_none_or(|at| now < at)
    }
}

/// The credential check, with live keys remembered briefly (see the module's comment).
#[derive(Clone)]
pub struct Keys {
    db: Db,
    signer: TokenSigner,
    /// Unrevoked keys by the SHA-256 of their secret.
    by_digest: moka::sync::Cache<[u8; 32], Arc<KeyOwner>>,
    /// Unrevoked keys by key id (for the tokens they minted).
    by_id: moka::sync::Cache<String, Arc<KeyOwner>>,
    /// Keys whose use this instance recorded within [`LAST_USED_EVERY`].
    used: moka::sync::Cache<String, ()>,
}

impl Keys {
    /// Trusts a live key for `ttl` ([`LIVE_KEY_TTL`] in production); client tokens are signed
    /// and checked with `signer`.
    pub fn new(db: Db, ttl: Duration, signer: TokenSigner) -> Self {
        Self {
            db,
            signer,
            by_digest: moka::sync::Cache::builder()
                .max_capacity(MAX_REMEMBERED_KEYS)
                .time_to_live(ttl)
                .support_invalidation_closures()
                .build(),
            by_id: moka::sync::Cache::builder()
                .max_capacity(MAX_REMEMBERED_KEYS)
                .time_to_live(ttl)
                .build(),
            used: moka::sync::Cache::builder()
                .max_capacity(MAX_REMEMBERED_KEYS)
                .time_to_live(LAST_USED_EVERY)
                .build(),
        }
    }

    /// Forgets what this instance remembers of `key_id` (after it was rolled or revoked here).
    pub fn forget(&self, key_id: &str) {
        self.by_id.invalidate(key_id);
        let key_id = key_id.to_string();
        let _ = self
            .by_digest
            .invalidate_entries_if(move |_, owner| owner.key_id == key_id);
    }

    /// Records that `key_id` authenticated a request, at most once per [`LAST_USED_EVERY`] per
    /// instance (and the statement writes nothing when another instance did within it): one
    /// request a minute pays for one short write, the others for nothing. A failure to record
    /// is logged, never the request's.
    async fn note_use(&self, key_id: &str) {
        if self.used.contains_key(key_id) {
            return;
        }
        self.used.insert(key_id.to_string(), ());
        if let Err(err) =
            accounts::record_use(&self.db, key_id, Timestamp::now(), LAST_USED_EVERY).await
        {
            tracing::warn!(error = %err, key_id, "could not record a key's last use");
        }
    }

    /// Who `credential` (a secret key or a client token) stands for, or `None` for an
    /// unknown, malformed, forged, expired or revoked one.
    pub async fn caller(&self, credential: &str) -> Result<Option<Caller>, ServiceError> {
        if client_token::looks_like_token(credential) {
            return self.token_caller(credential).await;
        }
        if !api_key::looks_like_key(credential) {
            return Ok(None);
        }
        let digest = api_key::digest(credential);
        let owner = match self.by_digest.get(&digest) {
            Some(owner) => owner,
            None => {
                let Some(holder) = accounts::authenticate(&self.db, &hex::encode(digest)).await?
                else {
                    return Ok(None);
                };
                let owner = Arc::new(KeyOwner::from_holder(holder));
                self.by_digest.insert(digest, owner.clone());
                owner
            }
        };
        if !owner.live_at(Timestamp::now()) {
            return Ok(None);
        }
        self.note_use(&owner.key_id).await;
        Ok(Some(Caller {
            account_id: owner.account_id.to_string(),
            key_id: owner.key_id.clone(),
            credential: Credential::SecretKey,
            scopes: owner.scopes,
            expires_at: None,
        }))
    }

    /// Whether `caller`'s key (the one used, or the one that minted the token used) is still
    /// live, as the database said at most [`LIVE_KEY_TTL`] ago. Long-lived connections ask
    /// this, so that revoking a key ends them too.
    pub async fn still_live(&self, caller: &Caller) -> Result<bool, ServiceError> {
        Ok(self
            .live_key(&caller.key_id)
            .await?
            .is_some_and(|key| *key.account_id == *caller.account_id))
    }

    async fn live_key(&self, key_id: &str) -> Result<Option<Arc<KeyOwner>>, ServiceError> {
        let owner = match self.by_id.get(key_id) {
            Some(owner) => owner,
            None => {
                let Some(holder) = accounts::unrevoked_key(&self.db, key_id).await? else {
                    return Ok(None);
                };
                let owner = Arc::new(KeyOwner::from_holder(holder));
                self.by_id.insert(key_id.to_string(), owner.clone());
                owner
            }
        };
        Ok(owner.live_at(Timestamp::now()).then_some(owner))
    }

    async fn token_caller(&self, text: &str) -> Result<Option<Caller>, ServiceError> {
        let Ok(token) = self.signer.check(text, Timestamp::now()) else {
            return Ok(None);
        };
        let Some(key) = self.live_key(&token.key_id).await? else {
            return Ok(None);
        };
        if *key.account_id != *token.account_id {
            return Ok(None);
        }
        self.note_use(&token.key_id).await;
        // A restricted key mints only within its scopes; this holds even for a token minted
        // before a downgrade dropped a scope the key's row names.
        let scopes = key
            .scopes
            .map_or(token.scopes, |held| token.scopes.intersection(held));
        Ok(Some(Caller {
            account_id: token.account_id,
            key_id: token.key_id,
            credential: Credential::ClientToken,
            scopes: Some(scopes),
            expires_at: Some(token.expires_at),
        }))
    }

    /// A client token for `caller`'s account with `scopes`, living `ttl_seconds`. Only a
    /// secret key mints tokens (the schema refuses client tokens before this is reached); a
    /// restricted one needs `CLIENT_TOKENS_CREATE`, and mints only scopes it holds.
    pub fn mint(
        &self,
        caller: &Caller,
        scopes: Scopes,
        ttl_seconds: i64,
    ) -> Result<ClientToken, ServiceError> {
        let forbidden = |scope: Option<Scope>| ServiceError::Forbidden {
            field: "createClientToken".into(),
            required_scope: scope.map(Scope::as_str),
        };
        if caller.is_client_token() {
            return Err(forbidden(None));
        }
        if !caller.may(Scope::ClientTokensCreate) {
            return Err(forbidden(Some(Scope::ClientTokensCreate)));
        }
        if let Some(missing) = scopes.iter().find(|scope| !caller.may(*scope)) {
            return Err(forbidden(Some(missing)));
        }
        if scopes.is_empty() {
            return Err(ServiceError::bad_input(
                "input.scopes",
                "name at least one scope",
            ));
        }
        if !(1..=client_token::MAX_TTL_SECONDS).contains(&ttl_seconds) {
            return Err(ServiceError::bad_input(
                "input.ttlSeconds",
                format!(
                    "ttlSeconds must be between 1 and {} (24 hours)",
                    client_token::MAX_TTL_SECONDS
                ),
            ));
        }
        Ok(ClientToken {
            key_id: caller.key_id.clone(),
            account_id: caller.account_id.clone(),
            scopes,
            expires_at: Timestamp::from_micros(Timestamp::now().micros() + ttl_seconds * 1_000_000),
        })
    }

    /// The token's text.
    pub fn sign(&self, token: &ClientToken) -> String {
        self.signer.mint(token)
    }
}
