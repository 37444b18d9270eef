//! The status counts folded back into one row per status.
//!
//! On PostgreSQL each writing connection counts an account's payments of a status in its own
//! row of 15 (`bucket` 1 to 15, see the migrations that create `payment_counts` and that keep
//! writes out of bucket 0), so that concurrent writes do not wait on one counter. An account
//! written through many connections soon holds up to 16 rows for every status it has used,
//! and every `totalCount` sums them all, inside its page's statement, which costs more with
//! each (measured in `docs/benchmarks/reads.md`). [`fold`] moves each status's rows into the
//! lowest of them (bucket 0 once a fold has made it) and deletes the rest, and deletes a
//! status whose rows sum to 0, so an account at rest is counted in one row per status it
//! holds payments of. Writes never change bucket 0, so a status that goes back to 0 always
//! has a row beyond it, where the next fold finds it.
//!
//! A fold never waits for a writer: it takes only the rows no transaction holds (`SKIP
//! LOCKED`), moves exactly what those rows held, and leaves a row a writer holds for the next
//! fold. Each sum stays what it was at every moment; readers see the fold whole or not at all.
//! SQLite counts in one row per status already: nothing to fold.

use sea_orm::{ConnectionTrait, DbBackend, Statement, TransactionTrait};
use serde_json::json;

use super::{Backend, Db, DbError};

/// The rows of up to `$1` statuses spread over more than one row (or holding a row of 0),
/// locked, those no transaction holds, in the order of the table's key.
const SPREAD: &str = "SELECT account_id, status, bucket, count FROM payment_counts \
     WHERE (account_id, status) IN (\
         SELECT s.account_id, s.status FROM payment_counts s WHERE s.bucket <> 0 \
         GROUP BY s.account_id, s.status \
         HAVING COUNT(*) > 1 OR bool_or(s.count = 0) OR EXISTS (\
             SELECT 1 FROM payment_counts z WHERE z.account_id = s.account_id \
             AND z.status = s.status AND z.bucket = 0) \
         LIMIT $1) \
     ORDER BY account_id, status, bucket \
     FOR UPDATE SKIP LOCKED";

const DELETE: &str = "DELETE FROM payment_counts c \
     USING jsonb_to_recordset($1::jsonb) AS r (a text, s text, b smallint) \
     WHERE c.account_id = r.a COLLATE \"C\" AND c.status = r.s COLLATE \"C\" AND c.bucket = r.b";

const SET: &str = "UPDATE payment_counts c SET count = r.n \
     FROM jsonb_to_recordset($1::jsonb) AS r (a text, s text, b smallint, n bigint) \
     WHERE c.account_id = r.a COLLATE \"C\" AND c.status = r.s COLLATE \"C\" AND c.bucket = r.b";

/// One locked row of the counts.
struct Counted {
    account_id: String,
    status: String,
    bucket: i16,
    count: i64,
}

/// What one fold changes: the rows it deletes, and the row each folded status keeps with its
/// sum.
#[derive(Default)]
struct Plan {
    deleted: Vec<serde_json::Value>,
    kept: Vec<serde_json::Value>,
    statuses: u64,
}

impl Plan {
    /// The change for one status's locked rows (in bucket order): all into the first, or none
    /// left when they sum to 0.
    fn status(&mut self, rows: &[Counted]) {
        let Some(first) = rows.first() else { return };
        let sum: i64 = rows.iter().map(|row| row.count).sum();
        let row = |row: &Counted| json!({"a": row.account_id, "s": row.status, "b": row.bucket});
        if sum == 0 {
            self.deleted.extend(rows.iter().map(row));
        } else if rows.len() > 1 {
            self.deleted.extend(rows[1..].iter().map(row));
            let mut kept = row(first);
            kept["n"] = json!(sum);
            self.kept.push(kept);
        } else {
            return;
        }
        self.statuses += 1;
    }
}

/// Folds the counts of up to `statuses` (account, status) pairs, in one short transaction;
/// returns how many it folded (0 when none is spread, or on SQLite).
pub async fn fold(db: &Db, statuses: u64) -> Result<u64, DbError> {
    if db.backend() != Backend::Postgres {
        return Ok(0);
    }
    let statement = |sql: &str, value: sea_orm::Value| {
        Statement::from_sql_and_values(DbBackend::Postgres, sql, [value])
    };
    let limit = i64::try_from(statuses).unwrap_or(i64::MAX);
    let txn = db.conn().begin().await?;
    let rows = txn.query_all_raw(statement(SPREAD, limit.into())).await?;
    let rows = rows
        .iter()
        .map(|row| {
            Ok(Counted {
                account_id: row.try_get_by_index(0)?,
                status: row.try_get_by_index(1)?,
                bucket: row.try_get_by_index(2)?,
                count: row.try_get_by_index(3)?,
            })
        })
        .collect::<Result<Vec<_>, sea_orm::DbErr>>()?;
    let mut plan = Plan::default();
    for group in rows.chunk_by(|a, b| a.account_id == b.account_id && a.status == b.status) {
        plan.status(group);
    }
    if !plan.deleted.is_empty() {
        let deleted = serde_json::Value::Array(plan.deleted).to_string();
        txn.execute_raw(statement(DELETE, deleted.into())).await?;
    }
    if !plan.kept.is_empty() {
        let kept = serde_json::Value::Array(plan.kept).to_string();
        txn.execute_raw(statement(SET, kept.into())).await?;
    }
    txn.commit().await?;
    Ok(plan.statuses)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counted(bucket: i16, count: i64) -> Counted {
        Counted {
            account_id: "acct_1".into(),
            status: "SUCCEEDED".into(),
            bucket,
            count,
        }
    }

    #[test]
    fn a_status_is_folded_into_its_first_row_or_deleted_at_zero() {
        let mut plan = Plan::default();
        plan.status(&[counted(0, 5), counted(3, -2), counted(9, 4)]);
        assert_eq!(plan.deleted.len(), 2);
        assert_eq!(
            plan.kept,
            vec![json!({"a": "acct_1", "s": "SUCCEEDED", "b": 0, "n": 7})]
        );
        plan.status(&[counted(2, 1), counted(5, -1)]);
        assert_eq!(plan.deleted.len(), 4, "a status summing to 0 keeps no row");
        plan.status(&[counted(4, 0)]);
        assert_eq!(plan.deleted.len(), 5, "nor does a lone row of 0");
        plan.status(&[counted(6, 3)]);
        plan.status(&[]);
        assert_eq!(
            (plan.deleted.len(), plan.kept.len()),
            (5, 1),
            "one row of its sum stays"
        );
        assert_eq!(plan.statuses, 3);
    }
}
