//! Server-wide settings and secrets, shared by every gateway instance on the database.

use sea_orm::sea_query::OnConflict;
use sea_orm::{ActiveValue::Set, EntityTrait};

use super::entities::settings;
use super::{Db, DbError};
use crate::domain::time::Timestamp;

/// Returns the setting `name`, storing `make()` first if it is absent. Instances racing on a
/// fresh database all end up with the one value that was inserted first.
pub async fn get_or_insert(
    db: &Db,
    name: &str,
    make: impl FnOnce() -> String,
) -> Result<String, DbError> {
    if let Some(row) = settings::Entity::find_by_id(name).one(db.conn()).await? {
        return Ok(row.value);
    }
    let row = settings::ActiveModel {
        name: Set(name.to_string()),
        value: Set(make()),
        created_at: Set(Timestamp::now().micros()),
    };
    settings::Entity::insert(row)
        .on_conflict(
            OnConflict::column(settings::Column::Name)
                .do_nothing()
                .to_owned(),
        )
        .exec_without_returning(db.conn())
        .await?;
    settings::Entity::find_by_id(name)
        .one(db.conn())
        .await?
        .map(|row| row.value)
        .ok_or_else(|| DbError::NotFound(format!("setting {name}")))
}
