//! The gateway's timer: expired idempotency keys and submit tokens swept, stuck payments
//! reconciled, the status counts folded.

use std::time::Duration;

use tokio::sync::watch;

use crate::domain::time::Timestamp;
use crate::persistence::{Db, idempotency_keys, payment_counts};
use crate::service::idempotency::IdempotencySettings;
use crate::service::payments::PaymentService;
use crate::service::reconcile::ReconcileSettings;
use crate::service::submit_tokens::SubmitTokens;

/// Statuses whose counts one tick folds at most, in one transaction.
const FOLDED_PER_TICK: u64 = 1_000;

/// Background work on a timer: expired idempotency keys are removed, payments stuck in
/// PENDING or PROCESSING are reconciled, and the status counts are folded.
#[derive(Clone)]
pub(super) struct Housekeeper {
    pub(super) interval: Duration,
    pub(super) idempotency: IdempotencySettings,
    pub(super) reconcile: ReconcileSettings,
    pub(super) payments: PaymentService,
    pub(super) submit_tokens: SubmitTokens,
}

impl Housekeeper {
    pub(super) async fn run(self, db: Db, mut stop: watch::Receiver<bool>) {
        let mut ticks = tokio::time::interval(self.interval);
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                _ = ticks.tick() => {}
                _ = stop.changed() => return,
            }
            let retention = i64::try_from(self.idempotency.retention.as_secs()).unwrap_or(i64::MAX);
            match idempotency_keys::sweep(&db, Timestamp::now().plus_seconds(-retention)).await {
                Ok(0) => {}
                Ok(n) => tracing::info!(removed = n, "swept expired idempotency keys"),
                Err(err) => tracing::warn!(error = %err, "idempotency sweep failed"),
            }
            // A token is swept the retention after it expired; its key's record not before.
            let cutoff = Timestamp::now().plus_seconds(-retention);
            if let Err(err) = self.submit_tokens.sweep(cutoff).await {
                tracing::warn!(error = ?err, "submit token sweep failed");
            }
            match self.payments.reconcile(self.reconcile).await {
                Ok(report) if report.expired + report.resolved > 0 => {
                    tracing::info!(
                        expired = report.expired,
                        resolved = report.resolved,
                        "reconciled payments"
                    )
                }
                Ok(_) => {}
                Err(err) => tracing::warn!(error = ?err, "reconciliation failed"),
            }
            match payment_counts::fold(&db, FOLDED_PER_TICK).await {
                Ok(0) => {}
                Ok(n) => tracing::debug!(statuses = n, "folded status counts"),
                Err(err) => tracing::warn!(error = %err, "folding the status counts failed"),
            }
        }
    }
}
