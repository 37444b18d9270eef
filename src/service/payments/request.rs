//! What `createPayment` takes, validated once, and what the payment mutations answer.

use serde_json::json;

use super::create::CREATE_PAYMENT;
use crate::domain::currency::Currency;
use crate::domain::idempotency::fingerprint;
use crate::domain::money::MinorUnits;
use crate::domain::payment::Payment;
use crate::service::{ServiceError, check_free_text};

/// Longest source token accepted.
pub const MAX_SOURCE_LEN: usize = 255;
/// Longest description accepted, in characters.
pub const MAX_DESCRIPTION_LEN: usize = 1000;

/// A validated `createPayment` input.
#[derive(Clone, Debug)]
pub struct CreatePayment {
    pub amount: MinorUnits,
    pub currency: Currency,
    pub source: String,
    pub description: Option<String>,
    pub confirm: bool,
}

impl CreatePayment {
    pub fn parse(
        amount: i64,
        currency: Currency,
        source: String,
        description: Option<String>,
        confirm: bool,
    ) -> Result<Self, ServiceError> {
        let amount = MinorUnits::parse(amount).map_err(ServiceError::InvalidAmount)?;
        if source.is_empty()
            || source.len() > MAX_SOURCE_LEN
            || !source.bytes().all(|b| b.is_ascii_graphic())
        {
            return Err(ServiceError::bad_input(
                "input.source",
                format!(
                    "source must be 1 to {MAX_SOURCE_LEN} printable ASCII characters without spaces, e.g. tok_visa"
                ),
            ));
        }
        check_free_text(
            "input.description",
            description.as_deref(),
            MAX_DESCRIPTION_LEN,
        )?;
        Ok(Self {
            amount,
            currency,
            source,
            description,
            confirm,
        })
    }

    pub(super) fn fingerprint(&self) -> String {
        fingerprint(
            CREATE_PAYMENT,
            &json!({
                "amount": self.amount.get(),
                "currency": self.currency.code(),
                "source": self.source,
                "description": self.description,
                "confirm": self.confirm,
            }),
        )
    }
}

/// A payment as a money-moving mutation answers it.
#[derive(Clone, Debug)]
pub struct PaymentResult {
    pub payment: Payment,
    pub replayed: bool,
}

impl PaymentResult {
    /// What this request produced.
    pub(crate) fn made(payment: Payment) -> Self {
        Self {
            payment,
            replayed: false,
        }
    }

    /// What an earlier request with the same key produced.
    pub(super) fn replayed(payment: Payment) -> Self {
        Self {
            payment,
            replayed: true,
        }
    }
}
