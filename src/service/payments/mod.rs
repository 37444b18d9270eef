//! Creating and confirming payments: idempotent, charged through the processor outside any
//! database transaction, every status change through the state machine.

use serde_json::json;

use super::ServiceError;
use super::feed::PaymentFeed;
use super::idempotency::{IdempotencySettings, NextAction, after_claimed, begin};
use crate::domain::idempotency::{IdempotencyKey, fingerprint};
use crate::domain::ids::{IdKind, is_id_of};
use crate::domain::state_machine::{self, PaymentOperation};
use crate::domain::status::PaymentStatus;
use crate::domain::time::Timestamp;
use crate::persistence::payment_writes::{self, Changes, KeyAction, KeyRef, NewClaim, Written};
use crate::persistence::payments::{self, NewPayment, Payment};
use crate::persistence::{Db, idempotency_keys};
use crate::processor::{ChargeOutcome, ChargeRequest, Retrying};

/// Failure code of a charge or refund that the processor refused outright.
pub const PROCESSOR_ERROR: &str = "processor_error";

/// The operation name keys of `createPayment` are claimed for.
pub(super) const CREATE_PAYMENT: &str = "createPayment";

/// Bounded re-reads when a concurrent writer changes a payment under us.
const MAX_STALE_RETRIES: usize = 8;

mod request;

pub use request::{CreatePayment, MAX_DESCRIPTION_LEN, MAX_SOURCE_LEN, PaymentResult};

#[derive(Clone)]
pub struct PaymentService {
    db: Db,
    processor: Retrying,
    settings: IdempotencySettings,
    feed: PaymentFeed,
}

impl PaymentService {
    pub fn new(
        db: Db,
        processor: Retrying,
        settings: IdempotencySettings,
        feed: PaymentFeed,
    ) -> Self {
        Self {
            db,
            processor,
            settings,
            feed,
        }
    }

    /// The change feed (for subscriptions).
    pub fn feed(&self) -> &PaymentFeed {
        &self.feed
    }

    /// Says that a change has committed, so the change feed's readers look at once.
    pub(crate) fn changed(&self) {
        self.feed.nudge();
    }

    pub fn settings(&self) -> &IdempotencySettings {
        &self.settings
    }

    pub(crate) fn db(&self) -> &Db {
        &self.db
    }

    pub(crate) fn processor(&self) -> &Retrying {
        &self.processor
    }

    #[tracing::instrument(skip_all, fields(account_id))]
    pub async fn create(
        &self,
        account_id: &str,
        key: &IdempotencyKey,
        input: CreatePayment,
    ) -> Result<PaymentResult, ServiceError> {
        let fingerprint = input.fingerprint();
        let key_ref = KeyRef {
            account_id,
            key: key.as_str(),
        };
        let new = NewPayment {
            account_id: account_id.to_string(),
            amount: input.amount,
            currency: input.currency,
            source: input.source,
            description: input.description,
            status: if input.confirm {
                PaymentStatus::Processing
            } else {
                PaymentStatus::Pending
            },
            created_at: Timestamp::now(),
        };
        // The common case, a key never seen before: claim it and store the payment at once.
        let claim = NewClaim {
            key: key_ref,
            operation: CREATE_PAYMENT,
            fingerprint: &fingerprint,
        };
        if let Some(created) =
            payment_writes::claim_and_create(&self.db, claim, &new, !input.confirm).await?
        {
            crate::metrics::record_payment_created();
            self.changed();
            if !input.confirm {
                return Ok(PaymentResult::made(created));
            }
            return self.charge(created, key_ref).await;
        }
        let record = match after_claimed(
            &self.db,
            &self.settings,
            account_id,
            key,
            CREATE_PAYMENT,
            &fingerprint,
        )
        .await?
        {
            NextAction::Replay { outcome } => {
                return Ok(PaymentResult::replayed(outcome.payment));
            }
            NextAction::Execute { record } => record,
        };
        let payment = match &record.payment_id {
            Some(id) => self.reload(account_id, id).await?,
            None => {
                // Taken over from an attempt that stored nothing.
                let new = NewPayment {
                    created_at: Timestamp::now(),
                    ..new
                };
                let created =
                    payment_writes::create_for_key(&self.db, new, key_ref, !input.confirm).await?;
                crate::metrics::record_payment_created();
                self.changed();
                created
            }
        };
        if !input.confirm {
            return Ok(PaymentResult::made(payment));
        }
        self.charge(payment, key_ref).await
    }

    #[tracing::instrument(skip_all, fields(account_id, payment_id))]
    pub async fn confirm(
        &self,
        account_id: &str,
        key: &IdempotencyKey,
        payment_id: &str,
    ) -> Result<PaymentResult, ServiceError> {
        if !is_id_of(IdKind::Payment, payment_id) {
            return Err(ServiceError::bad_input(
                "paymentId",
                "not a payment id (they start with pay_)",
            ));
        }
        // Refuse unknown payments before claiming, so a wrong id leaves nothing behind.
        self.reload(account_id, payment_id).await?;
        let fp = fingerprint("confirmPayment", &json!({ "paymentId": payment_id }));
        let record = match begin(
            &self.db,
            &self.settings,
            account_id,
            key,
            "confirmPayment",
            &fp,
        )
        .await?
        {
            NextAction::Replay { outcome } => {
                return Ok(PaymentResult::replayed(outcome.payment));
            }
            NextAction::Execute { record } => record,
        };
        let key_ref = KeyRef {
            account_id,
            key: key.as_str(),
        };
        if record.payment_id.is_some() {
            // An earlier attempt confirmed it and then lost the processor: carry on.
            let payment = self.reload(account_id, payment_id).await?;
            return self.charge(payment, key_ref).await;
        }
        let mut payment = self.reload(account_id, payment_id).await?;
        for _ in 0..MAX_STALE_RETRIES {
            let status = payment.status;
            let to = match state_machine::next(status, PaymentOperation::Confirm) {
                Ok(to) => to,
                Err(refused) => {
                    idempotency_keys::forget(&self.db, account_id, key.as_str()).await?;
                    return Err(refused.into());
                }
            };
            match payment_writes::transition(
                &self.db,
                &payment,
                to,
                "confirmed",
                Changes::default(),
                KeyAction::Link(key_ref),
            )
            .await?
            {
                Written::Done(processing) => {
                    self.changed();
                    return self.charge(processing, key_ref).await;
                }
                Written::Stale => payment = self.reload(account_id, payment_id).await?,
            }
        }
        idempotency_keys::release(&self.db, account_id, key.as_str()).await?;
        Err(ServiceError::RequestInProgress {
            retry_after_seconds: 1,
        })
    }

    pub(crate) async fn reload(&self, account_id: &str, id: &str) -> Result<Payment, ServiceError> {
        payments::find_payment(&self.db, account_id, id)
            .await?
            .ok_or_else(|| ServiceError::bad_input("paymentId", "no payment with this id"))
    }

    /// Charges a PROCESSING payment with its own processor key, then records the outcome and
    /// completes the idempotency key in one transaction. The processor call happens outside
    /// any transaction.
    async fn charge(
        &self,
        payment: Payment,
        key: KeyRef<'_>,
    ) -> Result<PaymentResult, ServiceError> {
        if payment.status != PaymentStatus::Processing {
            // Settled meanwhile (by a webhook, say): that is the outcome.
            payment_writes::complete_key_with(&self.db, key, &payment, None).await?;
            return Ok(PaymentResult::made(payment));
        }
        let request = ChargeRequest {
            idempotency_key: payment.processor_key.clone(),
            amount: payment.amount.get(),
            currency: payment.currency.code(),
            source: payment.source.clone(),
        };
        let outcome = match self.processor.charge(&request).await {
            Ok(outcome) => outcome,
            Err(err) if err.is_transient() => {
                idempotency_keys::release(&self.db, key.account_id, key.key).await?;
                tracing::warn!(error = %err, "processor unavailable; claim released");
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
            ChargeOutcome::Approved { reference } => (
                PaymentOperation::ProcessorApproved,
                Changes {
                    processor_ref: Some(reference),
                    ..Changes::default()
                },
                "approved by the processor",
            ),
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
                    amount_refunded: None,
                },
                "declined by the processor",
            ),
            ChargeOutcome::Pending { .. } => {
                // Accepted; the webhook settles it. The key's outcome is the PROCESSING payment.
                payment_writes::complete_key_with(&self.db, key, &payment, None).await?;
                return Ok(PaymentResult::made(payment));
            }
        };
        self.settle(payment, operation, changes, reason, key).await
    }

    async fn settle(
        &self,
        mut payment: Payment,
        operation: PaymentOperation,
        changes: Changes,
        reason: &str,
        key: KeyRef<'_>,
    ) -> Result<PaymentResult, ServiceError> {
        for _ in 0..MAX_STALE_RETRIES {
            let Ok(to) = state_machine::next(payment.status, operation) else {
                // Someone else settled it first; the payment as it stands is the outcome.
                payment_writes::complete_key_with(&self.db, key, &payment, None).await?;
                return Ok(PaymentResult::made(payment));
            };
            match payment_writes::transition(
                &self.db,
                &payment,
                to,
                reason,
                changes.clone(),
                KeyAction::Complete(key),
            )
            .await?
            {
                Written::Done(settled) => {
                    self.changed();
                    return Ok(PaymentResult::made(settled));
                }
                Written::Stale => payment = self.reload(key.account_id, &payment.id).await?,
            }
        }
        idempotency_keys::release(&self.db, key.account_id, key.key).await?;
        Err(ServiceError::RequestInProgress {
            retry_after_seconds: 1,
        })
    }
}
