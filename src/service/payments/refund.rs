//! `refundPayment`: the payment goes REFUNDING with a PENDING refund (so concurrent refunds
//! cannot oversubscribe it; `amountRefunded <= amount` under any concurrency), the processor
//! is asked, and both settle together.

use serde_json::json;

use super::{PROCESSOR_ERROR, PaymentService, ServiceError};
use crate::domain::idempotency::{IdempotencyKey, fingerprint};
use crate::domain::ids::PaymentId;
use crate::domain::money::MinorUnits;
use crate::domain::state_machine::{self, PaymentOperation, RefundOperation};
use crate::domain::status::RefundStatus;
use crate::persistence::payment_writes::{self, StoredOutcome, Written};
use crate::persistence::payments::{Payment, Refund};
use crate::processor::{RefundOutcome, RefundRequest};
use crate::service::check_free_text;
use crate::service::rail::{ClaimBy, Hold, Mutation};
use crate::service::stale::{StaleRetries, busy};

/// Longest refund reason accepted, in characters.
pub const MAX_REASON_LEN: usize = 500;

/// The operation name keys of `refundPayment` are claimed for.
const REFUND_PAYMENT: &str = "refundPayment";

/// A validated `refundPayment` input.
#[derive(Clone, Debug)]
pub struct RefundInput {
    pub payment_id: PaymentId,
    /// `None`: everything still refundable.
    pub amount: Option<MinorUnits>,
    pub reason: Option<String>,
}

impl RefundInput {
    pub fn parse(
        payment_id: &str,
        amount: Option<i64>,
        reason: Option<String>,
    ) -> Result<Self, ServiceError> {
        let payment_id = PaymentId::parse(payment_id)
            .map_err(|not| ServiceError::bad_input("input.paymentId", not.to_string()))?;
        let amount = amount
            .map(MinorUnits::parse)
            .transpose()
            .map_err(ServiceError::InvalidAmount)?;
        check_free_text("input.reason", reason.as_deref(), MAX_REASON_LEN)?;
        Ok(Self {
            payment_id,
            amount,
            reason,
        })
    }
}

/// A refund as `refundPayment` answers it.
#[derive(Clone, Debug)]
pub struct RefundResult {
    pub refund: Refund,
    pub payment: Payment,
    pub replayed: bool,
}

impl PaymentService {
    #[tracing::instrument(skip_all, fields(account_id, payment_id = %input.payment_id))]
    pub async fn refund(
        &self,
        account_id: &str,
        key: &IdempotencyKey,
        input: RefundInput,
    ) -> Result<RefundResult, ServiceError> {
        // Refuse unknown payments before claiming, so a wrong id leaves nothing behind.
        self.reload(account_id, input.payment_id.as_str()).await?;
        let fingerprint = fingerprint(
            REFUND_PAYMENT,
            &json!({
                "paymentId": input.payment_id.as_str(),
                "amount": input.amount.map(MinorUnits::get),
                "reason": input.reason,
            }),
        );
        let mutation = Mutation {
            account_id,
            key,
            operation: REFUND_PAYMENT,
            fingerprint: &fingerprint,
            claim_by: ClaimBy::Key,
        };
        let replay = |outcome: StoredOutcome| {
            let refund = outcome
                .refund
                .ok_or_else(|| ServiceError::internal("refund outcome without a refund"))?;
            Ok(RefundResult {
                refund,
                payment: outcome.payment,
                replayed: true,
            })
        };
        self.rail()
            .run(mutation, replay, async |claimed, hold| {
                if let Some(refund_id) = &claimed.refund_id {
                    // An earlier attempt started this refund and then lost the processor:
                    // carry on.
                    let refund = self.reload_refund(account_id, refund_id).await?;
                    let payment = self.reload(account_id, input.payment_id.as_str()).await?;
                    return self.send_refund(payment, refund, hold).await;
                }
                let mut retries = StaleRetries::default();
                let (refunding, refund) = loop {
                    let payment = self.reload(account_id, input.payment_id.as_str()).await?;
                    state_machine::next(payment.status, PaymentOperation::RefundRequested)?;
                    let refundable = payment.amount_refundable();
                    let requested = input.amount.map(MinorUnits::get).unwrap_or(refundable);
                    let Some(requested) = MinorUnits::parse(requested)
                        .ok()
                        .filter(|r| r.get() <= refundable)
                    else {
                        return Err(ServiceError::RefundExceedsAvailable(format!(
                            "cannot refund {requested}: {refundable} of {} captured is still refundable",
                            payment.amount_captured
                        )));
                    };
                    let reason = input.reason.clone();
                    let key = hold.key();
                    match payment_writes::begin_refund(self.db(), &payment, requested, reason, key)
                        .await?
                    {
                        Written::Done(both) => break both,
                        Written::Stale => retries.again(busy)?,
                    }
                };
                self.changed();
                self.send_refund(refunding, refund, hold).await
            })
            .await
    }

    /// Asks the processor for a PENDING refund (outside any transaction), then settles it.
    async fn send_refund(
        &self,
        payment: Payment,
        refund: Refund,
        hold: &Hold<'_>,
    ) -> Result<RefundResult, ServiceError> {
        let made = |payment, refund| RefundResult {
            refund,
            payment,
            replayed: false,
        };
        if refund.status != RefundStatus::Pending {
            hold.complete_with(&payment, Some(&refund)).await?;
            return Ok(made(payment, refund));
        }
        let request = RefundRequest {
            idempotency_key: refund.processor_key.clone(),
            charge_key: payment.processor_key.clone(),
            amount: refund.amount.get(),
            currency: refund.currency.code(),
        };
        let outcome = match self.processor().refund(&request).await {
            Ok(outcome) => outcome,
            Err(err) if err.is_transient() => {
                tracing::warn!(error = %err, "processor unavailable for a refund; the claim is released");
                return Err(ServiceError::ProcessorUnavailable);
            }
            Err(err) => {
                // Refused outright: the refund fails and the payment goes back.
                tracing::error!(error = %err, "the processor refused the refund");
                RefundOutcome::Failed {
                    reference: String::new(),
                    code: PROCESSOR_ERROR.to_string(),
                }
            }
        };
        let (operation, code, reference) = match outcome {
            RefundOutcome::Succeeded { reference } => (RefundOperation::Succeed, None, reference),
            RefundOutcome::Failed { reference, code } => {
                (RefundOperation::Fail, Some(code), reference)
            }
            RefundOutcome::Pending { .. } => {
                hold.complete_with(&payment, Some(&refund)).await?;
                return Ok(made(payment, refund));
            }
        };
        let reference = Some(reference).filter(|r| !r.is_empty());
        let (payment, refund) = self
            .settle_refund(payment, refund, operation, code, reference, hold)
            .await?;
        Ok(made(payment, refund))
    }

    /// Settles a refund and its payment together, re-reading both on a concurrent change, and
    /// completes the key with both.
    async fn settle_refund(
        &self,
        payment: Payment,
        refund: Refund,
        operation: RefundOperation,
        failure_code: Option<String>,
        reference: Option<String>,
        hold: &Hold<'_>,
    ) -> Result<(Payment, Refund), ServiceError> {
        let (mut payment, mut refund) = (payment, refund);
        let mut retries = StaleRetries::default();
        loop {
            let plan = state_machine::settle_refund(
                payment.status,
                payment.amount_captured,
                payment.amount_refunded,
                refund.status,
                refund.amount.get(),
                operation,
            );
            let Ok(plan) = plan else {
                // Settled meanwhile (by a webhook, say): that is the outcome.
                hold.complete_with(&payment, Some(&refund)).await?;
                return Ok((payment, refund));
            };
            let settled = payment_writes::settle_refund(
                self.db(),
                &payment,
                &refund,
                &plan,
                failure_code.clone(),
                reference.clone(),
                hold.completion(),
            )
            .await?;
            match settled {
                Written::Done(both) => {
                    self.changed();
                    return Ok(both);
                }
                Written::Stale => {
                    retries.again(|| {
                        ServiceError::internal(
                            "refund settlement kept losing to concurrent writers",
                        )
                    })?;
                    payment = self.reload(&payment.account_id, &payment.id).await?;
                    refund = self.reload_refund(&refund.account_id, &refund.id).await?;
                }
            }
        }
    }
}
