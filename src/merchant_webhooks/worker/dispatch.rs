//! The dispatch loop: due deliveries claimed with a lease, signed, sent a few at a time, and
//! each attempt recorded with what it leaves the delivery as.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{Notify, watch};
use tokio::task::JoinSet;

use super::{DISABLED_FOR_FAILING, Deliveries, until_stopped};
use crate::domain::ids::{IdKind, new_id};
use crate::domain::time::Timestamp;
use crate::domain::webhook_endpoint::WebhookAttempt;
use crate::merchant_webhooks::outbound::{Attempt, Outbound};
use crate::merchant_webhooks::schedule::RetrySchedule;
use crate::merchant_webhooks::signing::{Secret, sign};
use crate::persistence::Db;
use crate::persistence::merchant_webhooks::{self as stored, AttemptResult, Claimed};

pub(super) async fn dispatch_loop(
    deliveries: Deliveries,
    due: Arc<Notify>,
    mut stopped: watch::Receiver<bool>,
) {
    let Deliveries {
        db,
        settings,
        outbound,
        ..
    } = deliveries;
    let mut inflight = JoinSet::new();
    loop {
        // Attempts that have finished make room.
        while inflight.try_join_next().is_some() {}
        let room = settings.concurrency.saturating_sub(inflight.len());
        if room > 0 {
            let now = Timestamp::now();
            let lease_until = later(now, settings.lease);
            match stored::claim_due(&db, now, lease_until, room as u64).await {
                Ok(claimed) => {
                    for claim in claimed {
                        inflight.spawn(attempt(
                            db.clone(),
                            outbound.clone(),
                            settings.schedule,
                            claim,
                        ));
                    }
                }
                Err(err) => tracing::warn!(error = %err, "could not claim webhook deliveries"),
            }
        }
        // Until the next claimable delivery is due (at least 10 ms: one due now but not
        // claimed is being claimed by another instance), at most a second.
        let wait = match stored::next_due(&db).await {
            Ok(Some(at)) => {
                let micros = (at.micros() - Timestamp::now().micros()).clamp(10_000, 1_000_000);
                Duration::from_micros(micros as u64)
            }
            _ => Duration::from_secs(1),
        };
        tokio::select! {
            _ = until_stopped(&mut stopped) => {
                // Attempts in flight are dropped; their leases run out and another claim
                // sends them again.
                inflight.abort_all();
                return;
            }
            _ = due.notified() => {}
            // Claims go in batches: once half the attempts in flight have finished.
            _ = drain_to(&mut inflight, settings.concurrency / 2), if !inflight.is_empty() => {}
            _ = tokio::time::sleep(wait) => {}
        }
    }
}

/// Waits until at most `left` attempts are still in flight.
async fn drain_to(inflight: &mut JoinSet<()>, left: usize) {
    while inflight.len() > left {
        if inflight.join_next().await.is_none() {
            return;
        }
    }
}

fn later(at: Timestamp, by: Duration) -> Timestamp {
    Timestamp::from_micros(at.micros().saturating_add(by.as_micros() as i64))
}

/// Signs and sends one claimed delivery, and records what came of it.
async fn attempt(db: Db, outbound: Outbound, schedule: RetrySchedule, claim: Claimed) {
    let started = Timestamp::now();
    let secrets: Option<Vec<Secret>> = claim.secrets.iter().map(|s| Secret::parse(s)).collect();
    let sent = match secrets {
        Some(secrets) if !secrets.is_empty() => {
            let headers = sign(
                &secrets,
                &claim.delivery.event_id,
                started.micros() / 1_000_000,
                claim.delivery.body.as_bytes(),
            );
            outbound
                .send(&claim.url, &headers, claim.delivery.body.as_bytes())
                .await
        }
        _ => {
            // Not sent, but an attempt all the same, so the schedule still runs out.
            tracing::error!(delivery = %claim.delivery.id, "an endpoint's stored secret is unreadable");
            Attempt {
                status_code: None,
                duration_ms: 0,
                error: Some("not sent: the endpoint's secret is unreadable".to_string()),
            }
        }
    };
    let now = Timestamp::now();
    let result = if sent.acknowledged() {
        AttemptResult::Acknowledged
    } else {
        let first = claim.delivery.first_attempt_at.unwrap_or(started);
        if schedule.gives_up(first.micros(), now.micros()) {
            AttemptResult::GaveUp
        } else {
            let failed = u32::try_from(claim.delivery.attempt_count + 1).unwrap_or(u32::MAX);
            let delay = schedule.delay_after(failed, &mut rand::rng());
            AttemptResult::RetryAt(later(now, delay))
        }
    };
    let outcome = match result {
        AttemptResult::Acknowledged => "acknowledged",
        AttemptResult::RetryAt(_) => "retrying",
        AttemptResult::GaveUp => "gave_up",
    };
    crate::metrics::record_webhook_attempt(outcome);
    let record = WebhookAttempt {
        id: new_id(IdKind::WebhookAttempt),
        delivery_id: claim.delivery.id.clone(),
        at: started,
        status_code: sent.status_code.map(i32::from),
        duration_ms: i32::try_from(sent.duration_ms).unwrap_or(i32::MAX),
        error: sent.error.clone(),
    };
    match stored::record_attempt(&db, &claim, &record, result, DISABLED_FOR_FAILING).await {
        Ok(true) => {}
        Ok(false) => tracing::warn!(
            delivery = %claim.delivery.id,
            "a webhook attempt outlived its lease; another instance owns the delivery now"
        ),
        Err(err) => tracing::warn!(error = %err, delivery = %claim.delivery.id,
            "could not record a webhook attempt"),
    }
    if result == AttemptResult::GaveUp {
        tracing::warn!(delivery = %claim.delivery.id, endpoint = %claim.delivery.endpoint_id,
            "a webhook delivery was given up after its retry schedule");
    }
}
