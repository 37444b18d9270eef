//! Captures and voids of the sandbox's authorizations: whichever of the two reaches an
//! approved authorization first takes it, and every other fails. A void also withdraws a
//! customer action not yet answered (of a charge or an authorization), so that a later answer
//! changes nothing. A fresh capture or void that takes its authorization is one statement on
//! PostgreSQL (its record with the move of the authorization); elsewhere three: its record,
//! the move, and its own settlement.

use super::{Sandbox, unavailable};
use crate::persistence::Backend;
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
    /// answer as its first did. Captures and voids carry no payment source of their own.
    pub(super) async fn follow_up(
        &self,
        request: &CaptureRequest,
        kind: OperationKind,
        to: OperationStatus,
    ) -> Result<CaptureOutcome, ProcessorError> {
        let prefix = if kind == OperationKind::Capture {
            "cp"
        } else {
            "vd"
        };
        let reference = format!("{prefix}_{}", ulid::Ulid::generate());
        let new = NewOperation {
            idempotency_key: &request.idempotency_key,
            kind,
            reference: &reference,
            source: "",
            amount: request.amount,
            currency: &request.currency,
            status: OperationStatus::Attempting,
            failure_code: None,
            return_url: None,
        };
        let recorded = if self.db.backend() == Backend::Postgres {
            let taking = store::record_taking(&self.db, new, &request.authorization_key, to)
                .await
                .map_err(unavailable)?;
            match taking {
                Some(op) => op,
                None => store::find(&self.db, &request.idempotency_key)
                    .await
                    .map_err(unavailable)?
                    .ok_or_else(|| ProcessorError::retryable("sandbox: capture not recorded"))?,
            }
        } else {
            store::record(&self.db, new).await.map_err(unavailable)?.0
        };
        let mut op = recorded;
        if op.kind != kind || op.amount != request.amount {
            return Err(ProcessorError::Fatal(
                "idempotency key reused with different parameters".into(),
            ));
        }
        if op.status == OperationStatus::Attempting {
            let taken = self.take(request, kind, to).await?;
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
            op.status = settled_to;
        }
        follow_up_outcome(&op)
            .ok_or_else(|| ProcessorError::retryable("sandbox: capture not settled"))
    }

    /// Moves the authorization to `to` (a void: also an unanswered action to expired); false
    /// when another capture or void took it first. A repeat of a key whose first attempt took
    /// it finds it taken already, by that key: the gateway sends one capture key and one void
    /// key per payment.
    async fn take(
        &self,
        request: &CaptureRequest,
        kind: OperationKind,
        to: OperationStatus,
    ) -> Result<bool, ProcessorError> {
        let key = &request.authorization_key;
        let void = kind == OperationKind::Void;
        let took = store::take_authorization(&self.db, key, request.amount, to)
            .await
            .map_err(unavailable)?;
        if took {
            return Ok(true);
        }
        if void
            && store::settle(
                &self.db,
                key,
                OperationStatus::ActionRequired,
                OperationStatus::Expired,
            )
            .await
            .map_err(unavailable)?
        {
            return Ok(true);
        }
        let authorization = store::find(&self.db, key)
            .await
            .map_err(unavailable)?
            .filter(|a| {
                a.kind == OperationKind::Authorization || (void && a.kind == OperationKind::Charge)
            })
            .ok_or_else(|| ProcessorError::Fatal("no authorization with this key".into()))?;
        if !void && request.amount > authorization.amount {
            return Err(ProcessorError::Fatal(
                "the capture is larger than the authorization".into(),
            ));
        }
        Ok(
            authorization.status == to
                || (void && authorization.status == OperationStatus::Expired),
        )
    }
}
