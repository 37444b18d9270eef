//! `createPayment`: a new payment for a fresh key (PENDING, or PROCESSING and charged at
//! once with `confirm`), or the key's outcome again.

use super::{PaymentResult, PaymentService, ServiceError};
use crate::domain::idempotency::IdempotencyKey;
use crate::domain::payment::Payment;
use crate::domain::status::PaymentStatus;
use crate::domain::time::Timestamp;
use crate::persistence::payment_writes;
use crate::persistence::payments::NewPayment;
use crate::service::payments::CreatePayment;
use crate::service::rail::{ClaimBy, Mutation};

/// The operation name keys of `createPayment` are claimed for.
pub(super) const CREATE_PAYMENT: &str = "createPayment";

impl PaymentService {
    #[tracing::instrument(skip_all, fields(account_id))]
    pub async fn create(
        &self,
        account_id: &str,
        key: &IdempotencyKey,
        input: CreatePayment,
    ) -> Result<PaymentResult, ServiceError> {
        let fingerprint = input.fingerprint();
        let new = NewPayment {
            account_id: account_id.to_string(),
            amount: input.amount,
            currency: input.currency,
            source: input.source,
            description: input.description.clone(),
            reference: input.reference.clone(),
            metadata: input.metadata.clone(),
            capture_method: input.capture_method,
            return_url: input
                .return_url
                .as_ref()
                .map(|url| url.as_str().to_string()),
            status: if input.confirm {
                PaymentStatus::Processing
            } else {
                PaymentStatus::Pending
            },
            created_at: Timestamp::now(),
        };
        // Without `confirm` the new payment is the key's outcome at once.
        let complete = !input.confirm;
        let mutation = Mutation {
            account_id,
            key,
            operation: CREATE_PAYMENT,
            fingerprint: &fingerprint,
            claim_by: ClaimBy::KeyAndPayment {
                new: &new,
                complete,
            },
        };
        let replay =
            |outcome: payment_writes::StoredOutcome| Ok(PaymentResult::replayed(outcome.payment));
        self.rail()
            .run(mutation, replay, async |claimed, hold| {
                let payment = match (claimed.written, &claimed.payment_id) {
                    (Some(created), _) => self.created(created),
                    // Taken over from an attempt that created it.
                    (None, Some(id)) => self.reload(account_id, id).await?,
                    // A claim of the key alone, or taken over from one that stored nothing.
                    (None, None) => {
                        let new = NewPayment {
                            created_at: Timestamp::now(),
                            ..new.clone()
                        };
                        let completion = complete.then(|| hold.completion());
                        let created =
                            payment_writes::create_for_key(self.db(), new, hold.key(), completion)
                                .await?;
                        self.created(created)
                    }
                };
                if !input.confirm {
                    if claimed.payment_id.is_some() {
                        // Taken over after the payment was stored but before the key was
                        // completed with it.
                        hold.complete_with(&payment, None).await?;
                    }
                    return Ok(PaymentResult::made(payment));
                }
                self.charge(payment, hold).await
            })
            .await
    }

    /// A payment this request has just stored.
    fn created(&self, payment: Payment) -> Payment {
        crate::metrics::record_payment_created();
        self.changed();
        payment
    }
}
