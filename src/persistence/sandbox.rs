//! The sandbox processor's own durable records, keyed by the idempotency key it was sent. Rows
//! leave this module as `SandboxOperation`, so the sandbox itself never sees sea-orm.

#[cfg(feature = "test-support")]
use sea_orm::PaginatorTrait;
use sea_orm::sea_query::{Expr, ExprTrait};
use sea_orm::{
    ActiveValue::Set, ColumnTrait, DbBackend, EntityTrait, QueryFilter, Statement, TryInsertResult,
    Value,
};

use super::entities::sandbox_operations;
use super::{Db, DbError};
use crate::domain::time::Timestamp;

/// What the sandbox was asked to do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OperationKind {
    Charge,
    Refund,
    /// A charge whose money is only held, for a capture or a void.
    Authorization,
    Capture,
    Void,
}

impl OperationKind {
    pub const fn as_str(self) -> &'static str {
        match self {
            OperationKind::Charge => "charge",
            OperationKind::Refund => "refund",
            OperationKind::Authorization => "authorization",
            OperationKind::Capture => "capture",
            OperationKind::Void => "void",
        }
    }

    fn parse(text: &str) -> Option<Self> {
        match text {
            "charge" => Some(OperationKind::Charge),
            "refund" => Some(OperationKind::Refund),
            "authorization" => Some(OperationKind::Authorization),
            "capture" => Some(OperationKind::Capture),
            "void" => Some(OperationKind::Void),
            _ => None,
        }
    }
}

/// Where a sandbox operation stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OperationStatus {
    /// A charge that fails its first attempts before it is approved.
    Attempting,
    Approved,
    Declined,
    /// Accepted; settled later and announced by webhook.
    Pending,
    /// An approved authorization that has been captured.
    Captured,
    /// An approved authorization that has been released.
    Voided,
    /// Waiting for the customer to approve or decline (3-D Secure).
    ActionRequired,
    /// A customer action withdrawn before the customer answered it.
    Expired,
}

impl OperationStatus {
    pub const fn as_str(self) -> &'static str {
        match self {
            OperationStatus::Attempting => "attempting",
            OperationStatus::Approved => "approved",
            OperationStatus::Declined => "declined",
            OperationStatus::Pending => "pending",
            OperationStatus::Captured => "captured",
            OperationStatus::Voided => "voided",
            OperationStatus::ActionRequired => "action_required",
            OperationStatus::Expired => "expired",
        }
    }

    fn parse(text: &str) -> Option<Self> {
        match text {
            "attempting" => Some(OperationStatus::Attempting),
            "approved" => Some(OperationStatus::Approved),
            "declined" => Some(OperationStatus::Declined),
            "pending" => Some(OperationStatus::Pending),
            "captured" => Some(OperationStatus::Captured),
            "voided" => Some(OperationStatus::Voided),
            "action_required" => Some(OperationStatus::ActionRequired),
            "expired" => Some(OperationStatus::Expired),
            _ => None,
        }
    }
}

impl From<OperationStatus> for &'static str {
    fn from(status: OperationStatus) -> Self {
        status.as_str()
    }
}

/// One charge or refund as the sandbox recorded it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SandboxOperation {
    pub idempotency_key: String,
    pub kind: OperationKind,
    pub reference: String,
    /// The charge's payment source token; a refund repeats its charge's.
    pub source: String,
    pub amount: i64,
    pub currency: String,
    pub status: OperationStatus,
    pub failure_code: Option<String>,
    pub attempts: i32,
    pub created_at: Timestamp,
    /// Where the customer goes after a customer action.
    pub return_url: Option<String>,
}

/// Only the sandbox writes these rows, so text it does not know means the table was changed
/// by hand: an error, not a guess.
fn from_row(row: sandbox_operations::Model) -> Result<SandboxOperation, DbError> {
    let unknown = |what: &str, text: &str| {
        DbError::Other(format!(
            "sandbox operation {:?} has unknown {what} {text:?}",
            row.idempotency_key
        ))
    };
    let kind = OperationKind::parse(&row.kind).ok_or_else(|| unknown("kind", &row.kind))?;
    let status =
        OperationStatus::parse(&row.status).ok_or_else(|| unknown("status", &row.status))?;
    Ok(SandboxOperation {
        idempotency_key: row.idempotency_key,
        kind,
        reference: row.reference,
        source: row.source,
        amount: row.amount,
        currency: row.currency,
        status,
        failure_code: row.failure_code,
        attempts: row.attempts,
        created_at: Timestamp::from_micros(row.created_at),
        return_url: row.return_url,
    })
}

/// An operation as the sandbox first records it.
pub struct NewOperation<'a> {
    pub idempotency_key: &'a str,
    pub kind: OperationKind,
    pub reference: &'a str,
    pub source: &'a str,
    pub amount: i64,
    pub currency: &'a str,
    pub status: OperationStatus,
    pub failure_code: Option<&'a str>,
    pub return_url: Option<&'a str>,
}

/// Records the operation unless one with its key exists; returns the stored one either way,
/// and whether this call recorded it.
pub async fn record(db: &Db, op: NewOperation<'_>) -> Result<(SandboxOperation, bool), DbError> {
    let row = sandbox_operations::ActiveModel {
        idempotency_key: Set(op.idempotency_key.to_string()),
        kind: Set(op.kind.as_str().to_string()),
        reference: Set(op.reference.to_string()),
        source: Set(op.source.to_string()),
        amount: Set(op.amount),
        currency: Set(op.currency.to_string()),
        status: Set(op.status.as_str().to_string()),
        failure_code: Set(op.failure_code.map(str::to_string)),
        attempts: Set(1),
        created_at: Set(Timestamp::now().micros()),
        return_url: Set(op.return_url.map(str::to_string)),
    };
    let inserted = sandbox_operations::Entity::insert(row)
        .on_conflict_do_nothing_on([sandbox_operations::Column::IdempotencyKey])
        .exec_with_returning(db.conn())
        .await;
    // A conflict returns no row, which sea-orm reports as "not found".
    match inserted {
        Ok(TryInsertResult::Inserted(row)) => return Ok((from_row(row)?, true)),
        Ok(_) | Err(sea_orm::DbErr::RecordNotFound(_)) => {}
        Err(err) => return Err(err.into()),
    }
    let stored = find(db, op.idempotency_key)
        .await?
        .ok_or_else(|| DbError::NotFound("sandbox operation just recorded".into()))?;
    Ok((stored, false))
}

pub async fn find(db: &Db, idempotency_key: &str) -> Result<Option<SandboxOperation>, DbError> {
    sandbox_operations::Entity::find_by_id(idempotency_key)
        .one(db.conn())
        .await?
        .map(from_row)
        .transpose()
}

/// Counts one more attempt at an operation still being attempted; returns the new count.
pub async fn count_attempt(db: &Db, idempotency_key: &str) -> Result<i32, DbError> {
    sandbox_operations::Entity::update_many()
        .col_expr(
            sandbox_operations::Column::Attempts,
            Expr::col(sandbox_operations::Column::Attempts).add(1),
        )
        .filter(sandbox_operations::Column::IdempotencyKey.eq(idempotency_key))
        .filter(sandbox_operations::Column::Status.eq(OperationStatus::Attempting.as_str()))
        .exec(db.conn())
        .await?;
    Ok(find(db, idempotency_key)
        .await?
        .map(|op| op.attempts)
        .unwrap_or(0))
}

/// Moves an operation from status `from` to `to`; false when it was not in `from`. A status
/// may also be given by its stored name (`"pending"`), as tests that play the sandbox's part do.
pub async fn settle(
    db: &Db,
    idempotency_key: &str,
    from: impl Into<&'static str>,
    to: impl Into<&'static str>,
) -> Result<bool, DbError> {
    let result = sandbox_operations::Entity::update_many()
        .col_expr(sandbox_operations::Column::Status, Expr::value(to.into()))
        .filter(sandbox_operations::Column::IdempotencyKey.eq(idempotency_key))
        .filter(sandbox_operations::Column::Status.eq(from.into()))
        .exec(db.conn())
        .await?;
    Ok(result.rows_affected == 1)
}

/// [`take_authorization`] and [`record`] of a fresh capture or void in one statement, on
/// PostgreSQL: the operation is recorded approved when it took the authorization, attempting
/// otherwise (the caller then finds out why); `None` when an operation with its key exists
/// already, and then nothing was taken. The authorization is taken only for a key not yet
/// recorded, so a repeat never takes it again.
pub async fn record_taking(
    db: &Db,
    op: NewOperation<'_>,
    authorization_key: &str,
    to: OperationStatus,
) -> Result<Option<SandboxOperation>, DbError> {
    const SQL: &str = "\
WITH taken AS (
    UPDATE sandbox_operations SET status = $1
    WHERE idempotency_key = $2 AND kind = 'authorization' AND status = 'approved'
        AND amount >= $3
        AND NOT EXISTS (SELECT 1 FROM sandbox_operations WHERE idempotency_key = $4)
    RETURNING idempotency_key
)
INSERT INTO sandbox_operations (idempotency_key, kind, reference, source, amount, currency,
    status, failure_code, attempts, created_at, return_url)
SELECT $4, $5, $6, $7, $3, $8,
    CASE WHEN EXISTS (SELECT 1 FROM taken) THEN 'approved' ELSE 'attempting' END,
    NULL, 1, $9, NULL
ON CONFLICT (idempotency_key) DO NOTHING
RETURNING idempotency_key, kind, reference, source, amount, currency, status, failure_code,
    attempts, created_at, return_url";
    let values: Vec<Value> = vec![
        to.as_str().into(),
        authorization_key.into(),
        op.amount.into(),
        op.idempotency_key.into(),
        op.kind.as_str().into(),
        op.reference.into(),
        op.source.into(),
        op.currency.into(),
        Timestamp::now().micros().into(),
    ];
    let statement = Statement::from_sql_and_values(DbBackend::Postgres, SQL, values);
    sandbox_operations::Entity::find()
        .from_raw_sql(statement)
        .one(db.conn())
        .await?
        .map(from_row)
        .transpose()
}

/// Moves an approved authorization to `to` (captured or voided) if it holds at least
/// `amount`; false when it does not (not approved, not an authorization, too small, unknown).
pub async fn take_authorization(
    db: &Db,
    idempotency_key: &str,
    amount: i64,
    to: OperationStatus,
) -> Result<bool, DbError> {
    let result = sandbox_operations::Entity::update_many()
        .col_expr(sandbox_operations::Column::Status, Expr::value(to.as_str()))
        .filter(sandbox_operations::Column::IdempotencyKey.eq(idempotency_key))
        .filter(sandbox_operations::Column::Kind.eq(OperationKind::Authorization.as_str()))
        .filter(sandbox_operations::Column::Status.eq(OperationStatus::Approved.as_str()))
        .filter(sandbox_operations::Column::Amount.gte(amount))
        .exec(db.conn())
        .await?;
    Ok(result.rows_affected == 1)
}

/// Moves an operation from `from` to declined with `code`; false when it was not in `from`.
pub async fn decline(
    db: &Db,
    idempotency_key: &str,
    from: OperationStatus,
    code: &str,
) -> Result<bool, DbError> {
    let result = sandbox_operations::Entity::update_many()
        .col_expr(
            sandbox_operations::Column::Status,
            Expr::value(OperationStatus::Declined.as_str()),
        )
        .col_expr(sandbox_operations::Column::FailureCode, Expr::value(code))
        .filter(sandbox_operations::Column::IdempotencyKey.eq(idempotency_key))
        .filter(sandbox_operations::Column::Status.eq(from.as_str()))
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
        .filter(sandbox_operations::Column::Kind.eq(OperationKind::Refund.as_str()))
        .count(db.conn())
        .await
        .map_err(DbError::from)
}

/// Charges the sandbox has settled (approved, declined or pending), over all keys.
///
/// Exists for the tests and benchmarks (feature `test-support`).
#[cfg(feature = "test-support")]
pub async fn charge_count(db: &Db) -> Result<u64, DbError> {
    sandbox_operations::Entity::find()
        .filter(sandbox_operations::Column::Kind.eq(OperationKind::Charge.as_str()))
        .filter(sandbox_operations::Column::Status.ne(OperationStatus::Attempting.as_str()))
        .count(db.conn())
        .await
        .map_err(DbError::from)
}
