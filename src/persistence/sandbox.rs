//! The sandbox processor's own durable records, keyed by the idempotency key it was sent.

#[cfg(feature = "test-support")]
use sea_orm::PaginatorTrait;
use sea_orm::sea_query::{Expr, ExprTrait};
use sea_orm::{ActiveValue::Set, ColumnTrait, EntityTrait, QueryFilter, TryInsertResult};

use super::entities::sandbox_operations;
use super::{Db, DbError};
use crate::domain::time::Timestamp;

pub use sandbox_operations::Model as SandboxOperation;

/// Statuses of a sandbox operation.
pub const ATTEMPTING: &str = "attempting";
pub const APPROVED: &str = "approved";
pub const DECLINED: &str = "declined";
pub const PENDING: &str = "pending";

/// An operation as the sandbox first records it.
pub struct NewOperation<'a> {
    pub idempotency_key: &'a str,
    pub kind: &'a str,
    pub reference: &'a str,
    pub source: &'a str,
    pub amount: i64,
    pub currency: &'a str,
    pub status: &'a str,
    pub failure_code: Option<&'a str>,
}

/// Records the operation unless one with its key exists; returns the stored one either way,
/// and whether this call recorded it.
pub async fn record(db: &Db, op: NewOperation<'_>) -> Result<(SandboxOperation, bool), DbError> {
    let row = sandbox_operations::ActiveModel {
        idempotency_key: Set(op.idempotency_key.to_string()),
        kind: Set(op.kind.to_string()),
        reference: Set(op.reference.to_string()),
        source: Set(op.source.to_string()),
        amount: Set(op.amount),
        currency: Set(op.currency.to_string()),
        status: Set(op.status.to_string()),
        failure_code: Set(op.failure_code.map(str::to_string)),
        attempts: Set(1),
        created_at: Set(Timestamp::now().micros()),
    };
    let inserted = sandbox_operations::Entity::insert(row)
        .on_conflict_do_nothing_on([sandbox_operations::Column::IdempotencyKey])
        .exec_with_returning(db.conn())
        .await;
    // A conflict returns no row, which sea-orm reports as "not found".
    match inserted {
        Ok(TryInsertResult::Inserted(op)) => return Ok((op, true)),
        Ok(_) | Err(DbError::RecordNotFound(_)) => {}
        Err(err) => return Err(err),
    }
    let stored = find(db, op.idempotency_key)
        .await?
        .ok_or_else(|| DbError::RecordNotFound("sandbox operation just recorded".into()))?;
    Ok((stored, false))
}

pub async fn find(db: &Db, idempotency_key: &str) -> Result<Option<SandboxOperation>, DbError> {
    sandbox_operations::Entity::find_by_id(idempotency_key)
        .one(db.conn())
        .await
}

/// Counts one more attempt at an operation still being attempted; returns the new count.
pub async fn count_attempt(db: &Db, idempotency_key: &str) -> Result<i32, DbError> {
    sandbox_operations::Entity::update_many()
        .col_expr(
            sandbox_operations::Column::Attempts,
            Expr::col(sandbox_operations::Column::Attempts).add(1),
        )
        .filter(sandbox_operations::Column::IdempotencyKey.eq(idempotency_key))
        .filter(sandbox_operations::Column::Status.eq(ATTEMPTING))
        .exec(db.conn())
        .await?;
    Ok(find(db, idempotency_key)
        .await?
        .map(|op| op.attempts)
        .unwrap_or(0))
}

/// Moves an operation from status `from` to `to`; false when it was not in `from`.
pub async fn settle(db: &Db, idempotency_key: &str, from: &str, to: &str) -> Result<bool, DbError> {
    let result = sandbox_operations::Entity::update_many()
        .col_expr(sandbox_operations::Column::Status, Expr::value(to))
        .filter(sandbox_operations::Column::IdempotencyKey.eq(idempotency_key))
        .filter(sandbox_operations::Column::Status.eq(from))
        .exec(db.conn())
        .await?;
    Ok(result.rows_affected == 1)
}

/// Refunds the sandbox has settled or accepted, over all keys.
///
/// Exists for the tests and benchmarks (feature `test-support`).
#[cfg(feature = "test-support")]
pub async fn refund_count(db: &Db) -> Result<u64, DbError> {
    sandbox_operations::Entity::find()
        .filter(sandbox_operations::Column::Kind.eq("refund"))
        .count(db.conn())
        .await
}

/// Charges the sandbox has settled (approved, declined or pending), over all keys.
///
/// Exists for the tests and benchmarks (feature `test-support`).
#[cfg(feature = "test-support")]
pub async fn charge_count(db: &Db) -> Result<u64, DbError> {
    sandbox_operations::Entity::find()
        .filter(sandbox_operations::Column::Kind.eq("charge"))
        .filter(sandbox_operations::Column::Status.ne(ATTEMPTING))
        .count(db.conn())
        .await
}
