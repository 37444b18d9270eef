//! Whether this instance can serve: its database answers.

use super::ServiceError;
use crate::persistence::Db;

/// One cheap round trip to the database.
pub async fn database_answers(db: &Db) -> Result<(), ServiceError> {
    Ok(db.ping().await?)
}
