//! What `createPayment` takes, validated once, and what the payment mutations answer.

use serde_json::json;

use super::create::CREATE_PAYMENT;
use crate::domain::capture::CaptureMethod;
use crate::domain::currency::Currency;
use crate::domain::idempotency::fingerprint;
use crate::domain::merchant_data::{self, Metadata};
use crate::domain::money::MinorUnits;
use crate::domain::payment::Payment;
use crate::domain::return_url::ReturnUrl;
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
    pub capture_method: CaptureMethod,
    pub return_url: Option<ReturnUrl>,
    pub reference: Option<String>,
    pub metadata: Metadata,
}

/// What `createPayment` takes besides the money and its source.
#[derive(Clone, Debug, Default)]
pub struct CreateOptions {
    pub description: Option<String>,
    pub confirm: bool,
    pub capture_method: CaptureMethod,
    pub return_url: Option<String>,
    pub reference: Option<String>,
    /// Entries as given (validated here).
    pub metadata: Option<Vec<(String, String)>>,
}

impl CreatePayment {
    pub fn parse(
        amount: i64,
        currency: Currency,
        source: String,
        options: CreateOptions,
    ) -> Result<Self, ServiceError> {
        let CreateOptions {
            description,
            confirm,
            capture_method,
            return_url,
            reference,
            metadata,
        } = options;
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
        let return_url = return_url
            .as_deref()
            .map(ReturnUrl::parse)
            .transpose()
            .map_err(|message| ServiceError::bad_input("input.returnUrl", message))?;
        let (reference, metadata) = merchant_data("input", reference, metadata)?;
        Ok(Self {
            amount,
            currency,
            source,
            description,
            confirm,
            capture_method,
            return_url,
            reference,
            metadata: metadata.unwrap_or_default(),
        })
    }

    /// The request's fingerprint. The capture method, return URL, reference and metadata are
    /// in it only when given, so the fingerprints of requests that name none of them are what
    /// they always were. Metadata is in key order: the order entries were sent in does not
    /// matter.
    pub(super) fn fingerprint(&self) -> String {
        let mut input = json!({
            "amount": self.amount.get(),
            "currency": self.currency.code(),
            "source": self.source,
            "description": self.description,
            "confirm": self.confirm,
        });
        if self.capture_method != CaptureMethod::Automatic {
            input["captureMethod"] = self.capture_method.as_str().into();
        }
        if let Some(url) = &self.return_url {
            input["returnUrl"] = url.as_str().into();
        }
        if let Some(reference) = &self.reference {
            input["reference"] = reference.as_str().into();
        }
        if !self.metadata.is_empty() {
            input["metadata"] = self.metadata.to_api_json();
        }
        fingerprint(CREATE_PAYMENT, &input)
    }
}

/// Validates a reference and metadata entries given under `input` (`input.reference`,
/// `input.metadata[2].key`, ...).
pub(crate) fn merchant_data(
    input: &str,
    reference: Option<String>,
    metadata: Option<Vec<(String, String)>>,
) -> Result<(Option<String>, Option<Metadata>), ServiceError> {
    if let Some(reference) = &reference {
        merchant_data::parse_reference(reference)
            .map_err(|message| ServiceError::bad_input(&format!("{input}.reference"), message))?;
    }
    let metadata = metadata
        .map(Metadata::parse)
        .transpose()
        .map_err(|refused| {
            ServiceError::bad_input(&format!("{input}.metadata{}", refused.at), refused.message)
        })?;
    Ok((reference, metadata))
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
