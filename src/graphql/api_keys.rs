//! `apiKeys`, `createApiKey` and `rollApiKey`: what an account's keys are (never their
//! secrets), restricted keys issued for one job, and a key replaced by a successor while the
//! old one keeps working for an overlap the caller chooses. All of it is for unrestricted
//! keys only (the scope check refuses any other credential before these run).

use async_graphql::{Context, Enum, ID, InputObject, Result, SimpleObject};

use super::Viewer;
use super::scalars::DateTime;
use crate::domain::account::{self, ApiKey as StoredKey, MAX_LIVE_KEYS, MAX_ROLL_OVERLAP_SECS};
use crate::domain::scope::{Scope, Scopes};
use crate::domain::time::Timestamp;
use crate::error::ApiError;
use crate::persistence::accounts::KeyGrant;
use crate::persistence::{Db, accounts};
use crate::service::accounts::Keys;

/// What a restricted key may do.
#[derive(Enum, Copy, Clone, Debug, PartialEq, Eq)]
pub enum ApiKeyScope {
    /// `viewer`, `payment`, `payments`, `node`, `nodes`, `idempotencyRecord`, `events` and
    /// the subscriptions.
    PaymentsRead,
    /// `createPayment`, `confirmPayment`, `cancelPayment`, `updatePayment`,
    /// `createSubmitToken`.
    PaymentsWrite,
    /// `refundPayment`.
    RefundsWrite,
    /// `capturePayment`, and `cancelPayment` of an authorized payment (a void).
    PaymentsCapture,
    /// `webhookEndpoints` and the mutations of endpoints and deliveries.
    WebhooksManage,
    /// `createClientToken`, with scopes the key holds itself.
    ClientTokensCreate,
}

impl From<ApiKeyScope> for Scope {
    fn from(scope: ApiKeyScope) -> Self {
        match scope {
            ApiKeyScope::PaymentsRead => Scope::PaymentsRead,
            ApiKeyScope::PaymentsWrite => Scope::PaymentsWrite,
            ApiKeyScope::RefundsWrite => Scope::RefundsWrite,
            ApiKeyScope::PaymentsCapture => Scope::PaymentsCapture,
            ApiKeyScope::WebhooksManage => Scope::WebhooksManage,
            ApiKeyScope::ClientTokensCreate => Scope::ClientTokensCreate,
        }
    }
}

impl From<Scope> for ApiKeyScope {
    fn from(scope: Scope) -> Self {
        match scope {
            Scope::PaymentsRead => ApiKeyScope::PaymentsRead,
            Scope::PaymentsWrite => ApiKeyScope::PaymentsWrite,
            Scope::RefundsWrite => ApiKeyScope::RefundsWrite,
            Scope::PaymentsCapture => ApiKeyScope::PaymentsCapture,
            Scope::WebhooksManage => ApiKeyScope::WebhooksManage,
            Scope::ClientTokensCreate => ApiKeyScope::ClientTokensCreate,
        }
    }
}

/// An API key as the gateway keeps it: its secret is shown once, when it is issued, and
/// never stored.
#[derive(SimpleObject)]
pub struct ApiKey {
    /// `key_...`
    pub id: ID,
    /// The first characters of the key, to recognise it by.
    pub prefix: String,
    /// What its owner called it.
    pub name: Option<String>,
    /// What the key may do; `null` for an unrestricted key (everything).
    pub scopes: Option<Vec<ApiKeyScope>>,
    pub created_at: DateTime,
    /// When the key last authenticated a request (recorded at most once a minute).
    pub last_used_at: Option<DateTime>,
    /// When a rolled key stops working; `null` until the key is rolled.
    pub expires_at: Option<DateTime>,
    pub revoked_at: Option<DateTime>,
    /// Whether the key authenticates requests now.
    pub live: bool,
}

impl ApiKey {
    fn shown(key: StoredKey, now: Timestamp) -> Self {
        Self {
            live: key.is_live(now),
            id: ID(key.id),
            prefix: key.prefix,
            name: key.name,
            scopes: key
                .scopes
                .map(|scopes| scopes.iter().map(ApiKeyScope::from).collect()),
            created_at: DateTime(key.created_at),
            last_used_at: key.last_used_at.map(DateTime),
            expires_at: key.expires_at.map(DateTime),
            revoked_at: key.revoked_at.map(DateTime),
        }
    }
}

#[derive(InputObject, Clone, Debug)]
pub struct CreateApiKeyInput {
    /// What the key is for (1 to 100 characters), shown in `apiKeys`.
    pub name: String,
    /// What the key may do: at least one scope.
    pub scopes: Vec<ApiKeyScope>,
}

#[derive(SimpleObject)]
pub struct CreateApiKeyPayload {
    /// The key's secret, shown only in this answer.
    pub api_key: String,
    pub key: ApiKey,
}

#[derive(InputObject, Clone, Debug)]
pub struct RollApiKeyInput {
    /// The key to replace: its id (`key_...`).
    pub key_id: ID,
    /// How long the old key keeps working beside the new one: 0 (it stops at once) to
    /// 604,800 seconds (7 days).
    #[graphql(default = 0)]
    pub expire_old_in_seconds: i32,
}

#[derive(SimpleObject)]
pub struct RollApiKeyPayload {
    /// The new key's secret, shown only in this answer.
    pub api_key: String,
    /// The new key.
    pub key: ApiKey,
    /// The old key, with the time it stops working.
    pub previous_key: ApiKey,
}

/// The most keys `apiKeys` lists: every roll adds one, so an account's keys grow without
/// bound while a listing must not.
pub const MAX_LISTED_KEYS: u64 = 100;

/// The viewer's newest [`MAX_LISTED_KEYS`] keys, oldest first.
pub async fn list(ctx: &Context<'_>) -> Result<Vec<ApiKey>> {
    let viewer = ctx.data::<Viewer>()?;
    let db = ctx.data::<Db>()?;
    let now = Timestamp::now();
    Ok(
        accounts::recent_keys(db, &viewer.account_id, MAX_LISTED_KEYS)
            .await?
            .into_iter()
            .map(|key| ApiKey::shown(key, now))
            .collect(),
    )
}

/// Issues a restricted key for the viewer's account.
pub async fn create(ctx: &Context<'_>, input: CreateApiKeyInput) -> Result<CreateApiKeyPayload> {
    let viewer = ctx.data::<Viewer>()?;
    let name =
        account::key_name(&input.name).map_err(|not| ApiError::bad_input("input.name", not))?;
    let scopes: Scopes = input.scopes.iter().map(|s| Scope::from(*s)).collect();
    if scopes.is_empty() {
        return Err(ApiError::bad_input(
            "input.scopes",
            "name at least one scope (an unrestricted key is issued with `graphpay key create`)",
        )
        .into());
    }
    let db = ctx.data::<Db>()?;
    let now = Timestamp::now();
    if accounts::count_live_keys(db, &viewer.account_id, now).await? >= MAX_LIVE_KEYS {
        return Err(ApiError::bad_input(
            "input",
            format!("an account holds at most {MAX_LIVE_KEYS} live keys; revoke one first"),
        )
        .into());
    }
    let grant = KeyGrant {
        name: Some(name),
        scopes: Some(scopes),
    };
    let (key, secret) = accounts::create_key(db, &viewer.account_id, grant)
        .await?
        .ok_or_else(|| ApiError::internal("the viewer's account is gone"))?;
    tracing::info!(key = %key.id, scopes = %scopes.to_stored(), "restricted API key created");
    Ok(CreateApiKeyPayload {
        api_key: secret,
        key: ApiKey::shown(key, now),
    })
}

pub async fn roll(ctx: &Context<'_>, input: RollApiKeyInput) -> Result<RollApiKeyPayload> {
    let viewer = ctx.data::<Viewer>()?;
    let overlap = i64::from(input.expire_old_in_seconds);
    if !(0..=MAX_ROLL_OVERLAP_SECS).contains(&overlap) {
        return Err(ApiError::bad_input(
            "input.expireOldInSeconds",
            format!("expireOldInSeconds must be between 0 and {MAX_ROLL_OVERLAP_SECS} (7 days)"),
        )
        .into());
    }
    if !input.key_id.starts_with("key_") {
        return Err(ApiError::bad_input("input.keyId", "a key id starts with key_").into());
    }
    let db = ctx.data::<Db>()?;
    let now = Timestamp::now();
    let rolled = match accounts::roll_key(db, &input.key_id, Some(&viewer.account_id), overlap, now)
        .await?
    {
        Ok(rolled) => rolled,
        Err(accounts::RollRefused::NotFound) => {
            return Err(
                ApiError::bad_input("input.keyId", "no key of this account has this id").into(),
            );
        }
        Err(accounts::RollRefused::NotLive) => {
            return Err(ApiError::bad_input(
                "input.keyId",
                "this key is revoked or expired; only a live key can be rolled",
            )
            .into());
        }
    };
    ctx.data::<Keys>()?.forget(&rolled.old_key.id);
    tracing::info!(old = %rolled.old_key.id, new = %rolled.new_key.id, overlap, "API key rolled");
    Ok(RollApiKeyPayload {
        api_key: rolled.secret,
        key: ApiKey::shown(rolled.new_key, now),
        previous_key: ApiKey::shown(rolled.old_key, now),
    })
}
