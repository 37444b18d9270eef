//! Submit tokens: issued to a secret key (the merchant's server rendering a form), then
//! accepted as the `idempotencyKey` of one money-moving mutation. The first use claims the
//! token's key on the rail like any other key, atomically on every database, and every repeat
//! replays that outcome. Optionally, client tokens must use one for every money-moving
//! mutation, so that one rendered form can move money at most once.

use super::ServiceError;
use super::accounts::Caller;
use crate::domain::idempotency::IdempotencyKey;
use crate::domain::submit_token::{self, DEFAULT_TTL_SECONDS};
use crate::domain::time::Timestamp;
use crate::persistence::{Db, idempotency_keys, submit_tokens};

/// The operator's settings for submit tokens.
#[derive(Clone, Copy, Debug)]
pub struct SubmitTokenSettings {
    /// Client tokens' money-moving mutations must carry a submit token as their key.
    pub required_for_client_tokens: bool,
    /// The longest a token may wait for its first use, in seconds.
    pub max_ttl_seconds: i64,
}

impl Default for SubmitTokenSettings {
    fn default() -> Self {
        Self {
            required_for_client_tokens: false,
            max_ttl_seconds: submit_token::MAX_TTL_SECONDS,
        }
    }
}

/// A token as issued: its text is shown once.
pub struct IssuedSubmitToken {
    pub token: String,
    pub expires_at: Timestamp,
}

#[derive(Clone)]
pub struct SubmitTokens {
    db: Db,
    settings: SubmitTokenSettings,
}

impl SubmitTokens {
    pub fn new(db: Db, settings: SubmitTokenSettings) -> Self {
        Self { db, settings }
    }

    /// A new token for `caller`'s account, usable first for `ttl_seconds`.
    pub async fn issue(
        &self,
        caller: &Caller,
        ttl_seconds: i64,
    ) -> Result<IssuedSubmitToken, ServiceError> {
        debug_assert_eq!(DEFAULT_TTL_SECONDS, 1_800, "the schema's default");
        let max = self.settings.max_ttl_seconds;
        if !(1..=max).contains(&ttl_seconds) {
            return Err(ServiceError::bad_input(
                "input.ttlSeconds",
                format!("ttlSeconds must be between 1 and {max}"),
            ));
        }
        let new = submit_token::generate();
        let now = Timestamp::now();
        let expires_at = now.plus_seconds(ttl_seconds);
        submit_tokens::insert(
            &self.db,
            submit_tokens::NewSubmitToken {
                hash: &new.hash,
                account_id: &caller.account_id,
                key_id: &caller.key_id,
                created_at: now,
                expires_at,
            },
        )
        .await?;
        Ok(IssuedSubmitToken {
            token: new.token,
            expires_at,
        })
    }

    /// Whether `key` may be the idempotency key of a money-moving mutation by `caller`
    /// (`None`: the mutation was sent without one). A submit token must be the account's
    /// and, unless its first use already claimed its key (a repeat, answered by the replay),
    /// not expired. Where the operator requires it, a client token must send one.
    pub async fn admit(
        &self,
        caller: &Caller,
        key: Option<&IdempotencyKey>,
    ) -> Result<(), ServiceError> {
        let Some(hash) = key.and_then(IdempotencyKey::submit_token_hash) else {
            if caller.is_client_token() && self.settings.required_for_client_tokens {
                return Err(ServiceError::InvalidIdempotencyKey(
                    "this gateway requires client tokens to send a submit token (sbt_...) as \
                     idempotencyKey; the merchant's server obtains one with createSubmitToken"
                        .into(),
                ));
            }
            return Ok(());
        };
        let Some(expires_at) = submit_tokens::expiry(&self.db, &caller.account_id, hash).await?
        else {
            return Err(ServiceError::InvalidIdempotencyKey(
                "unknown submit token".into(),
            ));
        };
        if Timestamp::now() < expires_at {
            return Ok(());
        }
        let key = key.map(IdempotencyKey::as_str).unwrap_or_default();
        if idempotency_keys::find(&self.db, &caller.account_id, key)
            .await?
            .is_some()
        {
            // Used before it expired: the rail replays that outcome.
            return Ok(());
        }
        Err(ServiceError::InvalidIdempotencyKey(
            "this submit token has expired".into(),
        ))
    }

    /// Removes tokens that expired before `cutoff` (the idempotency retention ago): the
    /// record of a token's use is kept as long as the token (see
    /// `idempotency_keys::sweep`), so a token is either known with its use or refused.
    pub async fn sweep(&self, cutoff: Timestamp) -> Result<u64, ServiceError> {
        Ok(submit_tokens::sweep(&self.db, cutoff).await?)
    }
}
