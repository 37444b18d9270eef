//! `capturePayment`: takes all or part of an authorization (REQUIRES_CAPTURE), once. The
//! capture is recorded on the payment before the processor is called, linked to the request's
//! key, so a retry with the key carries on with the same amount and the same processor key,
//! any other capture is refused while it is in flight, and the reconciler can settle one
//! whose answer was lost.

use serde_json::json;

use super::{PROCESSOR_ERROR, PaymentResult, PaymentService, ServiceError};
use crate::domain::idempotency::{IdempotencyKey, fingerprint};
use crate::domain::ids::PaymentId;
use crate::domain::money::MinorUnits;
use crate::domain::payment::Payment;
use crate::domain::state_machine::{self, InvalidTransition, PaymentOperation};
use crate::domain::status::PaymentStatus;
use crate::persistence::payment_writes::{self, Changes, KeyAction, Written};
use crate::processor::{CaptureOutcome, CaptureRequest};
use crate::service::rail::{ClaimBy, Hold, Mutation};
use crate::service::stale::{StaleRetries, busy};

/// The operation name keys of `capturePayment` are claimed for.
const CAPTURE_PAYMENT: &str = "capturePayment";

/// The processor key of a payment's capture: a payment is captured once, so one key.
pub(crate) fn capture_key(payment: &Payment) -> String {
    format!("{}.capture", payment.processor_key)
}

/// The processor key of a payment's void.
pub(crate) fn void_key(payment: &Payment) -> String {
    format!("{}.void", payment.processor_key)
}

/// Refused: a capture of this payment by another request is in flight.
fn capture_in_flight() -> ServiceError {
    ServiceError::InvalidTransition(InvalidTransition {
        from: PaymentStatus::RequiresCapture,
        operation: PaymentOperation::Capture,
    })
}

impl PaymentService {
    #[tracing::instrument(skip_all, fields(account_id, payment_id))]
    pub async fn capture(
        &self,
        account_id: &str,
        key: &IdempotencyKey,
        payment_id: &PaymentId,
        amount: Option<MinorUnits>,
    ) -> Result<PaymentResult, ServiceError> {
        let payment_id = payment_id.as_str();
        let claim_by = ClaimBy::KeyAndCapture {
            payment_id,
            amount: amount.map(MinorUnits::get),
        };
        // A fused claim takes the payment only as it allows; otherwise refuse unknown
        // payments before claiming, so a wrong id leaves nothing behind.
        let read = if claim_by.is_fused(self.db().backend()) {
            None
        } else {
            Some(self.reload(account_id, payment_id).await?)
        };
        let fingerprint = fingerprint(
            CAPTURE_PAYMENT,
            &json!({ "paymentId": payment_id, "amount": amount.map(MinorUnits::get) }),
        );
        let mutation = Mutation {
            account_id,
            key,
            operation: CAPTURE_PAYMENT,
            fingerprint: &fingerprint,
            claim_by,
        };
        let replay =
            |outcome: payment_writes::StoredOutcome| Ok(PaymentResult::replayed(outcome.payment));
        self.rail()
            .run(mutation, replay, async |claimed, hold| {
                if let Some(in_flight) = claimed.written {
                    return self.send_capture(in_flight, Some(hold)).await;
                }
                let resumed = claimed.payment_id.is_some();
                // A fresh claim starts from the payment read before it, if any; the version
                // check of the first write finds any change since.
                let mut read = if resumed { None } else { read };
                let mut retries = StaleRetries::default();
                let in_flight = loop {
                    let payment = match read.take() {
                        Some(payment) => payment,
                        None => self.reload(account_id, payment_id).await?,
                    };
                    if resumed && payment.status != PaymentStatus::RequiresCapture {
                        // This key's capture was settled meanwhile (by the reconciler).
                        hold.complete_with(&payment, None).await?;
                        return Ok(PaymentResult::made(payment));
                    }
                    if resumed && payment.capture_amount.is_some() {
                        break payment;
                    }
                    state_machine::next(payment.status, PaymentOperation::Capture)?;
                    if payment.capture_amount.is_some() {
                        return Err(capture_in_flight());
                    }
                    let capturable = payment.amount_capturable;
                    let wanted = amount.map_or(capturable, MinorUnits::get);
                    if wanted > capturable {
                        return Err(ServiceError::InvalidAmount(format!(
                            "the capture amount must be at most amountCapturable ({capturable})"
                        )));
                    }
                    let written = payment_writes::set_capture_in_flight(
                        self.db(),
                        &payment,
                        Some(wanted),
                        Some(hold.key()),
                    )
                    .await?;
                    match written {
                        Written::Done(in_flight) => break in_flight,
                        Written::Stale => retries.again(busy)?,
                    }
                };
                self.send_capture(in_flight, Some(hold)).await
            })
            .await
    }

    /// Sends the capture recorded on `payment` to the processor and settles the payment as
    /// it answers, completing `hold`'s key with the outcome (the reconciler holds none).
    pub(crate) async fn send_capture(
        &self,
        payment: Payment,
        hold: Option<&Hold<'_>>,
    ) -> Result<PaymentResult, ServiceError> {
        let Some(amount) = payment.capture_amount else {
            return Err(ServiceError::internal("no capture in flight"));
        };
        let request = CaptureRequest {
            idempotency_key: capture_key(&payment),
            authorization_key: payment.processor_key.clone(),
            amount,
            currency: payment.currency.code(),
        };
        let outcome = match self.processor().capture(&request).await {
            Ok(outcome) => outcome,
            Err(err) if err.is_transient() => {
                tracing::warn!(error = %err, "processor unavailable; the capture stays in flight");
                return Err(ServiceError::ProcessorUnavailable);
            }
            Err(err) => {
                tracing::error!(error = %err, "the processor refused the capture");
                CaptureOutcome::Failed {
                    reference: String::new(),
                    code: PROCESSOR_ERROR.to_string(),
                }
            }
        };
        self.settle_capture(payment, amount, outcome, hold).await
    }

    /// Settles a capture as the processor answered: captured, the payment SUCCEEDED with
    /// what was taken and nothing left to capture; refused (the authorization was voided or
    /// is gone), the capture no longer in flight and the request refused.
    pub(crate) async fn settle_capture(
        &self,
        payment: Payment,
        amount: i64,
        outcome: CaptureOutcome,
        hold: Option<&Hold<'_>>,
    ) -> Result<PaymentResult, ServiceError> {
        let mut payment = payment;
        let mut retries = StaleRetries::default();
        loop {
            let written = match &outcome {
                CaptureOutcome::Succeeded { reference } => {
                    let Ok(to) = state_machine::next(payment.status, PaymentOperation::Capture)
                    else {
                        // Settled meanwhile: that is the outcome.
                        if let Some(hold) = hold {
                            hold.complete_with(&payment, None).await?;
                        }
                        return Ok(PaymentResult::made(payment));
                    };
                    let changes = Changes {
                        amount_captured: Some(amount),
                        amount_capturable: Some(0),
                        processor_ref: Some(reference.clone()).filter(|r| !r.is_empty()),
                        ..Changes::default()
                    };
                    let key = hold.map_or(KeyAction::None, |h| KeyAction::Complete(h.completion()));
                    payment_writes::transition(self.db(), &payment, to, "captured", changes, key)
                        .await?
                }
                CaptureOutcome::Failed { code, .. } => {
                    tracing::warn!(%code, payment = %payment.id, "the processor refused a capture");
                    crate::metrics::record_lifecycle("capture", "refused");
                    if payment.capture_amount.is_some() {
                        let cleared =
                            payment_writes::set_capture_in_flight(self.db(), &payment, None, None)
                                .await?;
                        if cleared.is_stale() {
                            retries.again(busy)?;
                            payment = self.reload(&payment.account_id, &payment.id).await?;
                            continue;
                        }
                    }
                    return Err(ServiceError::InvalidTransition(InvalidTransition {
                        from: payment.status,
                        operation: PaymentOperation::Capture,
                    }));
                }
            };
            match written {
                Written::Done(captured) => {
                    crate::metrics::record_lifecycle("capture", "succeeded");
                    self.changed();
                    return Ok(PaymentResult::made(captured));
                }
                Written::Stale => {
                    retries.again(busy)?;
                    payment = self.reload(&payment.account_id, &payment.id).await?;
                }
            }
        }
    }
}
