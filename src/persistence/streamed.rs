//! A page's rows read from the driver one at a time, each turned into what the page holds as
//! it arrives.
//!
//! On PostgreSQL the statement runs on the driver of page reads' own pool (whose connections
//! keep generic plans, see `db/pages.rs`), or of the main pool for a page planned for its
//! values ([`Planning`]), directly: a page's rows are read from
//! the connection's stream and each is read into its object at once. Through the ORM's
//! `query_all`, the driver first collected every row into a vector, which was then copied
//! into a second vector of the ORM's rows (each the size of the largest driver's row) before
//! any was read: two vectors of 51 rows and their copies per page. On SQLite, the embedded
//! database, rows come through the ORM as before.

use std::sync::Arc;

use futures_util::TryStreamExt;
use sea_orm::sqlx::{self, AssertSqlSafe};
use sea_orm::{ConnectionTrait, DbBackend, DbErr, QueryResult, RuntimeErr, Statement};
use sea_query_sqlx::SqlxValues;

use super::{Db, DbError};

/// What a page read holds: its first `limit` rows read, whether another followed, and the
/// value of the statement's total column in its first row, when asked for.
pub(super) struct Read<T> {
    pub rows: Vec<T>,
    pub more: bool,
    pub total: Option<QueryResult>,
}

/// How PostgreSQL plans a page's statement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Planning {
    /// The generic plan page reads keep: prepared once per connection of their own pool (the
    /// main pool's where there is none). A page's probe for the other direction stays a
    /// prepared statement of the main pool.
    Kept,
    /// A plan made for the statement's values, each time: run unnamed on the main pool, which
    /// PostgreSQL plans with the values bound, unless the server is set to force generic
    /// plans (`plan_cache_mode`), which no page then escapes. Such texts are never prepared
    /// by name on that pool. It costs a planning and one more round trip (parse, then bind).
    /// For a page whose best walk depends on its values, such as a narrow range of amounts,
    /// which the amount's index finds where the generic plan walks the account.
    ForValues,
}

/// Runs `statement`, which selects at most `limit + 1` rows, and reads each of its first
/// `limit` rows with `each`; the first row is kept whole when `keep_first` is set (it carries
/// the listing's total).
pub(super) async fn read<T>(
    db: &Db,
    statement: Statement,
    planning: Planning,
    limit: usize,
    keep_first: bool,
    mut each: impl FnMut(&QueryResult) -> Result<T, DbError>,
) -> Result<Read<T>, DbError> {
    let mut read = Read {
        rows: Vec::with_capacity(limit.min(MAX_RESERVED)),
        more: false,
        total: None,
    };
    let mut take = |row: QueryResult| -> Result<(), DbError> {
        if read.rows.len() >= limit {
            read.more = true;
            return Ok(());
        }
        read.rows.push(each(&row)?);
        if keep_first && read.total.is_none() {
            read.total = Some(row);
        }
        Ok(())
    };
    match db.conn().get_database_backend() {
        DbBackend::Postgres => {
            let pool = match planning {
                Planning::Kept => db.page_reads(),
                Planning::ForValues => db.conn(),
            }
            .get_postgres_connection_pool();
            let values = SqlxValues(statement.values.unwrap_or(sea_orm::Values(Vec::new())));
            let query = sqlx::query_with(AssertSqlSafe(statement.sql.as_str()), values)
                .persistent(planning == Planning::Kept);
            // Run on the pool, the driver's stream takes a connection itself: its checkout
            // (which may have to open a connection) lives in the stream's own allocation, not
            // in this future, which every caller up to the schema's resolver would carry.
            let mut rows = query.fetch(pool);
            let fetched = loop {
                match rows.try_next().await {
                    Ok(Some(row)) => {
                        if let Err(err) = take(QueryResult::from(row)) {
                            db.ran(false);
                            return Err(err);
                        }
                    }
                    Ok(None) => break Ok(()),
                    Err(err) => break Err(err),
                }
            };
            // Told as the ORM tells of its statements: a request's watch on a replica is
            // raised by a page read that failed there.
            db.ran(fetched.is_err());
            fetched.map_err(|err| failed(DbErr::Query, err))?;
        }
        _ => {
            for row in db.conn().query_all_raw(statement).await? {
                take(row)?;
            }
        }
    }
    Ok(read)
}

/// The most rows reserved ahead of a read: a page's size is bounded by the API, but a
/// reader's `limit` need not be.
const MAX_RESERVED: usize = 256;

/// A driver's error as the ORM reports it, so that [`DbError`] tells a connection's failure
/// (retryable) from a statement's as it does for every other statement.
fn failed(kind: fn(RuntimeErr) -> DbErr, err: sqlx::Error) -> DbError {
    DbError::from(kind(RuntimeErr::SqlxError(Arc::new(err))))
}
