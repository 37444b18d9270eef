//! Refunds and cancellation: idempotent refunds through the same key flow as payments, the
//! payment REFUNDING while one is in flight, `amountRefunded <= amount` under any concurrency.

use serde_json::json;

use super::ServiceError;
use super::check_free_text;
use super::idempotency::{NextAction, begin};
use super::payments::{PROCESSOR_ERROR, PaymentResult, PaymentService};
use crate::domain::idempotency::{IdempotencyKey, fingerprint};
use crate::domain::ids::{IdKind, is_id_of};
use crate::domain::money::MinorUnits;
use crate::domain::state_machine::{self, PaymentOperation, RefundOperation};
use crate::domain::status::{PaymentStatus, RefundStatus};
use crate::persistence::idempotency_keys;
use crate::persistence::payment_writes::{self, Changes, KeyAction, KeyRef, Written};
use crate::persistence::payments::{self, Payment, Refund};
use crate::processor::{RefundOutcome, RefundRequest};

/// Longest refund reason accepted, in characters.
pub const MAX_REASON_LEN: usize = 500;

/// A validated `refundPayment` input.
#[derive(Clone, Debug)]
pub struct RefundInput {
    pub payment_id: String,
    /// `None`: everything still refundable.
    pub amount: Option<MinorUnits>,
    pub reason: Option<String>,
}

impl RefundInput {
    pub fn parse(
        payment_id: String,
        amount: Option<i64>,
        reason: Option<String>,
    ) -> Result<Self, ServiceError> {
        if !is_id_of(IdKind::Payment, &payment_id) {
            return Err(ServiceError::bad_input(
                "input.paymentId",
                "not a payment id (they start with pay_)",
            ));
        }
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

const MAX_STALE_RETRIES: usize = 8;

impl PaymentService {
    #[tracing::instrument(skip_all, fields(account_id, payment_id = %input.payment_id))]
    pub async fn refund(
        &self,
        account_id: &str,
        key: &IdempotencyKey,
        input: RefundInput,
    ) -> Result<RefundResult, ServiceError> {
        self.reload(account_id, &input.payment_id).await?;
        let fp = fingerprint(
            "refundPayment",
            &json!({
                "paymentId": input.payment_id,
                "amount": input.amount.map(MinorUnits::get),
                "reason": input.reason,
            }),
        );
        let record = match begin(
            self.db(),
            self.settings(),
            account_id,
            key,
            "refundPayment",
            &fp,
        )
        .await?
        {
            NextAction::Replay { outcome } => {
                let refund = outcome
                    .refund
                    .ok_or_else(|| ServiceError::internal("refund outcome without a refund"))?;
                return Ok(RefundResult {
                    refund,
                    payment: outcome.payment,
                    replayed: true,
                });
            }
            NextAction::Execute { record } => record,
        };
        let key_ref = KeyRef {
            account_id,
            key: key.as_str(),
        };
        if let Some(refund_id) = &record.refund_id {
            // An earlier attempt started this refund and then lost the processor: carry on.
            let refund = self.reload_refund(account_id, refund_id).await?;
            let payment = self.reload(account_id, &input.payment_id).await?;
            return self.send_refund(payment, refund, key_ref).await;
        }
        for _ in 0..MAX_STALE_RETRIES {
            let payment = self.reload(account_id, &input.payment_id).await?;
            let status = payment.status;
            if let Err(refused) = state_machine::next(status, PaymentOperation::RefundRequested) {
                idempotency_keys::forget(self.db(), account_id, key.as_str()).await?;
                return Err(refused.into());
            }
            let refundable = payment.amount_refundable();
            let requested = input.amount.map(MinorUnits::get).unwrap_or(refundable);
            let Some(requested) = MinorUnits::parse(requested)
                .ok()
                .filter(|r| r.get() <= refundable)
            else {
                idempotency_keys::forget(self.db(), account_id, key.as_str()).await?;
                return Err(ServiceError::RefundExceedsAvailable(format!(
                    "cannot refund {requested}: {refundable} of {} is still refundable",
                    payment.amount.get()
                )));
            };
            match payment_writes::begin_refund(
                self.db(),
                &payment,
                requested,
                input.reason.clone(),
                key_ref,
            )
            .await?
            {
                Written::Done((refunding, refund)) => {
                    self.changed();
                    return self.send_refund(refunding, refund, key_ref).await;
                }
                Written::Stale => continue,
            }
        }
        idempotency_keys::release(self.db(), account_id, key.as_str()).await?;
        Err(ServiceError::RequestInProgress {
            retry_after_seconds: 1,
        })
    }

    async fn reload_refund(&self, account_id: &str, id: &str) -> Result<Refund, ServiceError> {
        payments::find_refunds(self.db(), account_id, &[id.to_string()])
            .await?
            .pop()
            .ok_or_else(|| ServiceError::internal("a key's refund vanished"))
    }

    /// Asks the processor for a PENDING refund (outside any transaction), then settles it.
    async fn send_refund(
        &self,
        payment: Payment,
        refund: Refund,
        key: KeyRef<'_>,
    ) -> Result<RefundResult, ServiceError> {
        if refund.status != RefundStatus::Pending {
            payment_writes::complete_key_with(self.db(), key, &payment, Some(&refund)).await?;
            return Ok(RefundResult {
                refund,
                payment,
                replayed: false,
            });
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
                idempotency_keys::release(self.db(), key.account_id, key.key).await?;
                tracing::warn!(error = %err, "processor unavailable for a refund; claim released");
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
                payment_writes::complete_key_with(self.db(), key, &payment, Some(&refund)).await?;
                return Ok(RefundResult {
                    refund,
                    payment,
                    replayed: false,
                });
            }
        };
        let reference = Some(reference).filter(|r| !r.is_empty());
        let (payment, refund) = self
            .settle_refund(payment, refund, operation, code, reference, Some(key))
            .await?;
        Ok(RefundResult {
            refund,
            payment,
            replayed: false,
        })
    }

    /// Settles a refund and its payment together, re-reading both on a concurrent change.
    pub(crate) async fn settle_refund(
        &self,
        mut payment: Payment,
        mut refund: Refund,
        operation: RefundOperation,
        failure_code: Option<String>,
        reference: Option<String>,
        key: Option<KeyRef<'_>>,
    ) -> Result<(Payment, Refund), ServiceError> {
        for _ in 0..MAX_STALE_RETRIES {
            let plan = state_machine::settle_refund(
                payment.status,
                payment.amount.get(),
                payment.amount_refunded,
                refund.status,
                refund.amount.get(),
                operation,
            );
            let Ok(plan) = plan else {
                // Settled meanwhile (by a webhook, say): that is the outcome.
                if let Some(key) = key {
                    payment_writes::complete_key_with(self.db(), key, &payment, Some(&refund))
                        .await?;
                }
                return Ok((payment, refund));
            };
            let settled = payment_writes::settle_refund(
                self.db(),
                &payment,
                &refund,
                &plan,
                failure_code.clone(),
                reference.clone(),
                key,
            )
            .await?;
            match settled {
                Written::Done(both) => {
                    self.changed();
                    return Ok(both);
                }
                Written::Stale => {
                    payment = self.reload(&payment.account_id, &payment.id).await?;
                    refund = self.reload_refund(&refund.account_id, &refund.id).await?;
                }
            }
        }
        Err(ServiceError::internal(
            "refund settlement kept losing to concurrent writers",
        ))
    }

    /// PENDING -> CANCELED; a CANCELED payment is returned unchanged; anything else is refused.
    #[tracing::instrument(skip_all, fields(account_id, payment_id))]
    pub async fn cancel(
        &self,
        account_id: &str,
        payment_id: &str,
    ) -> Result<PaymentResult, ServiceError> {
        if !is_id_of(IdKind::Payment, payment_id) {
            return Err(ServiceError::bad_input(
                "paymentId",
                "not a payment id (they start with pay_)",
            ));
        }
        for _ in 0..MAX_STALE_RETRIES {
            let payment = self.reload(account_id, payment_id).await?;
            let status = payment.status;
            if status == PaymentStatus::Canceled {
                return Ok(PaymentResult::made(payment));
            }
            let to = state_machine::next(status, PaymentOperation::Cancel)?;
            let changed = payment_writes::transition(
                self.db(),
                &payment,
                to,
                "canceled",
                Changes::default(),
                KeyAction::None,
            )
            .await?;
            if let Written::Done(payment) = changed {
                self.changed();
                return Ok(PaymentResult::made(payment));
            }
        }
        Err(ServiceError::RequestInProgress {
            retry_after_seconds: 1,
        })
    }
}
