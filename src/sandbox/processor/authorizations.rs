//! Captures and voids of the sandbox's authorizations: whichever of the two reaches an
//! approved authorization first takes it, and every other fails. A void also withdraws a
//! customer action not yet answered (of a charge or an authorization), so that a later answer
//! changes nothing.

use super::{Sandbox, unavailable};
use crate::persistence::sandbox::{
    self as store, NewOperation, OperationKind, OperationStatus, SandboxOperation,
};
use crate::processor::{CaptureOutcome, CaptureRequest, ProcessorError};

/// Why a capture or void of an authorization failed: it was captured or voided already.
const AUTHORIZATION_UNAVAILABLE: &str = "authorization_unavailable";

pub(super) fn follow_up_outcome(op: &SandboxOperation) -> Option<CaptureOutcome> {
    let reference = op.reference.clone();
    match op.status {
        OperationStatus::Approved => Some(CaptureOutcome::Succeeded { reference }),
        OperationStatus::Declined => Some(CaptureOutcome::Failed {
            reference,
            code: op
                .failure_code
                .clone()
                .unwrap_or_else(|| AUTHORIZATION_UNAVAILABLE.into()),
        }),
        OperationStatus::Attempting
        | OperationStatus::Pending
        | OperationStatus::Captured
        | OperationStatus::Voided
        | OperationStatus::ActionRequired
        | OperationStatus::Expired => None,
    }
}

impl Sandbox {
    /// A capture or a void (`kind`) of an authorization: the first of the two to reach an
    /// approved authorization takes it (`to`), and every other fails; repeats of one key
    /// answer as its first did.
    pub(super) async fn follow_up(
        &self,
        request: &CaptureRequest,
        kind: OperationKind,
        to: OperationStatus,
    ) -> Result<CaptureOutcome, ProcessorError> {
        let authorization = store::find(&self.db, &request.authorization_key)
            .await
            .map_err(unavailable)?
            .filter(|a| {
                a.kind == OperationKind::Authorization
                    || (kind == OperationKind::Void && a.kind == OperationKind::Charge)
            })
            .ok_or_else(|| ProcessorError::Fatal("no authorization with this key".into()))?;
        if kind == OperationKind::Capture && request.amount > authorization.amount {
            return Err(ProcessorError::Fatal(
                "the capture is larger than the authorization".into(),
            ));
        }
        let prefix = if kind == OperationKind::Capture {
            "cp"
        } else {
            "vd"
        };
        let reference = format!("{prefix}_{}", ulid::Ulid::generate());
        let (op, _) = store::record(
            &self.db,
            NewOperation {
                idempotency_key: &request.idempotency_key,
                kind,
                reference: &reference,
                source: &authorization.source,
                amount: request.amount,
                currency: &authorization.currency,
                status: OperationStatus::Attempting,
                failure_code: None,
                return_url: None,
            },
        )
        .await
        .map_err(unavailable)?;
        if op.kind != kind || op.amount != request.amount {
            return Err(ProcessorError::Fatal(
                "idempotency key reused with different parameters".into(),
            ));
        }
        if op.status == OperationStatus::Attempting {
            let mut took = authorization.kind == OperationKind::Authorization
                && store::settle(
                    &self.db,
                    &request.authorization_key,
                    OperationStatus::Approved,
                    to,
                )
                .await
                .map_err(unavailable)?;
            if kind == OperationKind::Void && !took {
                took = store::settle(
                    &self.db,
                    &request.authorization_key,
                    OperationStatus::ActionRequired,
                    OperationStatus::Expired,
                )
                .await
                .map_err(unavailable)?;
            }
            // A repeat of this key after its first attempt took the authorization finds it
            // taken already, by this key.
            let withdrawn = |s: OperationStatus| {
                s == to || (kind == OperationKind::Void && s == OperationStatus::Expired)
            };
            let taken = took
                || store::find(&self.db, &request.authorization_key)
                    .await
                    .map_err(unavailable)?
                    .is_some_and(|a| withdrawn(a.status));
            let settled_to = if taken {
                OperationStatus::Approved
            } else {
                OperationStatus::Declined
            };
            store::settle(
                &self.db,
                &request.idempotency_key,
                OperationStatus::Attempting,
                settled_to,
            )
            .await
            .map_err(unavailable)?;
        }
        let settled = store::find(&self.db, &request.idempotency_key)
            .await
            .map_err(unavailable)?;
        settled
            .as_ref()
            .and_then(follow_up_outcome)
            .ok_or_else(|| ProcessorError::retryable("sandbox: capture not settled"))
    }
}
