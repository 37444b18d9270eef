//! Charging (or, for a `MANUAL` capture, authorizing) a PROCESSING payment with its own
//! processor key (outside any transaction), then settling it as the processor answered, the
//! key completed in the same transaction.

use super::{PROCESSOR_ERROR, PaymentResult, PaymentService, ServiceError};
use crate::domain::capture::CaptureMethod;
use crate::domain::payment::Payment;
use crate::domain::return_url::ReturnUrl;
use crate::domain::state_machine::{self, PaymentOperation};
use crate::domain::status::PaymentStatus;
use crate::persistence::payment_writes::{self, Changes, KeyAction, Written};
use crate::processor::{ChargeOutcome, ChargeRequest};
use crate::service::rail::Hold;
use crate::service::stale::{StaleRetries, busy};

impl PaymentService {
    /// Charges `payment` and settles it; the outcome completes the key `hold` holds.
    pub(super) async fn charge(
        &self,
        payment: Payment,
        hold: &Hold<'_>,
    ) -> Result<PaymentResult, ServiceError> {
        if payment.status != PaymentStatus::Processing {
            // Settled meanwhile (by a webhook, say): that is the outcome.
            hold.complete_with(&payment, None).await?;
            return Ok(PaymentResult::made(payment));
        }
        let request = ChargeRequest {
            idempotency_key: payment.processor_key.clone(),
            amount: payment.amount.get(),
            currency: payment.currency.code(),
            source: payment.source.clone(),
            // Where the customer comes back to after a customer action, told which payment.
            return_url: payment
                .return_url
                .as_deref()
                .and_then(|url| ReturnUrl::parse(url).ok())
                .map(|url| url.with_payment(&payment.id)),
        };
        let answered = match payment.capture_method {
            CaptureMethod::Automatic => self.processor().charge(&request).await,
            CaptureMethod::Manual => self.processor().authorize(&request).await,
        };
        let outcome = match answered {
            Ok(outcome) => outcome,
            Err(err) if err.is_transient() => {
                tracing::warn!(error = %err, "processor unavailable; the claim is released");
                return Err(ServiceError::ProcessorUnavailable);
            }
            Err(err) => {
                // Refused outright: the payment fails rather than waiting for ever.
                tracing::error!(error = %err, "the processor refused the charge");
                ChargeOutcome::Declined {
                    reference: String::new(),
                    code: PROCESSOR_ERROR.to_string(),
                    message: "The processor refused the request.".to_string(),
                }
            }
        };
        let (operation, changes, reason) = match outcome {
            ChargeOutcome::Approved { reference } => {
                let (operation, changes) =
                    payment_writes::approved(&payment, reference, self.capture_before());
                if operation == PaymentOperation::ProcessorAuthorized {
                    crate::metrics::record_lifecycle("authorize", "approved");
                }
                (operation, changes, "approved by the processor")
            }
            ChargeOutcome::Declined {
                reference,
                code,
                message,
            } => (
                PaymentOperation::ProcessorDeclined,
                Changes {
                    processor_ref: Some(reference).filter(|r| !r.is_empty()),
                    failure_code: Some(code),
                    failure_message: Some(message),
                    ..Changes::default()
                },
                "declined by the processor",
            ),
            ChargeOutcome::ActionRequired {
                reference,
                redirect_url,
            } => {
                crate::metrics::record_lifecycle("customer_action", "required");
                let changes = Changes {
                    processor_ref: Some(reference),
                    next_action_url: Some(redirect_url),
                    ..Changes::default()
                };
                (
                    PaymentOperation::ActionRequired,
                    changes,
                    "the customer must act",
                )
            }
            ChargeOutcome::Pending { .. } => {
                // Accepted; the webhook settles it. The key's outcome is the PROCESSING payment.
                hold.complete_with(&payment, None).await?;
                return Ok(PaymentResult::made(payment));
            }
        };
        self.settle(payment, operation, changes, reason, hold).await
    }

    /// Moves `payment` on as the processor answered and completes the key with it.
    async fn settle(
        &self,
        payment: Payment,
        operation: PaymentOperation,
        changes: Changes,
        reason: &str,
        hold: &Hold<'_>,
    ) -> Result<PaymentResult, ServiceError> {
        let mut payment = payment;
        let mut retries = StaleRetries::default();
        loop {
            let Ok(to) = state_machine::next(payment.status, operation) else {
                // Someone else settled it first; the payment as it stands is the outcome.
                hold.complete_with(&payment, None).await?;
                return Ok(PaymentResult::made(payment));
            };
            let key = KeyAction::Complete(hold.completion());
            let written =
                payment_writes::transition(self.db(), &payment, to, reason, changes.clone(), key)
                    .await?;
            match written {
                Written::Done(settled) => {
                    self.changed();
                    return Ok(PaymentResult::made(settled));
                }
                Written::Stale => {
                    retries.again(busy)?;
                    payment = self.reload(&payment.account_id, &payment.id).await?;
                }
            }
        }
    }
}
