//! Reconciliation: PENDING payments past their TTL are canceled; PROCESSING payments past the
//! deadline are looked up at the processor by their key and resolved to its outcome, or
//! canceled when it never saw them; captures whose answer was lost are looked up and settled
//! the same way; authorizations past their `captureBefore` are voided (`CANCELED`,
//! `AUTHORIZATION_EXPIRED`); customer actions unanswered past the action TTL are settled as the
//! processor says, or withdrawn (`CANCELED`, `ACTION_EXPIRED`).

use std::time::Duration;

use super::ServiceError;
use super::payments::PaymentService;
use crate::domain::capture::CancellationReason;
use crate::domain::state_machine::{self, PaymentOperation};
use crate::domain::status::PaymentStatus;
use crate::domain::time::Timestamp;
use crate::persistence::payment_writes::{self, Changes, KeyAction, Written};
use crate::persistence::payments::{self, Payment};
use crate::processor::ChargeOutcome;
use crate::service::payments::capture_key;

/// Rows handled per status per run; the next run picks up the rest.
const BATCH: u64 = 200;

#[derive(Clone, Copy, Debug)]
pub struct ReconcileSettings {
    pub pending_ttl: Duration,
    pub processing_deadline: Duration,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReconcileReport {
    pub expired: usize,
    pub resolved: usize,
    /// Captures in flight settled (captured, or found never sent).
    pub captures: usize,
    /// Authorizations voided past their deadline.
    pub voided: usize,
    /// Customer actions settled: answered (the answer's webhook lost), or withdrawn and their
    /// payments canceled.
    pub actions: usize,
}

fn seconds(d: Duration) -> i64 {
    i64::try_from(d.as_secs()).unwrap_or(i64::MAX)
}

impl PaymentService {
    #[tracing::instrument(skip_all)]
    pub async fn reconcile(
        &self,
        settings: ReconcileSettings,
    ) -> Result<ReconcileReport, ServiceError> {
        let mut report = ReconcileReport::default();
        let now = Timestamp::now();
        let pending_cutoff = now.plus_seconds(-seconds(settings.pending_ttl));
        for payment in
            payments::stale(self.db(), PaymentStatus::Pending, pending_cutoff, BATCH).await?
        {
            if self
                .apply(
                    &payment,
                    PaymentOperation::Expire,
                    Changes::default(),
                    "expired",
                )
                .await?
            {
                report.expired += 1;
            }
        }
        let processing_cutoff = now.plus_seconds(-seconds(settings.processing_deadline));
        for payment in payments::stale(
            self.db(),
            PaymentStatus::Processing,
            processing_cutoff,
            BATCH,
        )
        .await?
        {
            let found = match self.processor().lookup_charge(&payment.processor_key).await {
                Ok(found) => found,
                Err(err) => {
                    tracing::warn!(payment = %payment.id, error = %err, "cannot reconcile now");
                    continue;
                }
            };
            let (operation, changes, reason) = match found {
                Some(ChargeOutcome::Approved { reference }) => {
                    let (operation, changes) =
                        payment_writes::approved(&payment, reference, self.capture_before());
                    (
                        operation,
                        changes,
                        "approved (reconciled with the processor)",
                    )
                }
                Some(ChargeOutcome::Declined {
                    reference,
                    code,
                    message,
                }) => (
                    PaymentOperation::ProcessorDeclined,
                    Changes {
                        processor_ref: Some(reference),
                        failure_code: Some(code),
                        failure_message: Some(message),
                        ..Changes::default()
                    },
                    "declined (reconciled with the processor)",
                ),
                Some(ChargeOutcome::ActionRequired {
                    reference,
                    redirect_url,
                }) => (
                    PaymentOperation::ActionRequired,
                    Changes {
                        processor_ref: Some(reference),
                        next_action_url: Some(redirect_url),
                        ..Changes::default()
                    },
                    "the customer must act (reconciled with the processor)",
                ),
                Some(ChargeOutcome::Pending { .. }) => continue,
                None => (
                    PaymentOperation::Expire,
                    Changes::default(),
                    "expired: the processor never received it",
                ),
            };
            if self.apply(&payment, operation, changes, reason).await? {
                report.resolved += 1;
            }
        }
        report.captures = self.settle_lost_captures(processing_cutoff).await?;
        report.voided = self.void_expired_authorizations(now).await?;
        report.actions = self.settle_unanswered_actions(now).await?;
        Ok(report)
    }

    /// Asks the processor about captures whose answer was lost, and settles each as it
    /// answers; one it never received is no longer in flight, and may be sent again.
    async fn settle_lost_captures(&self, before: Timestamp) -> Result<usize, ServiceError> {
        let mut settled = 0;
        for payment in payments::captures_in_flight(self.db(), before, BATCH).await? {
            let (Some(amount), key) = (payment.capture_amount, capture_key(&payment)) else {
                continue;
            };
            let found = match self.processor().lookup_capture(&key).await {
                Ok(found) => found,
                Err(err) => {
                    tracing::warn!(payment = %payment.id, error = %err, "cannot reconcile now");
                    continue;
                }
            };
            let done = match found {
                Some(outcome) => self
                    .settle_capture(payment, amount, outcome, None)
                    .await
                    .is_ok(),
                None => payment_writes::set_capture_in_flight(self.db(), &payment, None, None)
                    .await?
                    .done()
                    .is_some(),
            };
            settled += usize::from(done);
        }
        Ok(settled)
    }

    /// Customer actions waiting longer than the action TTL: the processor is asked first. An
    /// answer whose webhook was lost is applied (PROCESSING, then the outcome); an action
    /// still open is withdrawn at the processor and its payment canceled (`ACTION_EXPIRED`).
    async fn settle_unanswered_actions(&self, now: Timestamp) -> Result<usize, ServiceError> {
        let cutoff = now.plus_seconds(-seconds(self.lifecycle().action_ttl));
        let waiting =
            payments::stale(self.db(), PaymentStatus::RequiresAction, cutoff, BATCH).await?;
        let mut settled = 0;
        for payment in waiting {
            let found = match self.processor().lookup_charge(&payment.processor_key).await {
                Ok(found) => found,
                Err(err) => {
                    tracing::warn!(payment = %payment.id, error = %err, "cannot reconcile now");
                    continue;
                }
            };
            let answered = match found {
                Some(ChargeOutcome::Approved { reference }) => Some(payment_writes::approved(
                    &payment,
                    reference,
                    self.capture_before(),
                )),
                Some(ChargeOutcome::Declined {
                    reference,
                    code,
                    message,
                }) => Some((
                    PaymentOperation::ProcessorDeclined,
                    Changes {
                        processor_ref: Some(reference),
                        failure_code: Some(code),
                        failure_message: Some(message),
                        ..Changes::default()
                    },
                )),
                Some(ChargeOutcome::ActionRequired { .. } | ChargeOutcome::Pending { .. })
                | None => None,
            };
            let done = match answered {
                Some((operation, changes)) => {
                    self.apply_answer(&payment, operation, changes).await?
                }
                None => self.withdraw_action(&payment).await?,
            };
            settled += usize::from(done);
        }
        Ok(settled)
    }

    /// The customer's answer, found at the processor: PROCESSING, then on.
    async fn apply_answer(
        &self,
        payment: &Payment,
        operation: PaymentOperation,
        changes: Changes,
    ) -> Result<bool, ServiceError> {
        let reason = "the customer acted (reconciled with the processor)";
        if !self
            .apply(
                payment,
                PaymentOperation::CustomerActed,
                Changes::default(),
                reason,
            )
            .await?
        {
            return Ok(false);
        }
        let Some(processing) =
            payments::find_payment(self.db(), &payment.account_id, &payment.id).await?
        else {
            return Ok(false);
        };
        let reason = "processor outcome (reconciled with the processor)";
        self.apply(&processing, operation, changes, reason).await
    }

    /// Withdraws an unanswered customer action at the processor and cancels its payment.
    async fn withdraw_action(&self, payment: &Payment) -> Result<bool, ServiceError> {
        if let Err(err) = self.void(payment).await {
            // Answered meanwhile, say: the next run finds the answer.
            tracing::warn!(payment = %payment.id, error = ?err, "cannot withdraw a customer action now");
            return Ok(false);
        }
        let changes = Changes {
            cancellation_reason: Some(CancellationReason::ActionExpired),
            ..Changes::default()
        };
        let reason = "customer action expired";
        let done = self
            .apply(payment, PaymentOperation::Expire, changes, reason)
            .await?;
        if done {
            crate::metrics::record_lifecycle("customer_action", "expired");
        }
        Ok(done)
    }

    /// Voids authorizations past their `captureBefore` and cancels their payments.
    async fn void_expired_authorizations(&self, now: Timestamp) -> Result<usize, ServiceError> {
        let mut voided = 0;
        for payment in payments::authorizations_expired(self.db(), now, BATCH).await? {
            if let Err(err) = self.void(&payment).await {
                tracing::warn!(payment = %payment.id, error = ?err, "cannot void an expired authorization now");
                continue;
            }
            let changes = Changes {
                cancellation_reason: Some(CancellationReason::AuthorizationExpired),
                amount_capturable: Some(0),
                ..Changes::default()
            };
            let reason = "authorization expired: voided";
            if self
                .apply(&payment, PaymentOperation::Expire, changes, reason)
                .await?
            {
                crate::metrics::record_lifecycle("authorization_expiry", "voided");
                voided += 1;
            }
        }
        Ok(voided)
    }

    /// One transition if the state machine still allows it; a concurrent change wins.
    async fn apply(
        &self,
        payment: &Payment,
        operation: PaymentOperation,
        changes: Changes,
        reason: &str,
    ) -> Result<bool, ServiceError> {
        let Ok(to) = state_machine::next(payment.status, operation) else {
            return Ok(false);
        };
        let done =
            payment_writes::transition(self.db(), payment, to, reason, changes, KeyAction::None)
                .await?;
        match done {
            Written::Done(_) => {
                self.changed();
                Ok(true)
            }
            Written::Stale => Ok(false),
        }
    }
}
