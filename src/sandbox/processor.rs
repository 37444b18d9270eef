//! The sandbox's logic, behind the `Processor` trait. Its behaviour is chosen by the payment
//! source token (see the contract's table), and it de-duplicates durably by idempotency key: a
//! charge repeated with the same key returns the first charge.

use std::time::Duration;

use super::webhooks::WebhookTarget;
use crate::persistence::sandbox::{
    self as store, NewOperation, OperationKind, OperationStatus, SandboxOperation,
};
use crate::persistence::{Db, DbError};
use crate::processor::events::{CHARGE_SUCCEEDED, REFUND_SUCCEEDED, WebhookData, WebhookEvent};
use crate::processor::{
    CaptureOutcome, CaptureRequest, ChargeOutcome, ChargeRequest, Processor, ProcessorError,
    RefundOutcome, RefundRequest,
};
use authorizations::follow_up_outcome;

/// Attempts of a `tok_flaky` charge that fail before it is approved.
const FLAKY_FAILURES: i32 = 2;
/// How long a `tok_timeout` charge keeps its caller waiting: longer than any read timeout.
const TIMEOUT_STALL: Duration = Duration::from_secs(3600);

/// What a source token makes the sandbox do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Behaviour {
    Approve,
    Decline(&'static str, &'static str),
    Pending,
    Stall,
    Flaky,
    /// The customer must approve or decline on the sandbox's action page (3-D Secure).
    ActionRequired,
}

pub fn behaviour(source: &str) -> Behaviour {
    match source {
        "tok_visa" | "tok_mastercard" | "tok_refundFail" => Behaviour::Approve,
        "tok_chargeDeclined" => Behaviour::Decline("card_declined", "The card was declined."),
        "tok_insufficientFunds" => {
            Behaviour::Decline("insufficient_funds", "The card has insufficient funds.")
        }
        "tok_async" => Behaviour::Pending,
        "tok_timeout" => Behaviour::Stall,
        "tok_flaky" => Behaviour::Flaky,
        "tok_threeDSecure" => Behaviour::ActionRequired,
        _ => Behaviour::Decline(
            "invalid_source",
            "The payment source is not a sandbox token.",
        ),
    }
}

/// The sandbox, keeping its records in `db`, sending webhooks to `webhooks` if set, its
/// customer-action pages served under `action_base` (`http://host:port/sandbox` on the
/// gateway's listener, `http://host:port` on the sandbox service's).
#[derive(Clone, Debug)]
pub struct Sandbox {
    db: Db,
    webhooks: Option<WebhookTarget>,
    action_base: String,
}

impl Sandbox {
    pub fn new(db: Db, webhooks: Option<WebhookTarget>, action_base: String) -> Self {
        Self {
            db,
            webhooks,
            action_base: action_base.trim_end_matches('/').to_string(),
        }
    }

    /// Where the customer acts on the operation made with `key`.
    pub fn action_url(&self, key: &str) -> String {
        format!("{}/actions/{key}", self.action_base)
    }

    /// Settles an accepted (pending) operation as approved after the webhook delay, then
    /// tells the gateway.
    fn settle_later(&self, key: &str, reference: &str, kind: &str) {
        let Some(target) = &self.webhooks else { return };
        let event = WebhookEvent::new(
            kind,
            WebhookData {
                idempotency_key: key.to_string(),
                reference: reference.to_string(),
                failure_code: None,
                failure_message: None,
            },
        );
        let (db, key) = (self.db.clone(), key.to_string());
        target.deliver_later(event, async move {
            if let Err(err) = store::settle(
                &db,
                &key,
                OperationStatus::Pending,
                OperationStatus::Approved,
            )
            .await
            {
                tracing::warn!(error = %err, "sandbox could not settle an operation");
            }
        });
    }
}

fn unavailable(err: DbError) -> ProcessorError {
    ProcessorError::retryable(format!("sandbox storage: {err}"))
}

impl Sandbox {
    /// What the processor reports of a charge or authorization.
    fn outcome(&self, op: &SandboxOperation) -> Option<ChargeOutcome> {
        outcome(op, || self.action_url(&op.idempotency_key))
    }
}

fn outcome(op: &SandboxOperation, action_url: impl FnOnce() -> String) -> Option<ChargeOutcome> {
    let reference = op.reference.clone();
    match op.status {
        OperationStatus::ActionRequired => Some(ChargeOutcome::ActionRequired {
            reference,
            redirect_url: action_url(),
        }),
        // The customer action was withdrawn before the customer answered.
        OperationStatus::Expired => Some(ChargeOutcome::Declined {
            reference,
            code: "action_expired".into(),
            message: "The customer did not act in time.".into(),
        }),
        // An authorization captured or voided since was approved all the same.
        OperationStatus::Approved | OperationStatus::Captured | OperationStatus::Voided => {
            Some(ChargeOutcome::Approved { reference })
        }
        OperationStatus::Pending => Some(ChargeOutcome::Pending { reference }),
        OperationStatus::Declined => {
            let code = op
                .failure_code
                .clone()
                .unwrap_or_else(|| "card_declined".into());
            let message = match behaviour(&op.source) {
                Behaviour::Decline(_, message) => message.to_string(),
                Behaviour::ActionRequired => "The customer declined to authenticate.".to_string(),
                _ => "The charge was declined.".to_string(),
            };
            Some(ChargeOutcome::Declined {
                reference,
                code,
                message,
            })
        }
        // A flaky charge still failing has no outcome to report yet.
        OperationStatus::Attempting => None,
    }
}

impl Sandbox {
    /// A charge or an authorization (`kind`): the source token decides the outcome.
    async fn open(
        &self,
        request: &ChargeRequest,
        kind: OperationKind,
    ) -> Result<ChargeOutcome, ProcessorError> {
        let behaviour = behaviour(&request.source);
        let (status, failure_code) = match behaviour {
            Behaviour::Approve | Behaviour::Stall => (OperationStatus::Approved, None),
            Behaviour::Decline(code, _) => (OperationStatus::Declined, Some(code)),
            Behaviour::Pending => (OperationStatus::Pending, None),
            Behaviour::Flaky => (OperationStatus::Attempting, None),
            Behaviour::ActionRequired => (OperationStatus::ActionRequired, None),
        };
        let reference = format!("ch_{}", ulid::Ulid::generate());
        let (op, first_attempt) = store::record(
            &self.db,
            NewOperation {
                idempotency_key: &request.idempotency_key,
                kind,
                reference: &reference,
                source: &request.source,
                amount: request.amount,
                currency: &request.currency,
                status,
                failure_code,
                return_url: request.return_url.as_deref(),
            },
        )
        .await
        .map_err(unavailable)?;
        if op.kind != kind || op.source != request.source || op.amount != request.amount {
            return Err(ProcessorError::Fatal(
                "idempotency key reused with different charge parameters".into(),
            ));
        }
        if behaviour == Behaviour::Stall {
            // Charged, but the answer never comes in time: the caller must find out by retrying
            // or by looking the charge up.
            tokio::time::sleep(TIMEOUT_STALL).await;
        }
        if op.status == OperationStatus::Attempting {
            // The first attempt was counted when the row was made.
            let attempts = if first_attempt {
                op.attempts
            } else {
                store::count_attempt(&self.db, &request.idempotency_key)
                    .await
                    .map_err(unavailable)?
            };
            if attempts <= FLAKY_FAILURES {
                return Err(ProcessorError::retryable(format!(
                    "sandbox: flaky source failed attempt {attempts}"
                )));
            }
            store::settle(
                &self.db,
                &request.idempotency_key,
                OperationStatus::Attempting,
                OperationStatus::Approved,
            )
            .await
            .map_err(unavailable)?;
            let settled = store::find(&self.db, &request.idempotency_key)
                .await
                .map_err(unavailable)?;
            return settled
                .as_ref()
                .and_then(|op| self.outcome(op))
                .ok_or_else(|| ProcessorError::retryable("sandbox: charge not settled"));
        }
        if first_attempt && op.status == OperationStatus::Pending {
            self.settle_later(&op.idempotency_key, &op.reference, CHARGE_SUCCEEDED);
        }
        self.outcome(&op)
            .ok_or_else(|| ProcessorError::retryable("sandbox: charge not settled"))
    }
}

#[async_trait::async_trait]
impl Processor for Sandbox {
    #[tracing::instrument(skip_all, fields(key = %request.idempotency_key))]
    async fn charge(&self, request: &ChargeRequest) -> Result<ChargeOutcome, ProcessorError> {
        self.open(request, OperationKind::Charge).await
    }

    #[tracing::instrument(skip_all, fields(key = %request.idempotency_key))]
    async fn authorize(&self, request: &ChargeRequest) -> Result<ChargeOutcome, ProcessorError> {
        self.open(request, OperationKind::Authorization).await
    }

    #[tracing::instrument(skip_all, fields(key = %request.idempotency_key))]
    async fn capture(&self, request: &CaptureRequest) -> Result<CaptureOutcome, ProcessorError> {
        self.follow_up(request, OperationKind::Capture, OperationStatus::Captured)
            .await
    }

    #[tracing::instrument(skip_all, fields(key = %request.idempotency_key))]
    async fn void(&self, request: &CaptureRequest) -> Result<CaptureOutcome, ProcessorError> {
        self.follow_up(request, OperationKind::Void, OperationStatus::Voided)
            .await
    }

    async fn lookup_capture(&self, key: &str) -> Result<Option<CaptureOutcome>, ProcessorError> {
        let op = store::find(&self.db, key).await.map_err(unavailable)?;
        Ok(op
            .filter(|op| matches!(op.kind, OperationKind::Capture | OperationKind::Void))
            .as_ref()
            .and_then(follow_up_outcome))
    }

    #[tracing::instrument(skip_all, fields(key = %request.idempotency_key))]
    async fn refund(&self, request: &RefundRequest) -> Result<RefundOutcome, ProcessorError> {
        let charge = store::find(&self.db, &request.charge_key)
            .await
            .map_err(unavailable)?
            .filter(|c| {
                (c.kind == OperationKind::Charge && c.status == OperationStatus::Approved)
                    || (c.kind == OperationKind::Authorization
                        && c.status == OperationStatus::Captured)
            })
            .ok_or_else(|| ProcessorError::Fatal("no approved charge with this key".into()))?;
        let (status, failure_code) = match behaviour(&charge.source) {
            _ if charge.source == "tok_refundFail" => {
                (OperationStatus::Declined, Some("refund_failed"))
            }
            Behaviour::Pending => (OperationStatus::Pending, None),
            _ => (OperationStatus::Approved, None),
        };
        let reference = format!("rf_{}", ulid::Ulid::generate());
        let (op, first_attempt) = store::record(
            &self.db,
            NewOperation {
                idempotency_key: &request.idempotency_key,
                kind: OperationKind::Refund,
                reference: &reference,
                source: &charge.source,
                amount: request.amount,
                currency: &request.currency,
                status,
                failure_code,
                return_url: None,
            },
        )
        .await
        .map_err(unavailable)?;
        if op.kind != OperationKind::Refund || op.amount != request.amount {
            return Err(ProcessorError::Fatal(
                "idempotency key reused with different refund parameters".into(),
            ));
        }
        let reference = op.reference.clone();
        match op.status {
            OperationStatus::Approved => Ok(RefundOutcome::Succeeded { reference }),
            OperationStatus::Declined => Ok(RefundOutcome::Failed {
                reference,
                code: op
                    .failure_code
                    .clone()
                    .unwrap_or_else(|| "refund_failed".into()),
            }),
            OperationStatus::Pending | OperationStatus::Attempting => {
                if first_attempt {
                    self.settle_later(&op.idempotency_key, &op.reference, REFUND_SUCCEEDED);
                }
                Ok(RefundOutcome::Pending { reference })
            }
            OperationStatus::Captured
            | OperationStatus::Voided
            | OperationStatus::ActionRequired
            | OperationStatus::Expired => Err(ProcessorError::Fatal(
                "idempotency key reused with different refund parameters".into(),
            )),
        }
    }

    async fn lookup_charge(&self, key: &str) -> Result<Option<ChargeOutcome>, ProcessorError> {
        let op = store::find(&self.db, key).await.map_err(unavailable)?;
        Ok(op.as_ref().and_then(|op| self.outcome(op)))
    }
}

mod actions;
mod authorizations;

pub use actions::{ActionAnswer, PendingAction};
