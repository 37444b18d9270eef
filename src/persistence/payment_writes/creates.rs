//! Creating payments for idempotency keys: the claim of a fresh key together with its new
//! payment, or a payment for a key this request already holds. The PostgreSQL one-statement
//! form stands beside the portable one, so a new column is added in one reading.

use sea_orm::{ConnectionTrait, DatabaseTransaction, DbBackend, Statement, Value};

use super::super::idempotency_keys::{self, KeyRef, StoredOutcome, complete_key};
use super::super::payments::{self as stored, CREATED_REASON, NewPayment};
use super::super::{Backend, Db, DbError, rows};
use crate::domain::idempotency::KeyState;
use crate::domain::payment::Payment;

/// Creates a payment and its first event for a key this request holds (taken over from an
/// attempt that created nothing), linked to `key`; when `complete` is set the key is also
/// marked done with the payment as its outcome, all in one transaction.
pub async fn create_for_key(
    db: &Db,
    new: NewPayment,
    key: KeyRef<'_>,
    complete: bool,
) -> Result<Payment, DbError> {
    let txn = db.begin_write().await?;
    let payment = stored::insert_in(&txn, &new).await?;
    link_or_complete(&txn, key, &payment, complete).await?;
    txn.commit().await?;
    Ok(payment)
}

async fn link_or_complete(
    txn: &DatabaseTransaction,
    key: KeyRef<'_>,
    payment: &Payment,
    complete: bool,
) -> Result<(), DbError> {
    if complete {
        let outcome = StoredOutcome {
            payment: payment.clone(),
            refund: None,
        };
        complete_key(txn, key, &outcome).await
    } else {
        idempotency_keys::link(txn, key.account_id, key.key, Some(&payment.id), None).await
    }
}

/// A request's claim on a fresh idempotency key.
#[derive(Clone, Copy, Debug)]
pub struct NewClaim<'a> {
    pub key: KeyRef<'a>,
    pub operation: &'a str,
    pub fingerprint: &'a str,
}

/// Claims a fresh idempotency key and creates its payment: the claim, the payment, its first
/// event and, when `complete` is set, the key's stored outcome. `None` when the key already
/// exists (an earlier or a concurrent request claimed it): then nothing is written, and the
/// caller reads the key to decide.
///
/// On PostgreSQL it is all one statement, written all or none. On SQLite the claim is its own
/// statement, committed before the payment's transaction: a replay, which only tries to claim,
/// then holds the single write lock for one statement rather than a transaction. A crash or a
/// failed transaction in between leaves a claim with no payment, which is taken over after the lock timeout and
/// carried on like any other (see `service::idempotency`).
pub async fn claim_and_create(
    db: &Db,
    claim: NewClaim<'_>,
    new: &NewPayment,
    complete: bool,
) -> Result<Option<Payment>, DbError> {
    if db.backend() == Backend::Postgres {
        return claim_and_create_in_one_statement(db, claim, new, complete).await;
    }
    let claimed = idempotency_keys::claim(
        db,
        claim.key.account_id,
        claim.key.key,
        claim.operation,
        claim.fingerprint,
        new.created_at,
    )
    .await?;
    if claimed.is_none() {
        return Ok(None);
    }
    let txn = db.begin_write().await?;
    let payment = stored::insert_in(&txn, new).await?;
    link_or_complete(&txn, claim.key, &payment, complete).await?;
    txn.commit().await?;
    Ok(Some(payment))
}

/// [`claim_and_create`] on PostgreSQL. Each part reads the rows the one before it returned,
/// so nothing is written unless the claim is.
const CLAIM_AND_CREATE: &str = "\
WITH claim AS (
    INSERT INTO idempotency_keys (account_id, key, operation, request_hash, state, locked_at,
        payment_id, refund_id, outcome, created_at, updated_at)
    VALUES ($1, $2, $3, $4, $5, $6, $7, NULL, $8, $9, $9)
    ON CONFLICT (account_id, key) DO NOTHING
    RETURNING payment_id
), payment AS (
    INSERT INTO payments (id, account_id, amount, currency, status, amount_refunded, source,
        description, failure_code, failure_message, processor_key, processor_ref, version,
        created_at, updated_at)
    SELECT payment_id, $1, $10, $11, $12, 0, $13, $14, NULL, NULL, $15, NULL, 0, $9, $9
    FROM claim
    RETURNING id
), event AS (
    INSERT INTO payment_events (id, payment_id, account_id, from_status, to_status, reason,
        created_at, snapshot)
    SELECT $16, id, $1, NULL, $12, $17, $9, $18 FROM payment
)
SELECT 1 FROM payment";

async fn claim_and_create_in_one_statement(
    db: &Db,
    claim: NewClaim<'_>,
    new: &NewPayment,
    complete: bool,
) -> Result<Option<Payment>, DbError> {
    let (payment, event) = new.values();
    let at = payment.created_at.micros();
    let (state, locked_at, outcome) = if complete {
        let outcome = StoredOutcome {
            payment: payment.clone(),
            refund: None,
        };
        (KeyState::Done, None, Some(outcome.to_json()))
    } else {
        (KeyState::Started, Some(at), None)
    };
    let values: Vec<Value> = vec![
        claim.key.account_id.into(),
        claim.key.key.into(),
        claim.operation.into(),
        claim.fingerprint.into(),
        state.as_str().into(),
        locked_at.into(),
        payment.id.clone().into(),
        outcome.into(),
        at.into(),
        payment.amount.get().into(),
        payment.currency.code().into(),
        payment.status.as_str().into(),
        payment.source.clone().into(),
        payment.description.clone().into(),
        payment.processor_key.clone().into(),
        event.id.into(),
        CREATED_REASON.into(),
        rows::snapshot(&payment).into(),
    ];
    let statement = Statement::from_sql_and_values(DbBackend::Postgres, CLAIM_AND_CREATE, values);
    let inserted = db.conn().execute_raw(statement).await?.rows_affected() == 1;
    Ok(inserted.then_some(payment))
}
