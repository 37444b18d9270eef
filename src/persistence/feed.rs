//! Reading the event log as the change feed.
//!
//! Every change of a payment writes an event in the same transaction (see `payment_writes`);
//! readers tail the log by position instead of being told by the writer, so no write
//! transaction notifies and a reader that was away resumes where it stopped.
//!
//! **PostgreSQL.** A position from a sequence is taken when the event is written, not when it
//! commits, so positions become visible out of order: a reader that went by position alone
//! would pass over an event whose transaction commits after a later position's. Each event
//! therefore records the id of the transaction that wrote it (`pg_current_xact_id()`), and a
//! reader takes only events whose transaction id is below the oldest transaction still
//! running (`pg_snapshot_xmin(pg_current_snapshot())`): every transaction below that line has
//! committed or rolled back, so the set of events below it is final, and reading them in
//! `(txid, position)` order never skips one that appears later. The price is that a long
//! write transaction anywhere in the cluster holds readers back until it ends; the gateway's
//! own transactions are short. Two changes of one payment are read in commit order because
//! each transaction writes the payment's row first (see `payment_writes::transitions`): the
//! second writer waits for the first to commit, and takes its transaction id after it.
//!
//! **SQLite** has one writer at a time, so the row id is commit order.

use sea_orm::{ConnectionTrait, DbBackend, QueryResult, Statement};

use super::{Db, DbError, payments, rows};
use crate::domain::feed::{FeedEntry, FeedPosition};
use crate::domain::payment::PaymentEvent;
use crate::domain::status::PaymentStatus;
use crate::domain::time::Timestamp;

const READ_PG: &str = "\
SELECT txid, position, id, payment_id, account_id, from_status, to_status, reason, created_at,
    snapshot, event_type, refund_id, refund_snapshot
FROM payment_events
WHERE (txid, position) > ($1, $2)
    AND txid < pg_snapshot_xmin(pg_current_snapshot())::text::bigint
ORDER BY txid, position
LIMIT $3";

const READ_SQLITE: &str = "\
SELECT 0 AS txid, rowid AS position, id, payment_id, account_id, from_status, to_status, reason,
    created_at, snapshot, event_type, refund_id, refund_snapshot
FROM payment_events
WHERE rowid > ?
ORDER BY rowid
LIMIT ?";

/// Where the log ends now: everything before it is history to a reader starting here.
pub async fn head(db: &Db) -> Result<FeedPosition, DbError> {
    let sql = match db.conn().get_database_backend() {
        DbBackend::Postgres => {
            "SELECT pg_snapshot_xmin(pg_current_snapshot())::text::bigint AS txid, \
             0::bigint AS position"
        }
        _ => "SELECT 0 AS txid, COALESCE(MAX(rowid), 0) AS position FROM payment_events",
    };
    let row = one_row(db, sql).await?;
    Ok(FeedPosition {
        txid: row.try_get("", "txid")?,
        position: row.try_get("", "position")?,
    })
}

/// The newest position written to the log (committed or not), for reporting a reader's lag.
pub async fn newest_position(db: &Db) -> Result<i64, DbError> {
    let sql = match db.conn().get_database_backend() {
        DbBackend::Postgres => {
            "SELECT CASE WHEN is_called THEN last_value ELSE 0 END AS position \
             FROM payment_events_position_seq"
        }
        _ => "SELECT COALESCE(MAX(rowid), 0) AS position FROM payment_events",
    };
    Ok(one_row(db, sql).await?.try_get("", "position")?)
}

async fn one_row(db: &Db, sql: &str) -> Result<QueryResult, DbError> {
    let backend = db.conn().get_database_backend();
    db.conn()
        .query_one_raw(Statement::from_string(backend, sql.to_string()))
        .await?
        .ok_or_else(|| DbError::Other("the feed's position query returned no row".into()))
}

/// What one read of the log found.
#[derive(Debug, Default)]
pub struct Batch {
    /// The events read, in feed order, each with the payment as its change left it.
    pub entries: Vec<FeedEntry>,
    /// How many rows were read (passed-over ones included), and the position of the last.
    pub rows: usize,
    pub last: Option<FeedPosition>,
}

/// Up to `limit` committed events after `after`, in feed order.
pub async fn read_after(db: &Db, after: FeedPosition, limit: u32) -> Result<Batch, DbError> {
    let backend = db.conn().get_database_backend();
    let statement = match backend {
        DbBackend::Postgres => Statement::from_sql_and_values(
            backend,
            READ_PG,
            [
                after.txid.into(),
                after.position.into(),
                i64::from(limit).into(),
            ],
        ),
        _ => Statement::from_sql_and_values(
            backend,
            READ_SQLITE,
            [after.position.into(), i64::from(limit).into()],
        ),
    };
    let found = db.conn().query_all_raw(statement).await?;
    let mut batch = Batch {
        entries: Vec::with_capacity(found.len()),
        rows: found.len(),
        last: None,
    };
    for row in found {
        batch.last = Some(FeedPosition {
            txid: row.try_get("", "txid")?,
            position: row.try_get("", "position")?,
        });
        if let Some(entry) = entry(db, &row).await? {
            batch.entries.push(entry);
        }
    }
    Ok(batch)
}

/// The entry of one event row. An event whose snapshot is missing (written before the log
/// carried them) or unreadable stands for the payment as it is now; one whose payment is gone
/// (deleted by an operator) is passed over with a warning rather than holding up every
/// reader behind it.
async fn entry(db: &Db, row: &QueryResult) -> Result<Option<FeedEntry>, DbError> {
    let at = FeedPosition {
        txid: row.try_get("", "txid")?,
        position: row.try_get("", "position")?,
    };
    entry_at(db, row, at).await
}

/// The event of a row of `payment_events` (with its `snapshot`, `event_type`, `refund_id` and
/// `refund_snapshot`), at `at` in the log.
pub(crate) async fn entry_at(
    db: &Db,
    row: &QueryResult,
    at: FeedPosition,
) -> Result<Option<FeedEntry>, DbError> {
    let status = |text: String| {
        PaymentStatus::parse(&text).ok_or_else(|| DbError::unreadable("payment status", &text))
    };
    let from_status: Option<String> = row.try_get("", "from_status")?;
    let event = PaymentEvent {
        id: row.try_get("", "id")?,
        payment_id: row.try_get("", "payment_id")?,
        account_id: row.try_get("", "account_id")?,
        from_status: from_status.map(status).transpose()?,
        to_status: status(row.try_get("", "to_status")?)?,
        reason: row.try_get("", "reason")?,
        created_at: Timestamp::from_micros(row.try_get("", "created_at")?),
        event_type: row.try_get("", "event_type")?,
        refund_id: row.try_get("", "refund_id")?,
    };
    let refund_snapshot: Option<String> = row.try_get("", "refund_snapshot")?;
    let refund = refund_snapshot
        .as_deref()
        .map(rows::refund_from_snapshot)
        .transpose()?;
    let snapshot: Option<String> = row.try_get("", "snapshot")?;
    let payment = match snapshot.as_deref().map(rows::from_snapshot) {
        Some(Ok(payment)) => payment,
        unusable => {
            if unusable.is_some() {
                tracing::warn!(event = %event.id, "an event's snapshot is unreadable; using the payment as it is now");
            }
            match payments::find_payment(db, &event.account_id, &event.payment_id).await? {
                Some(payment) => payment,
                None => {
                    tracing::warn!(event = %event.id, "an event's payment is gone; passing over it");
                    return Ok(None);
                }
            }
        }
    };
    Ok(Some(FeedEntry {
        at,
        event,
        payment,
        refund,
    }))
}

/// Wakes the readers of every instance listening on `channel` (PostgreSQL). Sent outside any
/// write transaction, after changes have committed; readers poll the log anyway, so a nudge
/// that is lost only costs latency.
pub async fn nudge(db: &Db, channel: &str) -> Result<(), DbError> {
    let statement = Statement::from_sql_and_values(
        DbBackend::Postgres,
        "SELECT pg_notify($1, '')",
        [channel.into()],
    );
    db.conn().execute_raw(statement).await?;
    Ok(())
}
