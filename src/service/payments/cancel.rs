//! `cancelPayment`: PENDING goes CANCELED; a CANCELED payment is answered as it is; any other
//! status is refused. It moves no money, so it takes no idempotency key: cancelling twice
//! answers the same.

use super::{PaymentResult, PaymentService, ServiceError};
use crate::domain::ids::PaymentId;
use crate::domain::state_machine::{self, PaymentOperation};
use crate::domain::status::PaymentStatus;
use crate::persistence::payment_writes::{self, Changes, KeyAction, Written};
use crate::service::stale::{StaleRetries, busy};

impl PaymentService {
    #[tracing::instrument(skip_all, fields(account_id, payment_id))]
    pub async fn cancel(
        &self,
        account_id: &str,
        payment_id: &PaymentId,
    ) -> Result<PaymentResult, ServiceError> {
        let payment_id = payment_id.as_str();
        let mut retries = StaleRetries::default();
        loop {
            let payment = self.reload(account_id, payment_id).await?;
            if payment.status == PaymentStatus::Canceled {
                return Ok(PaymentResult::made(payment));
            }
            let to = state_machine::next(payment.status, PaymentOperation::Cancel)?;
            let written = payment_writes::transition(
                self.db(),
                &payment,
                to,
                "canceled",
                Changes::default(),
                KeyAction::None,
            )
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
}
