//! `updatePayment`: the merchant's own data on a payment (description, reference, metadata),
//! changed at any time in the payment's life. Version-checked like every change, so it never
//! writes over a status change made meanwhile (nor one over it), and recorded as a
//! `payment.updated` event.

use super::PaymentService;
use super::request::{MAX_DESCRIPTION_LEN, merchant_data};
use crate::domain::ids::PaymentId;
use crate::domain::merchant_data::Metadata;
use crate::persistence::payment_writes::{self, MerchantData, Written};
use crate::persistence::payments::Payment;
use crate::service::stale::{StaleRetries, busy};
use crate::service::{ServiceError, check_free_text};

/// What `updatePayment` changes: for each field, `None` leaves it as it is, `Some(None)`
/// clears it, `Some(Some(..))` sets it. Given metadata replaces the whole set.
#[derive(Clone, Debug, Default)]
pub struct PaymentUpdate {
    pub description: Option<Option<String>>,
    pub reference: Option<Option<String>>,
    pub metadata: Option<Metadata>,
}

impl PaymentUpdate {
    /// Validates the input as given (`input.description`, `input.reference`,
    /// `input.metadata[i].key`, ...).
    pub fn parse(
        description: Option<Option<String>>,
        reference: Option<Option<String>>,
        metadata: Option<Option<Vec<(String, String)>>>,
    ) -> Result<Self, ServiceError> {
        if let Some(Some(description)) = &description {
            check_free_text("input.description", Some(description), MAX_DESCRIPTION_LEN)?;
        }
        let (_, entries) = merchant_data(
            "input",
            reference.clone().flatten(),
            metadata.clone().flatten(),
        )?;
        // Null metadata clears it, as an empty list does.
        let metadata = metadata.map(|_| entries.unwrap_or_default());
        Ok(Self {
            description,
            reference,
            metadata,
        })
    }

    fn applied_to(&self, payment: &Payment) -> MerchantData {
        MerchantData {
            description: self
                .description
                .clone()
                .unwrap_or_else(|| payment.description.clone()),
            reference: self
                .reference
                .clone()
                .unwrap_or_else(|| payment.reference.clone()),
            metadata: self
                .metadata
                .clone()
                .unwrap_or_else(|| payment.metadata.clone()),
        }
    }
}

impl PaymentService {
    /// Applies `update` to the payment `id` of `account_id`. An update that changes nothing
    /// writes nothing and appends no event.
    pub async fn update(
        &self,
        account_id: &str,
        id: &PaymentId,
        update: PaymentUpdate,
    ) -> Result<Payment, ServiceError> {
        let mut retries = StaleRetries::default();
        loop {
            let payment = self.reload(account_id, id.as_str()).await?;
            let data = update.applied_to(&payment);
            if data.description == payment.description
                && data.reference == payment.reference
                && data.metadata == payment.metadata
            {
                return Ok(payment);
            }
            match payment_writes::update_merchant_data(self.db(), &payment, data).await? {
                Written::Done(updated) => {
                    self.changed();
                    return Ok(updated);
                }
                Written::Stale => retries.again(busy)?,
            }
        }
    }
}
