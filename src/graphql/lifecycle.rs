//! The card lifecycle's API values: how a payment is captured, why one was canceled, the
//! customer action it waits for, and what `capturePayment` takes.

use async_graphql::{Enum, ID, InputObject, SimpleObject};

use crate::domain::capture;

/// When an approved payment's money is taken.
#[derive(Enum, Copy, Clone, Debug, Eq, PartialEq)]
#[graphql(remote = "capture::CaptureMethod")]
pub enum CaptureMethod {
    /// Charged at once: approval captures the whole amount.
    Automatic,
    /// Only authorized: REQUIRES_CAPTURE until `capturePayment` or `cancelPayment`.
    Manual,
}

/// Why a payment was canceled.
#[derive(Enum, Copy, Clone, Debug, Eq, PartialEq)]
#[graphql(remote = "capture::CancellationReason")]
pub enum CancellationReason {
    RequestedByCustomer,
    Duplicate,
    Fraudulent,
    Abandoned,
    /// Not captured by `captureBefore`: voided by the gateway.
    AuthorizationExpired,
    /// The customer did not act in time.
    ActionExpired,
}

#[derive(Enum, Copy, Clone, Debug, Eq, PartialEq)]
pub enum NextActionType {
    /// Send the customer's browser to `redirectUrl`.
    RedirectToUrl,
}

/// What the customer must do before the payment can go on (REQUIRES_ACTION).
#[derive(SimpleObject, Clone, Debug)]
pub struct NextAction {
    #[graphql(name = "type")]
    pub kind: NextActionType,
    pub redirect_url: String,
}

impl NextAction {
    pub fn redirect(url: &str) -> Self {
        NextAction {
            kind: NextActionType::RedirectToUrl,
            redirect_url: url.to_string(),
        }
    }
}

#[derive(InputObject, Clone, Debug)]
pub struct CapturePaymentInput {
    pub payment_id: ID,
    /// In minor units, at most `amountCapturable`; null captures all of it. The rest of the
    /// authorization is released.
    pub amount: Option<i64>,
}
