//! `cancelPayment`: PENDING goes CANCELED; REQUIRES_ACTION and REQUIRES_CAPTURE go CANCELED
//! once the processor has withdrawn the customer action or voided the authorization. A CANCELED payment is answered as it is;
//! any other status is refused. With an idempotency key it runs on the rail like every
//! money-moving mutation; without one, cancelling twice answers the same.

use serde_json::json;

use super::capture::void_key;
use super::{PROCESSOR_ERROR, PaymentResult, PaymentService, ServiceError};
use crate::domain::capture::CancellationReason;
use crate::domain::idempotency::{IdempotencyKey, fingerprint};
use crate::domain::ids::PaymentId;
use crate::domain::payment::Payment;
use crate::domain::scope::Scope;
use crate::domain::state_machine::{self, InvalidTransition, PaymentOperation};
use crate::domain::status::PaymentStatus;
use crate::persistence::payment_writes::{self, Changes, KeyAction, Written};
use crate::processor::{CaptureOutcome, CaptureRequest};
use crate::service::rail::{ClaimBy, Hold, Mutation};
use crate::service::stale::{StaleRetries, busy};

/// The operation name keys of `cancelPayment` are claimed for.
const CANCEL_PAYMENT: &str = "cancelPayment";

/// What `cancelPayment` asks for.
#[derive(Clone, Copy, Debug)]
pub struct Cancel<'a> {
    pub payment_id: &'a PaymentId,
    pub reason: Option<CancellationReason>,
    /// The credential may void an authorization (it holds `PAYMENTS_CAPTURE`).
    pub may_void: bool,
    /// The credential may cancel a payment that is not authorized (it holds
    /// `PAYMENTS_WRITE`); one holding only `PAYMENTS_CAPTURE` may void, nothing else.
    pub may_cancel: bool,
}

impl PaymentService {
    #[tracing::instrument(skip_all, fields(account_id, payment_id))]
    pub async fn cancel(
        &self,
        account_id: &str,
        key: Option<&IdempotencyKey>,
        cancel: Cancel<'_>,
    ) -> Result<PaymentResult, ServiceError> {
        let payment_id = cancel.payment_id.as_str();
        // Refuse unknown payments before claiming, so a wrong id leaves nothing behind.
        self.reload(account_id, payment_id).await?;
        let Some(key) = key else {
            return self.cancel_now(account_id, cancel, None).await;
        };
        let fingerprint = fingerprint(
            CANCEL_PAYMENT,
            &json!({
                "paymentId": payment_id,
                "reason": cancel.reason.map(CancellationReason::as_str),
            }),
        );
        let mutation = Mutation {
            account_id,
            key,
            operation: CANCEL_PAYMENT,
            fingerprint: &fingerprint,
            claim_by: ClaimBy::Key,
        };
        let replay =
            |outcome: payment_writes::StoredOutcome| Ok(PaymentResult::replayed(outcome.payment));
        self.rail()
            .run(mutation, replay, async |_claimed, hold| {
                self.cancel_now(account_id, cancel, Some(hold)).await
            })
            .await
    }

    /// Cancels the payment (voiding its authorization first, if it has one), completing
    /// `hold`'s key with the outcome when there is one.
    async fn cancel_now(
        &self,
        account_id: &str,
        cancel: Cancel<'_>,
        hold: Option<&Hold<'_>>,
    ) -> Result<PaymentResult, ServiceError> {
        let mut retries = StaleRetries::default();
        // Once the processor has voided, the payment is canceled whatever else happened
        // meanwhile: a capture begun since can no longer take the authorization.
        let mut voided = false;
        loop {
            let payment = self.reload(account_id, cancel.payment_id.as_str()).await?;
            if payment.status == PaymentStatus::Canceled {
                if let Some(hold) = hold {
                    hold.complete_with(&payment, None).await?;
                }
                return Ok(PaymentResult::made(payment));
            }
            if payment.status != PaymentStatus::RequiresCapture && !cancel.may_cancel {
                return Err(ServiceError::Forbidden {
                    field: "cancelPayment".into(),
                    required_scope: Some(Scope::PaymentsWrite.as_str()),
                });
            }
            let to = state_machine::next(payment.status, PaymentOperation::Cancel)?;
            match payment.status {
                PaymentStatus::RequiresCapture if !cancel.may_void => {
                    return Err(ServiceError::Forbidden {
                        field: "cancelPayment".into(),
                        required_scope: Some(Scope::PaymentsCapture.as_str()),
                    });
                }
                // The authorization, or the customer action, is withdrawn at the processor
                // first, so that nothing can be taken after the payment is canceled.
                PaymentStatus::RequiresCapture | PaymentStatus::RequiresAction if !voided => {
                    self.void(&payment).await?;
                    voided = true;
                }
                _ => {}
            }
            let changes = Changes {
                cancellation_reason: cancel.reason,
                amount_capturable: Some(0),
                ..Changes::default()
            };
            let key = hold.map_or(KeyAction::None, |h| KeyAction::Complete(h.completion()));
            let written =
                payment_writes::transition(self.db(), &payment, to, "canceled", changes, key)
                    .await?;
            match written {
                Written::Done(canceled) => {
                    self.changed();
                    return Ok(PaymentResult::made(canceled));
                }
                Written::Stale => retries.again(busy)?,
            }
        }
    }

    /// Voids `payment`'s authorization at the processor; refused while a capture of it is in
    /// flight or when the processor has captured it already.
    pub(crate) async fn void(&self, payment: &Payment) -> Result<(), ServiceError> {
        let refused = || {
            ServiceError::InvalidTransition(InvalidTransition {
                from: payment.status,
                operation: PaymentOperation::Cancel,
            })
        };
        if payment.capture_amount.is_some() {
            return Err(refused());
        }
        let request = CaptureRequest {
            idempotency_key: void_key(payment),
            authorization_key: payment.processor_key.clone(),
            amount: 0,
            currency: payment.currency.code(),
        };
        let outcome = match self.processor().void(&request).await {
            Ok(outcome) => outcome,
            Err(err) if err.is_transient() => {
                tracing::warn!(error = %err, "processor unavailable; the void can be retried");
                return Err(ServiceError::ProcessorUnavailable);
            }
            Err(err) => {
                tracing::error!(error = %err, "the processor refused the void");
                CaptureOutcome::Failed {
                    reference: String::new(),
                    code: PROCESSOR_ERROR.to_string(),
                }
            }
        };
        match outcome {
            CaptureOutcome::Succeeded { .. } => {
                crate::metrics::record_lifecycle("void", "succeeded");
                Ok(())
            }
            CaptureOutcome::Failed { code, .. } => {
                tracing::warn!(%code, payment = %payment.id, "the processor refused a void");
                crate::metrics::record_lifecycle("void", "refused");
                Err(refused())
            }
        }
    }
}
