//! The rail every money-moving mutation runs on. It owns the life of the request's
//! idempotency key: the claim (or the replay of a stored outcome, a refusal, or the take-over
//! of an abandoned claim), then the operation, and on every exit what becomes of the key:
//! - completed, only by the operation's final write, through the [`Completion`] that the
//!   rail hands out and the write consumes once its transaction has committed;
//! - forgotten when the operation was refused (a state that does not allow it, an amount
//!   beyond what is refundable): the claim produced nothing, and the key is free again;
//! - released on any other failure (the processor unreachable, a database error, a writer
//!   that kept winning): what the claim produced is kept, and a retry with the key takes over
//!   at once and carries on with the same processor key.
//!
//! Operations never complete, release or forget a key themselves. A claim dropped without
//! one of these (a panic in the operation) is released by its guard.

use std::sync::atomic::{AtomicBool, Ordering};

use super::ServiceError;
use super::idempotency::{IdempotencySettings, NextAction, after_claimed, begin};
use crate::domain::idempotency::IdempotencyKey;
use crate::persistence::idempotency_keys::{self, Completion, KeyRef, StoredOutcome};
use crate::persistence::payment_writes::{self, ClaimedCapture, NewClaim};
use crate::persistence::payments::{NewPayment, Payment, Refund};
use crate::persistence::{Backend, Db};

/// How a mutation claims its key.
pub(crate) enum ClaimBy<'n> {
    /// Insert-if-absent on the key alone.
    Key,
    /// The key together with the payment it creates (`createPayment`): on PostgreSQL one
    /// statement writes both, and the payment is stored complete as the key's outcome when
    /// `complete` is set; elsewhere the key is claimed alone and the operation creates the
    /// payment in its first write.
    KeyAndPayment { new: &'n NewPayment, complete: bool },
    /// The key together with the capture of a payment (`capturePayment`): on PostgreSQL one
    /// statement claims the key and records the capture in flight when the payment allows
    /// it; elsewhere the key is claimed alone and the operation records the capture.
    KeyAndCapture {
        payment_id: &'n str,
        amount: Option<i64>,
    },
}

impl ClaimBy<'_> {
    /// Whether the claim is one statement with the operation's first write here.
    pub(crate) fn is_fused(&self, backend: Backend) -> bool {
        backend == Backend::Postgres && !matches!(self, ClaimBy::Key)
    }
}

/// What the operation starts from once this request holds the key.
#[derive(Debug, Default)]
pub(crate) struct Claimed {
    /// The payment the claim itself wrote (created by `ClaimBy::KeyAndPayment`, its capture
    /// in flight by `ClaimBy::KeyAndCapture`, on PostgreSQL).
    pub written: Option<Payment>,
    /// What an earlier holder of the key made before it let go (taken over): carry it on.
    pub payment_id: Option<String>,
    pub refund_id: Option<String>,
}

/// This request's hold on a claimed key, lent to the operation.
pub(crate) struct Hold<'a> {
    db: &'a Db,
    key: KeyRef<'a>,
    /// Set by the write that completed the key, once it committed.
    completed: AtomicBool,
    /// This request holds the claim: until then nothing is to be done with the key.
    claimed: bool,
    /// The rail has completed, released or forgotten the key: nothing is left to do.
    settled: bool,
}

impl<'a> Hold<'a> {
    fn new(db: &'a Db, key: KeyRef<'a>) -> Self {
        Self {
            db,
            key,
            completed: AtomicBool::new(false),
            claimed: false,
            settled: false,
        }
    }

    /// The key, for writes that link what they create to it.
    pub fn key(&self) -> KeyRef<'a> {
        self.key
    }

    /// The completion of the key, for the write that stores its outcome.
    pub fn completion(&self) -> Completion<'_> {
        Completion::new(self.key, &self.completed)
    }

    /// Completes the key with the payment (and refund) as they stand, with no change of
    /// their own: the outcome of an operation that found its work already done (settled by a
    /// webhook meanwhile), or that ends waiting for the processor's webhook.
    pub async fn complete_with(
        &self,
        payment: &Payment,
        refund: Option<&Refund>,
    ) -> Result<(), ServiceError> {
        idempotency_keys::complete_key_with(self.db, self.completion(), payment, refund).await?;
        Ok(())
    }

    fn is_completed(&self) -> bool {
        self.completed.load(Ordering::Acquire)
    }

    /// What becomes of the key after the operation answered `result`.
    async fn settle<T>(mut self, result: Result<T, ServiceError>) -> Result<T, ServiceError> {
        self.settled = true;
        let completed = self.is_completed();
        let result = match result {
            Ok(_) if !completed => {
                tracing::error!("an operation ended without completing its key; released");
                Err(ServiceError::internal(
                    "an operation ended without completing its key",
                ))
            }
            other => other,
        };
        let Err(err) = result else {
            return result;
        };
        if completed {
            // Completed, then failed afterwards (nothing does today): the outcome stands.
            return Err(err);
        }
        let (what, done) = if is_refusal(&err) {
            let done = idempotency_keys::forget(self.db, self.key.account_id, self.key.key).await;
            ("forgotten", done)
        } else {
            let done = idempotency_keys::release(self.db, self.key.account_id, self.key.key).await;
            ("released", done)
        };
        match done {
            Ok(()) => tracing::debug!(error = ?err, "claim {what}"),
            // The claim is taken over after the lock timeout instead.
            Err(store) => tracing::warn!(error = ?store, "the claim could not be {what}"),
        }
        Err(err)
    }
}

impl Drop for Hold<'_> {
    fn drop(&mut self) {
        if !self.claimed || self.settled || self.is_completed() {
            return;
        }
        // Only a panic in the operation gets here: release the claim in the background, so
        // that a retry need not wait for the lock timeout.
        tracing::error!("a claimed key was dropped unsettled; releasing it");
        let (db, account_id, key) = (
            self.db.clone(),
            self.key.account_id.to_string(),
            self.key.key.to_string(),
        );
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                if let Err(err) = idempotency_keys::release(&db, &account_id, &key).await {
                    tracing::warn!(error = ?err, "the dropped claim could not be released");
                }
            });
        }
    }
}

/// A refusal leaves nothing behind, so its claim is forgotten; any other failure may have
/// left something to carry on with (a payment, a refund, a charge at the processor), so its
/// claim is released.
fn is_refusal(err: &ServiceError) -> bool {
    match err {
        ServiceError::BadInput { .. }
        | ServiceError::InvalidAmount(_)
        | ServiceError::InvalidTransition(_)
        | ServiceError::RefundExceedsAvailable(_)
        | ServiceError::Forbidden { .. }
        | ServiceError::InvalidIdempotencyKey(_)
        | ServiceError::IdempotencyKeyReused => true,
        ServiceError::RequestInProgress { .. }
        | ServiceError::ProcessorUnavailable
        | ServiceError::Store(_)
        | ServiceError::Internal(_) => false,
    }
}

/// The rail's settings and storage.
#[derive(Clone, Copy)]
pub(crate) struct Rail<'s> {
    pub db: &'s Db,
    pub settings: &'s IdempotencySettings,
}

/// One money-moving mutation: what it claims its key for, and how.
pub(crate) struct Mutation<'m> {
    pub account_id: &'m str,
    pub key: &'m IdempotencyKey,
    /// The operation's name (`createPayment`, `refundPayment`, ...).
    pub operation: &'static str,
    pub fingerprint: &'m str,
    pub claim_by: ClaimBy<'m>,
}

impl Rail<'_> {
    /// Runs `mutation` on the rail: claims its key (or answers `replay` with the key's stored
    /// outcome, or refuses), runs `operation` with the hold on the key, and settles the key
    /// on every exit (see the module's opening comment).
    pub(crate) async fn run<T>(
        self,
        mutation: Mutation<'_>,
        replay: impl FnOnce(StoredOutcome) -> Result<T, ServiceError>,
        operation: impl AsyncFnOnce(Claimed, &Hold<'_>) -> Result<T, ServiceError>,
    ) -> Result<T, ServiceError> {
        let key = KeyRef {
            account_id: mutation.account_id,
            key: mutation.key.as_str(),
        };
        let mut hold = Hold::new(self.db, key);
        let claimed = match self.claim(&mutation, &hold).await {
            Ok(Some(claimed)) => claimed,
            Ok(None) => {
                // Nothing claimed: the key's outcome is the answer, or it is refused.
                let next = self.after_claim_failed(&mutation).await;
                match next {
                    Ok(NextAction::Replay { outcome }) => return replay(*outcome),
                    Ok(NextAction::Execute { record }) => Claimed {
                        written: None,
                        payment_id: record.payment_id,
                        refund_id: record.refund_id,
                    },
                    Err(err) => return Err(err),
                }
            }
            Err(err) => return Err(err),
        };
        hold.claimed = true;
        let result = operation(claimed, &hold).await;
        hold.settle(result).await
    }

    /// The claim by `mutation.claim_by`, when it is fused with the operation's first write;
    /// `None` when the key exists already or the claim is not fused.
    async fn claim(
        &self,
        mutation: &Mutation<'_>,
        hold: &Hold<'_>,
    ) -> Result<Option<Claimed>, ServiceError> {
        if !mutation.claim_by.is_fused(self.db.backend()) {
            return Ok(None);
        }
        let claim = NewClaim {
            key: hold.key(),
            operation: mutation.operation,
            fingerprint: mutation.fingerprint,
        };
        let written = match mutation.claim_by {
            ClaimBy::Key => return Ok(None),
            ClaimBy::KeyAndPayment { new, complete } => {
                let completion = complete.then(|| hold.completion());
                match payment_writes::claim_and_create(self.db, claim, new, completion).await? {
                    Some(payment) => Some(payment),
                    None => return Ok(None),
                }
            }
            ClaimBy::KeyAndCapture { payment_id, amount } => {
                match payment_writes::claim_and_capture(self.db, claim, payment_id, amount).await? {
                    ClaimedCapture::KeyExists => return Ok(None),
                    ClaimedCapture::InFlight(payment) => Some(*payment),
                    ClaimedCapture::Claimed => None,
                }
            }
        };
        Ok(Some(Claimed {
            written,
            ..Claimed::default()
        }))
    }

    /// Claims the key, replays its outcome, refuses, or takes an abandoned claim over.
    async fn after_claim_failed(
        &self,
        mutation: &Mutation<'_>,
    ) -> Result<NextAction, ServiceError> {
        let (db, settings) = (self.db, self.settings);
        let (account_id, key) = (mutation.account_id, mutation.key);
        let (operation, fingerprint) = (mutation.operation, mutation.fingerprint);
        if mutation.claim_by.is_fused(db.backend()) {
            // The one-statement claim found the key there: read it, do not claim again.
            after_claimed(db, settings, account_id, key, operation, fingerprint).await
        } else {
            begin(db, settings, account_id, key, operation, fingerprint).await
        }
    }
}

#[cfg(test)]
mod tests;
