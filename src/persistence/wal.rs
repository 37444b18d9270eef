//! Positions in PostgreSQL's write-ahead log: how far the primary has written, and how far a
//! streaming replica has replayed. SQLite has neither.

use sea_orm::{ConnectionTrait, DbBackend, Statement};

use super::{Backend, Db, DbError};
use crate::domain::consistency::Lsn;

/// The primary's current insert position, read after whatever this caller committed: never
/// behind any commit that finished before the call, also one made without waiting for the log
/// to be written (`synchronous_commit = off`), whose record may still be only inserted.
/// `None` on SQLite.
pub async fn written(db: &Db) -> Result<Option<Lsn>, DbError> {
    if db.backend() != Backend::Postgres {
        return Ok(None);
    }
    position(db, "SELECT pg_current_wal_insert_lsn()::text AS lsn").await
}

/// How far a streaming replica has replayed the primary's log; `None` when the server is not
/// a replica (or is SQLite).
pub async fn replayed(db: &Db) -> Result<Option<Lsn>, DbError> {
    if db.backend() != Backend::Postgres {
        return Ok(None);
    }
    position(db, "SELECT pg_last_wal_replay_lsn()::text AS lsn").await
}

async fn position(db: &Db, sql: &str) -> Result<Option<Lsn>, DbError> {
    let row = db
        .conn()
        .query_one_raw(Statement::from_string(DbBackend::Postgres, sql))
        .await?;
    let Some(text) = row.and_then(|row| row.try_get::<Option<String>>("", "lsn").ok().flatten())
    else {
        return Ok(None);
    };
    Lsn::parse_pg(&text)
        .map(Some)
        .ok_or_else(|| DbError::unreadable("log position", &text))
}
