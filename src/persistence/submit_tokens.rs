//! Submit tokens, kept by the hash of their text (see `domain::submit_token`).

use sea_orm::{ActiveModelTrait, ActiveValue::Set, ColumnTrait, EntityTrait, QueryFilter};

use super::entities::submit_tokens;
use super::{Db, DbError};
use crate::domain::time::Timestamp;

/// A token issued to `key_id` of `account_id`, usable first until `expires_at`.
pub struct NewSubmitToken<'a> {
    pub hash: &'a str,
    pub account_id: &'a str,
    pub key_id: &'a str,
    pub created_at: Timestamp,
    pub expires_at: Timestamp,
}

pub async fn insert(db: &Db, token: NewSubmitToken<'_>) -> Result<(), DbError> {
    submit_tokens::ActiveModel {
        token_hash: Set(token.hash.to_string()),
        account_id: Set(token.account_id.to_string()),
        key_id: Set(token.key_id.to_string()),
        created_at: Set(token.created_at.micros()),
        expires_at: Set(token.expires_at.micros()),
    }
    .insert(db.conn())
    .await?;
    Ok(())
}

/// When the token stored as `hash` stops being usable first, if `account_id` holds it.
pub async fn expiry(db: &Db, account_id: &str, hash: &str) -> Result<Option<Timestamp>, DbError> {
    Ok(submit_tokens::Entity::find_by_id(hash.to_string())
        .filter(submit_tokens::Column::AccountId.eq(account_id))
        .one(db.conn())
        .await?
        .map(|row| Timestamp::from_micros(row.expires_at)))
}

/// Deletes tokens that expired before `cutoff`; returns how many.
pub async fn sweep(db: &Db, cutoff: Timestamp) -> Result<u64, DbError> {
    let result = submit_tokens::Entity::delete_many()
        .filter(submit_tokens::Column::ExpiresAt.lt(cutoff.micros()))
        .exec(db.conn())
        .await?;
    Ok(result.rows_affected)
}
