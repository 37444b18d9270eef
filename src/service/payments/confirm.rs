//! `confirmPayment`: a PENDING payment goes PROCESSING, linked to the request's key, and is
//! charged.

use serde_json::json;

use super::{PaymentResult, PaymentService, ServiceError};
use crate::domain::idempotency::{IdempotencyKey, fingerprint};
use crate::domain::ids::PaymentId;
use crate::domain::state_machine::{self, PaymentOperation};
use crate::persistence::payment_writes::{self, Changes, KeyAction, Written};
use crate::service::rail::{ClaimBy, Mutation};
use crate::service::stale::{StaleRetries, busy};

/// The operation name keys of `confirmPayment` are claimed for.
const CONFIRM_PAYMENT: &str = "confirmPayment";

impl PaymentService {
    #[tracing::instrument(skip_all, fields(account_id, payment_id))]
    pub async fn confirm(
        &self,
        account_id: &str,
        key: &IdempotencyKey,
        payment_id: &PaymentId,
    ) -> Result<PaymentResult, ServiceError> {
        let payment_id = payment_id.as_str();
        // Refuse unknown payments before claiming, so a wrong id leaves nothing behind.
        self.reload(account_id, payment_id).await?;
        let fingerprint = fingerprint(CONFIRM_PAYMENT, &json!({ "paymentId": payment_id }));
        let mutation = Mutation {
            account_id,
            key,
            operation: CONFIRM_PAYMENT,
            fingerprint: &fingerprint,
            claim_by: ClaimBy::Key,
        };
        let replay =
            |outcome: payment_writes::StoredOutcome| Ok(PaymentResult::replayed(outcome.payment));
        self.rail()
            .run(mutation, replay, async |claimed, hold| {
                if claimed.payment_id.is_some() {
                    // An earlier attempt confirmed it and then lost the processor: carry on.
                    let payment = self.reload(account_id, payment_id).await?;
                    return self.charge(payment, hold).await;
                }
                let mut retries = StaleRetries::default();
                let processing = loop {
                    let payment = self.reload(account_id, payment_id).await?;
                    let to = state_machine::next(payment.status, PaymentOperation::Confirm)?;
                    let key = KeyAction::Link(hold.key());
                    let written = payment_writes::transition(
                        self.db(),
                        &payment,
                        to,
                        "confirmed",
                        Changes::default(),
                        key,
                    )
                    .await?;
                    match written {
                        Written::Done(processing) => break processing,
                        Written::Stale => retries.again(busy)?,
                    }
                };
                self.changed();
                self.charge(processing, hold).await
            })
            .await
    }
}
