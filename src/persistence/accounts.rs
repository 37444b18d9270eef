//! Accounts and their API keys.

use sea_orm::{
    ActiveModelTrait, ActiveValue::Set, ColumnTrait, Condition, EntityTrait, PaginatorTrait,
    QueryFilter, QueryOrder, QuerySelect, TransactionTrait,
};

use super::entities::{accounts, api_keys};
use super::{Db, DbError};
use crate::domain::api_key;
use crate::domain::ids::{IdKind, new_id};
use crate::domain::scope::Scopes;
use crate::domain::time::Timestamp;

pub use crate::domain::account::{Account, ApiKey};

/// A new account with its first API key; the key's secret exists only in this value.
pub struct CreatedAccount {
    pub account: Account,
    pub api_key: String,
}

#[tracing::instrument(skip(db))]
pub async fn create(db: &Db, name: &str) -> Result<CreatedAccount, DbError> {
    let txn = db.conn().begin().await?;
    let account = accounts::ActiveModel {
        id: Set(new_id(IdKind::Account)),
        name: Set(name.to_string()),
        created_at: Set(Timestamp::now().micros()),
    }
    .insert(&txn)
    .await?;
    let (_, key) = insert_key(&txn, &account.id, KeyGrant::default()).await?;
    txn.commit().await?;
    Ok(CreatedAccount {
        account: super::rows::account(account),
        api_key: key.secret,
    })
}

/// What a new key is called and may do: by default unnamed and unrestricted.
#[derive(Clone, Debug, Default)]
pub struct KeyGrant {
    pub name: Option<String>,
    /// `None`: unrestricted.
    pub scopes: Option<Scopes>,
}

/// Stores a new key for `account_id`; returns it as stored, with its secret (which only this
/// value holds).
async fn insert_key(
    conn: &impl sea_orm::ConnectionTrait,
    account_id: &str,
    grant: KeyGrant,
) -> Result<(ApiKey, api_key::NewApiKey), DbError> {
    let key = api_key::generate();
    let row = api_keys::ActiveModel {
        id: Set(new_id(IdKind::ApiKey)),
        account_id: Set(account_id.to_string()),
        prefix: Set(key.prefix.clone()),
        key_hash: Set(key.hash.clone()),
        created_at: Set(Timestamp::now().micros()),
        revoked_at: Set(None),
        expires_at: Set(None),
        last_used_at: Set(None),
        name: Set(grant.name),
        scopes: Set(grant.scopes.map(Scopes::to_stored)),
    }
    .insert(conn)
    .await?;
    Ok((super::rows::api_key(row), key))
}

pub async fn count(db: &Db) -> Result<u64, DbError> {
    accounts::Entity::find()
        .count(db.conn())
        .await
        .map_err(DbError::from)
}

pub async fn find(db: &Db, id: &str) -> Result<Option<Account>, DbError> {
    Ok(accounts::Entity::find_by_id(id)
        .one(db.conn())
        .await?
        .map(super::rows::account))
}

/// Issues another key for an account; `None` when the account does not exist.
#[tracing::instrument(skip(db))]
pub async fn create_key(
    db: &Db,
    account_id: &str,
    grant: KeyGrant,
) -> Result<Option<(ApiKey, String)>, DbError> {
    if find(db, account_id).await?.is_none() {
        return Ok(None);
    }
    let (stored, key) = insert_key(db.conn(), account_id, grant).await?;
    Ok(Some((stored, key.secret)))
}

/// How many of the account's keys authenticate requests at `now` (neither revoked nor
/// expired).
pub async fn count_live_keys(db: &Db, account_id: &str, now: Timestamp) -> Result<u64, DbError> {
    api_keys::Entity::find()
        .filter(api_keys::Column::AccountId.eq(account_id))
        .filter(api_keys::Column::RevokedAt.is_null())
        .filter(
            Condition::any()
                .add(api_keys::Column::ExpiresAt.is_null())
                .add(api_keys::Column::ExpiresAt.gt(now.micros())),
        )
        .count(db.conn())
        .await
        .map_err(DbError::from)
}

/// Revokes a key named by its id (`key_...`) or its visible prefix; returns the revoked key,
/// or `None` when nothing matched. Revoking twice keeps the first revocation time.
#[tracing::instrument(skip(db))]
pub async fn revoke_key(db: &Db, id_or_prefix: &str) -> Result<Option<ApiKey>, DbError> {
    let found = api_keys::Entity::find()
        .filter(
            Condition::any()
                .add(api_keys::Column::Id.eq(id_or_prefix))
                .add(api_keys::Column::Prefix.eq(id_or_prefix)),
        )
        .all(db.conn())
        .await?;
    let [key] = found.as_slice() else {
        return Ok(None);
    };
    if key.revoked_at.is_some() {
        return Ok(Some(super::rows::api_key(key.clone())));
    }
    let mut active: api_keys::ActiveModel = key.clone().into();
    active.revoked_at = Set(Some(Timestamp::now().micros()));
    Ok(Some(super::rows::api_key(active.update(db.conn()).await?)))
}

pub async fn list_keys(db: &Db, account_id: &str) -> Result<Vec<ApiKey>, DbError> {
    api_keys::Entity::find()
        .filter(api_keys::Column::AccountId.eq(account_id))
        .order_by_asc(api_keys::Column::Id)
        .all(db.conn())
        .await
        .map(|rows| rows.into_iter().map(super::rows::api_key).collect())
        .map_err(DbError::from)
}

/// The account's newest `limit` keys, oldest first.
pub async fn recent_keys(db: &Db, account_id: &str, limit: u64) -> Result<Vec<ApiKey>, DbError> {
    let mut keys: Vec<ApiKey> = api_keys::Entity::find()
        .filter(api_keys::Column::AccountId.eq(account_id))
        .order_by_desc(api_keys::Column::Id)
        .limit(limit)
        .all(db.conn())
        .await?
        .into_iter()
        .map(super::rows::api_key)
        .collect();
    keys.reverse();
    Ok(keys)
}

/// A key's account, expiry and scopes, if it is not revoked (whether it has expired is the
/// caller's to judge against its clock).
pub struct KeyHolder {
    pub key_id: String,
    pub account_id: String,
    pub expires_at: Option<Timestamp>,
    /// `None`: unrestricted.
    pub scopes: Option<Scopes>,
}

fn holder(k: api_keys::Model) -> KeyHolder {
    KeyHolder {
        key_id: k.id,
        account_id: k.account_id,
        expires_at: k.expires_at.map(Timestamp::from_micros),
        scopes: k.scopes.as_deref().map(Scopes::from_stored),
    }
}

/// The unrevoked key `key_id`.
pub async fn unrevoked_key(db: &Db, key_id: &str) -> Result<Option<KeyHolder>, DbError> {
    let key = api_keys::Entity::find_by_id(key_id)
        .filter(api_keys::Column::RevokedAt.is_null())
        .one(db.conn())
        .await?;
    Ok(key.map(holder))
}

/// The unrevoked key stored as `key_hash`.
pub async fn authenticate(db: &Db, key_hash: &str) -> Result<Option<KeyHolder>, DbError> {
    let key = api_keys::Entity::find()
        .filter(api_keys::Column::KeyHash.eq(key_hash))
        .filter(api_keys::Column::RevokedAt.is_null())
        .one(db.conn())
        .await?;
    Ok(key.map(holder))
}

/// Records that `key_id` was used at `now`, unless that was already recorded less than
/// `every` ago (by any instance): the row is written at most once per `every`.
pub async fn record_use(
    db: &Db,
    key_id: &str,
    now: Timestamp,
    every: std::time::Duration,
) -> Result<(), DbError> {
    let stale = now.micros() - i64::try_from(every.as_micros()).unwrap_or(i64::MAX);
    api_keys::Entity::update_many()
        .col_expr(api_keys::Column::LastUsedAt, now.micros().into())
        .filter(api_keys::Column::Id.eq(key_id))
        .filter(
            Condition::any()
                .add(api_keys::Column::LastUsedAt.is_null())
                .add(api_keys::Column::LastUsedAt.lt(stale)),
        )
        .exec(db.conn())
        .await?;
    Ok(())
}

/// A rolled key: its successor (whose secret exists only here) and the key as it now stands.
pub struct RolledKey {
    pub new_key: ApiKey,
    pub secret: String,
    pub old_key: ApiKey,
}

/// Why a key could not be rolled.
#[derive(Debug, PartialEq, Eq)]
pub enum RollRefused {
    /// No single key matched (or, with `account`, none of that account's).
    NotFound,
    /// The key is revoked or has expired.
    NotLive,
}

/// Issues a successor to the key named by its id or visible prefix (of `account`, when
/// given), and makes the old key expire `overlap_secs` after `now` (sooner if it was already
/// due to), in one transaction. The successor holds what the old key held.
#[tracing::instrument(skip(db))]
pub async fn roll_key(
    db: &Db,
    id_or_prefix: &str,
    account: Option<&str>,
    overlap_secs: i64,
    now: Timestamp,
) -> Result<Result<RolledKey, RollRefused>, DbError> {
    let txn = db.begin_write().await?;
    let mut find = api_keys::Entity::find().filter(
        Condition::any()
            .add(api_keys::Column::Id.eq(id_or_prefix))
            .add(api_keys::Column::Prefix.eq(id_or_prefix)),
    );
    if let Some(account) = account {
        find = find.filter(api_keys::Column::AccountId.eq(account));
    }
    let found = find.lock_exclusive().all(&txn).await?;
    let [old] = found.as_slice() else {
        txn.rollback().await?;
        return Ok(Err(RollRefused::NotFound));
    };
    if !super::rows::api_key(old.clone()).is_live(now) {
        txn.rollback().await?;
        return Ok(Err(RollRefused::NotLive));
    }
    let expires = now.plus_seconds(overlap_secs).micros();
    let mut active: api_keys::ActiveModel = old.clone().into();
    active.expires_at = Set(Some(old.expires_at.map_or(expires, |at| at.min(expires))));
    let old_key = super::rows::api_key(active.update(&txn).await?);
    let grant = KeyGrant {
        name: old.name.clone(),
        scopes: old.scopes.as_deref().map(Scopes::from_stored),
    };
    let (new_key, key) = insert_key(&txn, &old.account_id, grant).await?;
    txn.commit().await?;
    Ok(Ok(RolledKey {
        new_key,
        secret: key.secret,
        old_key,
    }))
}
