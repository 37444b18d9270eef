//! The idempotency flow: claim a key, or replay its outcome, or refuse.

use std::time::Duration;

use super::ServiceError;
use crate::domain::idempotency::{Decision, IdempotencyKey, decide};
use crate::domain::time::Timestamp;
use crate::persistence::Db;
use crate::persistence::idempotency_keys::{self, IdempotencyRecord, StoredOutcome};

/// What `idempotencyRecord(key)` shows: the account's key, unless it is unknown or past its
/// retention (as good as gone, even before the sweeper removes it).
pub async fn record(
    db: &Db,
    account_id: &str,
    key: &IdempotencyKey,
    settings: &IdempotencySettings,
) -> Result<Option<IdempotencyRecord>, ServiceError> {
    let retention = i64::try_from(settings.retention.as_secs()).unwrap_or(i64::MAX);
    let record = idempotency_keys::find(db, account_id, key.as_str()).await?;
    Ok(record.filter(|r| r.created_at.plus_seconds(retention) > Timestamp::now()))
}

/// How keys behave.
#[derive(Clone, Copy, Debug)]
pub struct IdempotencySettings {
    /// After this long, a claim left `started` (its request crashed) may be taken over.
    pub lock_timeout: Duration,
    /// Keys are kept this long, then swept.
    pub retention: Duration,
}

impl Default for IdempotencySettings {
    fn default() -> Self {
        IdempotencySettings {
            lock_timeout: Duration::from_secs(60),
            retention: Duration::from_secs(24 * 3600),
        }
    }
}

/// What the request that presented the key does next.
#[derive(Debug)]
pub enum NextAction {
    /// This request holds the claim: execute. `record.payment_id` is set when an earlier
    /// attempt already created the payment, which must then be carried on, not made again.
    Execute { record: Box<IdempotencyRecord> },
    /// The key's outcome is stored: answer with it.
    Replay { outcome: Box<StoredOutcome> },
}

/// Claims `key` for `operation` with this `fingerprint`, or says why not.
#[tracing::instrument(skip(db, settings, fingerprint))]
pub async fn begin(
    db: &Db,
    settings: &IdempotencySettings,
    account_id: &str,
    key: &IdempotencyKey,
    operation: &str,
    fingerprint: &str,
) -> Result<NextAction, ServiceError> {
    next_action(db, settings, account_id, key, operation, fingerprint, true).await
}

/// What to do with `key` after this request's claim on it failed because the key exists
/// (see `payment_writes::claim_and_create`): replay, refuse, or take the claim over.
#[tracing::instrument(skip(db, settings, fingerprint))]
pub async fn after_claimed(
    db: &Db,
    settings: &IdempotencySettings,
    account_id: &str,
    key: &IdempotencyKey,
    operation: &str,
    fingerprint: &str,
) -> Result<NextAction, ServiceError> {
    next_action(db, settings, account_id, key, operation, fingerprint, false).await
}

async fn next_action(
    db: &Db,
    settings: &IdempotencySettings,
    account_id: &str,
    key: &IdempotencyKey,
    operation: &str,
    fingerprint: &str,
    mut claim_first: bool,
) -> Result<NextAction, ServiceError> {
    let lock_timeout = i64::try_from(settings.lock_timeout.as_secs()).unwrap_or(i64::MAX);
    // A few rounds cover the races: a key swept, or taken over by someone else, in between.
    for _ in 0..4 {
        let now = Timestamp::now();
        if claim_first
            && let Some(record) =
                idempotency_keys::claim(db, account_id, key.as_str(), operation, fingerprint, now)
                    .await?
        {
            return Ok(NextAction::Execute {
                record: Box::new(record),
            });
        }
        claim_first = true;
        let Some(record) = idempotency_keys::find(db, account_id, key.as_str()).await? else {
            continue;
        };
        match decide(
            record.state,
            &record.request_hash,
            fingerprint,
            record.locked_at,
            now,
            lock_timeout,
        ) {
            Decision::Reused => {
                crate::metrics::record_idempotency_key_conflict(operation);
                return Err(ServiceError::IdempotencyKeyReused);
            }
            Decision::InProgress {
                retry_after_seconds,
            } => {
                return Err(ServiceError::RequestInProgress {
                    retry_after_seconds,
                });
            }
            Decision::Replay => {
                let outcome = record
                    .outcome
                    .as_deref()
                    .map(StoredOutcome::parse)
                    .ok_or_else(|| ServiceError::internal("a done key without its outcome"))??;
                crate::metrics::record_idempotency_replay();
                return Ok(NextAction::Replay {
                    outcome: Box::new(outcome),
                });
            }
            Decision::TakeOver => {
                if idempotency_keys::take_over(db, account_id, key.as_str(), record.locked_at, now)
                    .await?
                {
                    tracing::info!("took over an abandoned or released claim");
                    return Ok(NextAction::Execute {
                        record: Box::new(record),
                    });
                }
            }
        }
    }
    Err(ServiceError::RequestInProgress {
        retry_after_seconds: 1,
    })
}
