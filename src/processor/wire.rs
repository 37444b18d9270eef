//! The sandbox processor's JSON API, as its HTTP service speaks it and the gateway's HTTP
//! client reads it. The `Idempotency-Key` header carries the key.

use serde::{Deserialize, Serialize};

use super::{CaptureOutcome, ChargeOutcome, RefundOutcome};

pub const IDEMPOTENCY_KEY: &str = "idempotency-key";

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChargeBody {
    pub amount: i64,
    pub currency: String,
    pub source: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub return_url: Option<String>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RefundBody {
    /// The idempotency key the charge was made with.
    pub charge_key: String,
    pub amount: i64,
    pub currency: String,
}

/// A capture or void of an authorization.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CaptureBody {
    /// The idempotency key the authorization was made with.
    pub authorization_key: String,
    pub amount: i64,
    pub currency: String,
}

/// A charge or refund as the processor reports it.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct Reply {
    /// `approved`, `declined` or `pending` for charges; `succeeded`, `failed` or `pending`
    /// for refunds.
    pub status: String,
    pub reference: String,
    #[serde(default)]
    pub failure_code: Option<String>,
    #[serde(default)]
    pub failure_message: Option<String>,
    /// Where the customer acts, for `action_required`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub redirect_url: Option<String>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ErrorReply {
    pub error: String,
}

impl From<&ChargeOutcome> for Reply {
    fn from(outcome: &ChargeOutcome) -> Self {
        if let ChargeOutcome::ActionRequired {
            reference,
            redirect_url,
        } = outcome
        {
            return Reply {
                status: "action_required".into(),
                reference: reference.clone(),
                failure_code: None,
                failure_message: None,
                redirect_url: Some(redirect_url.clone()),
            };
        }
        let (status, reference, code, message) = match outcome {
            ChargeOutcome::Approved { reference } => ("approved", reference, None, None),
            ChargeOutcome::Declined {
                reference,
                code,
                message,
            } => (
                "declined",
                reference,
                Some(code.clone()),
                Some(message.clone()),
            ),
            ChargeOutcome::Pending { reference }
            | ChargeOutcome::ActionRequired { reference, .. } => ("pending", reference, None, None),
        };
        Reply {
            status: status.into(),
            reference: reference.clone(),
            failure_code: code,
            failure_message: message,
            redirect_url: None,
        }
    }
}

impl Reply {
    pub fn into_charge(self) -> Option<ChargeOutcome> {
        let reference = self.reference;
        match self.status.as_str() {
            "approved" => Some(ChargeOutcome::Approved { reference }),
            "pending" => Some(ChargeOutcome::Pending { reference }),
            "action_required" => Some(ChargeOutcome::ActionRequired {
                reference,
                redirect_url: self.redirect_url?,
            }),
            "declined" => Some(ChargeOutcome::Declined {
                reference,
                code: self.failure_code.unwrap_or_else(|| "card_declined".into()),
                message: self
                    .failure_message
                    .unwrap_or_else(|| "The charge was declined.".into()),
            }),
            _ => None,
        }
    }

    pub fn into_refund(self) -> Option<RefundOutcome> {
        let reference = self.reference;
        match self.status.as_str() {
            "succeeded" => Some(RefundOutcome::Succeeded { reference }),
            "pending" => Some(RefundOutcome::Pending { reference }),
            "failed" => Some(RefundOutcome::Failed {
                reference,
                code: self.failure_code.unwrap_or_else(|| "refund_failed".into()),
            }),
            _ => None,
        }
    }
}

impl Reply {
    pub fn into_capture(self) -> Option<CaptureOutcome> {
        let reference = self.reference;
        match self.status.as_str() {
            "succeeded" => Some(CaptureOutcome::Succeeded { reference }),
            "failed" => Some(CaptureOutcome::Failed {
                reference,
                code: self
                    .failure_code
                    .unwrap_or_else(|| "authorization_unavailable".into()),
            }),
            _ => None,
        }
    }
}

impl From<&CaptureOutcome> for Reply {
    fn from(outcome: &CaptureOutcome) -> Self {
        let (status, reference, code) = match outcome {
            CaptureOutcome::Succeeded { reference } => ("succeeded", reference, None),
            CaptureOutcome::Failed { reference, code } => ("failed", reference, Some(code.clone())),
        };
        Reply {
            status: status.into(),
            reference: reference.clone(),
            failure_code: code,
            failure_message: None,
            redirect_url: None,
        }
    }
}

impl From<&RefundOutcome> for Reply {
    fn from(outcome: &RefundOutcome) -> Self {
        let (status, reference, code) = match outcome {
            RefundOutcome::Succeeded { reference } => ("succeeded", reference, None),
            RefundOutcome::Failed { reference, code } => ("failed", reference, Some(code.clone())),
            RefundOutcome::Pending { reference } => ("pending", reference, None),
        };
        Reply {
            status: status.into(),
            reference: reference.clone(),
            failure_code: code,
            failure_message: None,
            redirect_url: None,
        }
    }
}
