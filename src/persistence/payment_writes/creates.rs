//! Creating payments for idempotency keys: the claim of a fresh key together with its new
//! payment (PostgreSQL's one statement), or a payment for a key this request already holds
//! (the portable form). They stand side by side, so a new column is added in one reading.

use sea_orm::{ConnectionTrait, DbBackend, Statement, Value};

use super::super::idempotency_keys::{self, Completion, KeyRef, StoredOutcome, complete_key};
use super::super::payments::{self as stored, CREATED_REASON, NewPayment};
use super::super::{Backend, Db, DbError, rows};
use crate::domain::idempotency::KeyState;
use crate::domain::payment::Payment;

/// Creates a payment and its first event for a key this request holds (freshly claimed, or
/// taken over from an attempt that created nothing), linked to `key`; with a `completion`
/// the key is also marked done with the payment as its outcome, all in one transaction.
pub async fn create_for_key(
    db: &Db,
    new: NewPayment,
    key: KeyRef<'_>,
    completion: Option<Completion<'_>>,
) -> Result<Payment, DbError> {
    let txn = db.begin_write().await?;
    let payment = stored::insert_in(&txn, &new).await?;
    if completion.is_some() {
        let outcome = StoredOutcome {
            payment: payment.clone(),
            refund: None,
        };
        complete_key(&txn, key, &outcome).await?;
    } else {
        idempotency_keys::link(&txn, key.account_id, key.key, Some(&payment.id), None).await?;
    }
    txn.commit().await?;
    if let Some(completion) = completion {
        completion.committed();
    }
    Ok(payment)
}

/// A request's claim on a fresh idempotency key.
#[derive(Clone, Copy, Debug)]
pub struct NewClaim<'a> {
    pub key: KeyRef<'a>,
    pub operation: &'a str,
    pub fingerprint: &'a str,
}

/// Claims a fresh idempotency key and creates its payment in one statement, on PostgreSQL:
/// the claim, the payment, its first event and, with a `completion`, the key's stored
/// outcome, written all or none. `None` when the key already exists (an earlier or a
/// concurrent request claimed it): then nothing is written, and the caller reads the key to
/// decide. Elsewhere the claim is a statement of its own and the payment is created by
/// [`create_for_key`]: on SQLite a replay, which only tries to claim, then holds the single
/// write lock for one statement rather than a transaction.
pub async fn claim_and_create(
    db: &Db,
    claim: NewClaim<'_>,
    new: &NewPayment,
    completion: Option<Completion<'_>>,
) -> Result<Option<Payment>, DbError> {
    debug_assert_eq!(
        db.backend(),
        Backend::Postgres,
        "one statement on PostgreSQL only"
    );
    let created = claim_and_create_in_one_statement(db, claim, new, completion.is_some()).await?;
    if let (Some(_), Some(completion)) = (&created, completion) {
        completion.committed();
    }
    Ok(created)
}

/// [`claim_and_create`]'s statement. Each part reads the rows the one before it returned, so
/// nothing is written unless the claim is.
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
        created_at, updated_at, capture_method, return_url, reference, metadata)
    SELECT payment_id, $1, $10, $11, $12, 0, $13, $14, NULL, NULL, $15, NULL, 0, $9, $9,
        $19, $20, $21, $22
    FROM claim
    RETURNING id
), event AS (
    INSERT INTO payment_events (id, payment_id, account_id, from_status, to_status, reason,
        created_at, snapshot, event_type)
    SELECT $16, id, $1, NULL, $12, $17, $9, $18, $23 FROM payment
), entries AS (
    INSERT INTO payment_metadata (account_id, key, value, created_at, payment_id)
    SELECT $1, entry.key, entry.value, $9, payment.id
    FROM payment, jsonb_each_text($22::jsonb) AS entry
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
        event.id.clone().into(),
        CREATED_REASON.into(),
        rows::snapshot(&payment).into(),
        payment.capture_method.as_str().into(),
        payment.return_url.clone().into(),
        payment.reference.clone().into(),
        payment.metadata.to_json().into(),
        event.event_type.clone().into(),
    ];
    let statement = Statement::from_sql_and_values(DbBackend::Postgres, CLAIM_AND_CREATE, values);
    let inserted = db.conn().execute_raw(statement).await?.rows_affected() == 1;
    Ok(inserted.then_some(payment))
}
