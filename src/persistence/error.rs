//! What storage failures the rest of the gateway may tell apart. sea-orm's own error stays in
//! this module: it is classified once, here.

use sea_orm::{DbErr, RuntimeErr, SqlErr};

/// A storage failure.
#[derive(Debug, thiserror::Error)]
pub enum DbError {
    /// A row that should exist does not.
    #[error("not found: {0}")]
    NotFound(String),
    /// A unique constraint refused the write (someone else wrote first).
    #[error("conflict: {0}")]
    Conflict(String),
    /// The database could not be reached or no connection was free in time; retrying later
    /// may succeed.
    #[error("database unavailable: {0}")]
    Unavailable(String),
    /// Anything else (a bug, a corrupt row, a refused statement).
    #[error("database: {0}")]
    Other(String),
}

impl DbError {
    /// Whether the same operation may succeed if tried again later.
    pub fn is_retryable(&self) -> bool {
        matches!(self, DbError::Unavailable(_))
    }

    /// A stored value that no longer reads as its type: corruption, reported as such.
    pub(crate) fn unreadable(what: &str, value: &str) -> Self {
        DbError::Other(format!("unreadable stored {what}: {value:?}"))
    }
}

impl From<DbErr> for DbError {
    fn from(err: DbErr) -> Self {
        if let Some(SqlErr::UniqueConstraintViolation(detail)) = err.sql_err() {
            return DbError::Conflict(detail);
        }
        match err {
            DbErr::RecordNotFound(what) => DbError::NotFound(what),
            DbErr::ConnectionAcquire(e) => DbError::Unavailable(e.to_string()),
            DbErr::Conn(RuntimeErr::SqlxError(e)) if is_connection_error(&e) => {
                DbError::Unavailable(e.to_string())
            }
            DbErr::Conn(e) => DbError::Unavailable(e.to_string()),
            DbErr::Exec(RuntimeErr::SqlxError(e)) | DbErr::Query(RuntimeErr::SqlxError(e))
                if is_connection_error(&e) =>
            {
                DbError::Unavailable(e.to_string())
            }
            other => DbError::Other(other.to_string()),
        }
    }
}

fn is_connection_error(err: &sea_orm::sqlx::Error) -> bool {
    use sea_orm::sqlx::Error;
    matches!(
        err,
        Error::Io(_)
            | Error::PoolTimedOut
            | Error::PoolClosed
            | Error::WorkerCrashed
            | Error::Tls(_)
    )
}
