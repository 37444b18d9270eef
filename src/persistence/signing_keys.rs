//! The gateway's signing secrets in storage: the first made on a fresh database, more added
//! and old ones retired by the operator, all of them read by every instance.

use sea_orm::ActiveValue::Set;
use sea_orm::sea_query::OnConflict;
use sea_orm::{ActiveModelTrait, ColumnTrait, EntityTrait, QueryFilter, QueryOrder};

use super::entities::signing_keys;
use super::{Db, DbError};
use crate::domain::keyring::{FIRST_KID, SigningKey};
use crate::domain::time::Timestamp;

/// A stored secret, opened with the database's sealer.
fn key(db: &Db, row: signing_keys::Model) -> Result<SigningKey, DbError> {
    Ok(SigningKey {
        kid: u16::try_from(row.kid).unwrap_or(u16::MAX),
        secret: db
            .sealer()
            .open(&row.secret)
            .map_err(|e| DbError::Other(e.to_string()))?,
        created_at: Timestamp::from_micros(row.created_at),
        retired_at: row.retired_at.map(Timestamp::from_micros),
    })
}

/// Every signing secret, retired ones too, by key id.
pub async fn all(db: &Db) -> Result<Vec<SigningKey>, DbError> {
    signing_keys::Entity::find()
        .order_by_asc(signing_keys::Column::Kid)
        .all(db.conn())
        .await?
        .into_iter()
        .map(|row| key(db, row))
        .collect()
}

/// The secrets, with a first one made by `make` when there is none (instances racing on a
/// fresh database all keep the one inserted first).
pub async fn all_or_first(
    db: &Db,
    make: impl FnOnce() -> String,
) -> Result<Vec<SigningKey>, DbError> {
    let keys = all(db).await?;
    if !keys.is_empty() {
        return Ok(keys);
    }
    signing_keys::Entity::insert(signing_keys::ActiveModel {
        kid: Set(i32::from(FIRST_KID)),
        secret: Set(db.sealer().seal(&make())),
        created_at: Set(Timestamp::now().micros()),
        retired_at: Set(None),
    })
    .on_conflict(
        OnConflict::column(signing_keys::Column::Kid)
            .do_nothing()
            .to_owned(),
    )
    .exec_without_returning(db.conn())
    .await?;
    all(db).await
}

/// Adds a secret made by `make` under the next key id; returns it.
pub async fn add(db: &Db, make: impl FnOnce() -> String) -> Result<SigningKey, DbError> {
    let txn = db.begin_write().await?;
    let newest = signing_keys::Entity::find()
        .order_by_desc(signing_keys::Column::Kid)
        .one(&txn)
        .await?;
    let kid = newest.map_or(0, |row| row.kid + 1);
    if kid > i32::from(u16::MAX) {
        txn.rollback().await?;
        return Err(DbError::NotFound("a free key id".into()));
    }
    let row = signing_keys::ActiveModel {
        kid: Set(kid),
        secret: Set(db.sealer().seal(&make())),
        created_at: Set(Timestamp::now().micros()),
        retired_at: Set(None),
    }
    .insert(&txn)
    .await?;
    txn.commit().await?;
    key(db, row)
}

/// Why a secret was not retired.
#[derive(Debug, PartialEq, Eq)]
pub enum RetireRefused {
    NotFound,
    /// It is the only live secret: retiring it would leave nothing to sign with.
    LastLive,
}

/// Retires secret `kid` (at once: what it signed stops being accepted as instances reload
/// the secrets); retiring twice keeps the first time.
pub async fn retire(db: &Db, kid: u16) -> Result<Result<SigningKey, RetireRefused>, DbError> {
    let txn = db.begin_write().await?;
    let rows = signing_keys::Entity::find()
        .filter(signing_keys::Column::RetiredAt.is_null())
        .all(&txn)
        .await?;
    let Some(row) = signing_keys::Entity::find_by_id(i32::from(kid))
        .one(&txn)
        .await?
    else {
        txn.rollback().await?;
        return Ok(Err(RetireRefused::NotFound));
    };
    if row.retired_at.is_some() {
        txn.rollback().await?;
        return key(db, row).map(Ok);
    }
    if rows.len() <= 1 {
        txn.rollback().await?;
        return Ok(Err(RetireRefused::LastLive));
    }
    let mut active: signing_keys::ActiveModel = row.into();
    active.retired_at = Set(Some(Timestamp::now().micros()));
    let row = active.update(&txn).await?;
    txn.commit().await?;
    key(db, row).map(Ok)
}
