//! Payment processors as the gateway calls them: one trait, the retry policy every call goes
//! through, the circuit breaker, the HTTP client and the wire format. The built-in sandbox that
//! implements the trait is `crate::sandbox`.

pub mod breaker;
pub mod events;
pub mod http_client;
mod retry;
pub mod wire;

use std::time::Duration;

pub use retry::{RetryPolicy, Retrying};

/// A charge as the gateway asks for it. `idempotency_key` is the same on every attempt for one
/// payment, and the processor de-duplicates on it.
#[derive(Clone, Debug)]
pub struct ChargeRequest {
    pub idempotency_key: String,
    pub amount: i64,
    pub currency: String,
    pub source: String,
    /// Where the processor sends the customer after a customer action (3-D Secure).
    pub return_url: Option<String>,
}

/// What the processor made of a charge.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ChargeOutcome {
    Approved {
        reference: String,
    },
    Declined {
        reference: String,
        code: String,
        message: String,
    },
    /// Accepted; the outcome arrives later by webhook.
    Pending {
        reference: String,
    },
    /// The customer must act first (3-D Secure) at `redirect_url`; the outcome arrives
    /// later by webhook.
    ActionRequired {
        reference: String,
        redirect_url: String,
    },
}

/// A refund of a charge, de-duplicated by its own idempotency key.
#[derive(Clone, Debug)]
pub struct RefundRequest {
    pub idempotency_key: String,
    /// The idempotency key the charge was made with.
    pub charge_key: String,
    pub amount: i64,
    pub currency: String,
}

/// What the processor made of a refund.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RefundOutcome {
    Succeeded {
        reference: String,
    },
    Failed {
        reference: String,
        code: String,
    },
    /// Accepted; the outcome arrives later by webhook.
    Pending {
        reference: String,
    },
}

/// A capture of (part of) an authorization, or its void, de-duplicated by its own
/// idempotency key.
#[derive(Clone, Debug)]
pub struct CaptureRequest {
    pub idempotency_key: String,
    /// The idempotency key the authorization was made with.
    pub authorization_key: String,
    /// What to capture; a void releases the whole authorization and sends none.
    pub amount: i64,
    pub currency: String,
}

/// What the processor made of a capture or a void of an authorization.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CaptureOutcome {
    Succeeded {
        reference: String,
    },
    /// The authorization could not be captured or voided (voided or captured already,
    /// expired at the processor).
    Failed {
        reference: String,
        code: String,
    },
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ProcessorError {
    /// Safe to try again with the same idempotency key (connection failure, timeout, 429,
    /// 5xx); `retry_after` is the processor's own hint.
    #[error("processor temporarily unavailable: {reason}")]
    Retryable {
        reason: String,
        retry_after: Option<Duration>,
    },
    /// The circuit breaker is open: failing fast without calling the processor.
    #[error("processor circuit open")]
    CircuitOpen,
    /// Retrying cannot help.
    #[error("processor refused the request: {0}")]
    Fatal(String),
}

impl ProcessorError {
    pub fn retryable(reason: impl Into<String>) -> Self {
        ProcessorError::Retryable {
            reason: reason.into(),
            retry_after: None,
        }
    }

    /// The processor may well answer later: the request can be retried with the same key.
    pub fn is_transient(&self) -> bool {
        matches!(
            self,
            ProcessorError::Retryable { .. } | ProcessorError::CircuitOpen
        )
    }
}

/// The one interface to a payment processor.
#[async_trait::async_trait]
pub trait Processor: Send + Sync + 'static {
    async fn charge(&self, request: &ChargeRequest) -> Result<ChargeOutcome, ProcessorError>;

    /// What the processor knows of a charge made with this idempotency key, if anything.
    async fn lookup_charge(
        &self,
        idempotency_key: &str,
    ) -> Result<Option<ChargeOutcome>, ProcessorError>;

    async fn refund(&self, request: &RefundRequest) -> Result<RefundOutcome, ProcessorError>;

    /// Like [`Processor::charge`], but the money is only held: `Approved` means authorized,
    /// for a later [`Processor::capture`] or [`Processor::void`].
    async fn authorize(&self, request: &ChargeRequest) -> Result<ChargeOutcome, ProcessorError>;

    /// Takes `request.amount` of an authorization and releases the rest.
    async fn capture(&self, request: &CaptureRequest) -> Result<CaptureOutcome, ProcessorError>;

    /// Releases an authorization without taking anything (`request.amount` is ignored).
    async fn void(&self, request: &CaptureRequest) -> Result<CaptureOutcome, ProcessorError>;

    /// What the processor knows of a capture or void made with this idempotency key.
    async fn lookup_capture(
        &self,
        idempotency_key: &str,
    ) -> Result<Option<CaptureOutcome>, ProcessorError>;
}

/// Timeouts and retries for processor calls.
#[derive(Clone, Copy, Debug)]
pub struct CallLimits {
    /// Longest wait for one attempt's answer.
    pub attempt_timeout: Duration,
    /// Longest time for all attempts of one operation together.
    pub deadline: Duration,
    pub max_retries: usize,
    /// First backoff step; each retry doubles it, and the wait is drawn uniformly below it.
    pub backoff_base: Duration,
    pub backoff_max: Duration,
}

impl Default for CallLimits {
    fn default() -> Self {
        CallLimits {
            attempt_timeout: Duration::from_secs(5),
            deadline: Duration::from_secs(10),
            max_retries: 3,
            backoff_base: Duration::from_millis(100),
            backoff_max: Duration::from_secs(2),
        }
    }
}
