//! Announcing committed payment changes on PostgreSQL (`NOTIFY`), and reading the
//! announcements back. An announcement carries the payment's stored row as JSON, or, when that
//! would not fit a payload, where to read it.

use sea_orm::{ConnectionTrait, DbBackend, Statement};
use serde::{Deserialize, Serialize};

use super::entities::payments;
use super::{DbError, rows};
use crate::domain::payment::Payment;

/// The PostgreSQL channel committed payment changes are announced on.
pub const CHANGES_CHANNEL: &str = "graphpay_payment_changes";

/// On PostgreSQL, announces `payment` as it now stands, from inside the transaction that
/// changed it: listeners on every instance hear of it when, and only if, it commits. SQLite
/// has no notifications (its feed is in-process, see `service::feed`).
pub(crate) async fn announce_in(
    conn: &impl ConnectionTrait,
    payment: &Payment,
) -> Result<(), DbError> {
    if conn.get_database_backend() != DbBackend::Postgres {
        return Ok(());
    }
    let statement = Statement::from_sql_and_values(
        DbBackend::Postgres,
        "SELECT pg_notify($1, $2)",
        [CHANGES_CHANNEL.into(), announcement(payment).into()],
    );
    conn.execute_raw(statement).await?;
    Ok(())
}

/// The most an announcement carries: PostgreSQL refuses `NOTIFY` payloads of 8,000 bytes.
const MAX_ANNOUNCEMENT_BYTES: usize = 7_900;

/// Where to read a payment whose JSON is too long to announce whole.
#[derive(Debug, Serialize, Deserialize)]
struct Reread {
    reread: PaymentRef,
}

#[derive(Debug, Serialize, Deserialize)]
struct PaymentRef {
    id: String,
    account_id: String,
}

/// A payment change as a listener hears it.
#[derive(Debug)]
pub enum Announced {
    /// The payment as the change left it.
    Whole(Box<Payment>),
    /// A payment too long to announce whole (texts from the processor can be): read it.
    Reread { id: String, account_id: String },
}

/// The announcement of `payment`: its JSON, or where to read it when the JSON would not fit
/// a `NOTIFY` payload. The change never fails for the size of its announcement.
pub(crate) fn announcement(payment: &Payment) -> String {
    let whole = serde_json::to_string(&rows::payment_row(payment)).unwrap_or_default();
    if whole.len() <= MAX_ANNOUNCEMENT_BYTES {
        return whole;
    }
    let reread = Reread {
        reread: PaymentRef {
            id: payment.id.clone(),
            account_id: payment.account_id.clone(),
        },
    };
    serde_json::to_string(&reread).unwrap_or_default()
}

/// Reads an announcement made by [`announce_in`] or the single-statement writes.
pub fn parse_announcement(payload: &str) -> Option<Announced> {
    if let Ok(row) = serde_json::from_str::<payments::Model>(payload) {
        return rows::payment(row)
            .ok()
            .map(|payment| Announced::Whole(Box::new(payment)));
    }
    let Reread { reread } = serde_json::from_str(payload).ok()?;
    Some(Announced::Reread {
        id: reread.id,
        account_id: reread.account_id,
    })
}
