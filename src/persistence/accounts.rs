//! Accounts and their API keys.

use sea_orm::{
    ActiveModelTrait, ActiveValue::Set, ColumnTrait, Condition, EntityTrait, PaginatorTrait,
    QueryFilter, QueryOrder, TransactionTrait,
};

use super::entities::{accounts, api_keys};
use super::{Db, DbError};
use crate::domain::api_key;
use crate::domain::ids::{IdKind, new_id};
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
    let key = insert_key(&txn, &account.id).await?;
    txn.commit().await?;
    Ok(CreatedAccount {
        account: super::rows::account(account),
        api_key: key.secret,
    })
}

async fn insert_key(
    conn: &impl sea_orm::ConnectionTrait,
    account_id: &str,
) -> Result<api_key::NewApiKey, DbError> {
    let key = api_key::generate();
    api_keys::ActiveModel {
        id: Set(new_id(IdKind::ApiKey)),
        account_id: Set(account_id.to_string()),
        prefix: Set(key.prefix.clone()),
        key_hash: Set(key.hash.clone()),
        created_at: Set(Timestamp::now().micros()),
        revoked_at: Set(None),
    }
    .insert(conn)
    .await?;
    Ok(key)
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
pub async fn create_key(db: &Db, account_id: &str) -> Result<Option<(ApiKey, String)>, DbError> {
    if find(db, account_id).await?.is_none() {
        return Ok(None);
    }
    let key = insert_key(db.conn(), account_id).await?;
    let row = api_keys::Entity::find()
        .filter(api_keys::Column::KeyHash.eq(key.hash))
        .one(db.conn())
        .await?
        .ok_or_else(|| DbError::NotFound("api key just inserted".into()))?;
    Ok(Some((super::rows::api_key(row), key.secret)))
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

/// The account of the live (not revoked) key `key_id`.
pub async fn live_key_account(db: &Db, key_id: &str) -> Result<Option<String>, DbError> {
    let key = api_keys::Entity::find_by_id(key_id)
        .filter(api_keys::Column::RevokedAt.is_null())
        .one(db.conn())
        .await?;
    Ok(key.map(|k| k.account_id))
}

/// The id of the live (not revoked) key stored as `key_hash`, and the account it belongs to.
pub async fn authenticate(db: &Db, key_hash: &str) -> Result<Option<(String, String)>, DbError> {
    let key = api_keys::Entity::find()
        .filter(api_keys::Column::KeyHash.eq(key_hash))
        .filter(api_keys::Column::RevokedAt.is_null())
        .one(db.conn())
        .await?;
    Ok(key.map(|k| (k.id, k.account_id)))
}
