//! Every secret the database stores, opened with one sealer and stored again with another:
//! webhook endpoints' secrets (current and rolled), the gateway's signing secrets and the
//! processor webhook secret setting. At start-up with a key, the secrets still in the clear
//! are sealed; `graphpay secrets reencrypt` moves every one of them to a new key. Either way in
//! one transaction: a failure leaves every secret as it was.

use sea_orm::{ConnectionTrait, DbBackend, Statement};

use super::{Db, DbError};
use crate::domain::sealed::{SealError, Sealer};

/// The columns that hold secrets: table, key column, secret column.
const SECRET_COLUMNS: [(&str, &str, &str); 4] = [
    ("webhook_endpoints", "id", "secret"),
    ("webhook_endpoints", "id", "previous_secret"),
    ("signing_keys", "kid", "secret"),
    ("settings", "name", "value"),
];

/// The settings that hold secrets.
const SECRET_SETTINGS: &str = "('processor_webhook_secret', 'cursor_hmac_key')";

fn sealing_error(err: SealError) -> DbError {
    DbError::Other(err.to_string())
}

/// Opens every stored secret with `from` and stores it with `to`: all of them when `every`,
/// otherwise only those still in the clear (when `to` has a key). Returns how many were
/// written. The old copy of the first secret (`cursor_hmac_key`, kept for gateways of the
/// previous version) is removed once secrets are sealed: `signing_keys` holds it.
pub async fn reseal(db: &Db, from: &Sealer, to: &Sealer, every: bool) -> Result<usize, DbError> {
    let txn = db.begin_write().await?;
    let backend = txn.get_database_backend();
    let mut written = 0;
    for (table, key, column) in SECRET_COLUMNS {
        let only = if table == "settings" {
            format!(" AND name IN {SECRET_SETTINGS}")
        } else {
            String::new()
        };
        let rows = txn
            .query_all_raw(Statement::from_string(
                backend,
                format!(
                    "SELECT CAST({key} AS TEXT) AS k, {column} AS v FROM {table} \
                     WHERE {column} IS NOT NULL{only}"
                ),
            ))
            .await?;
        for row in rows {
            let id: String = row.try_get("", "k")?;
            let stored: String = row.try_get("", "v")?;
            let secret = from.open(&stored).map_err(sealing_error)?;
            if !every && (Sealer::is_sealed(&stored) || !to.has_key()) {
                continue;
            }
            let placeholder = |n: usize| match backend {
                DbBackend::Postgres => format!("${n}"),
                _ => "?".to_string(),
            };
            let key_value: sea_orm::Value = if table == "signing_keys" {
                id.parse::<i32>().unwrap_or_default().into()
            } else {
                id.into()
            };
            txn.execute_raw(Statement::from_sql_and_values(
                backend,
                format!(
                    "UPDATE {table} SET {column} = {} WHERE {key} = {}",
                    placeholder(1),
                    placeholder(2)
                ),
                [to.seal(&secret).into(), key_value],
            ))
            .await?;
            written += 1;
        }
    }
    if to.has_key() {
        txn.execute_unprepared(
            "DELETE FROM settings WHERE name = 'cursor_hmac_key' \
             AND EXISTS (SELECT 1 FROM signing_keys WHERE kid = 0)",
        )
        .await?;
    }
    txn.commit().await?;
    Ok(written)
}

/// Rewrites the tables that held secrets in the clear, so that the old copies of what was
/// just sealed do not linger in the database's files (SQLite's free pages and write-ahead
/// log, PostgreSQL's dead row versions).
pub async fn purge_old_copies(db: &Db) -> Result<(), DbError> {
    let conn = db.conn();
    match conn.get_database_backend() {
        DbBackend::Postgres => {
            for (table, _, _) in SECRET_COLUMNS {
                conn.execute_unprepared(&format!("VACUUM {table}")).await?;
            }
        }
        _ => {
            conn.execute_unprepared("VACUUM").await?;
            conn.execute_unprepared("PRAGMA wal_checkpoint(TRUNCATE)")
                .await?;
        }
    }
    Ok(())
}
