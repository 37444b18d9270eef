//! The replicas' check: every interval, how far the primary has written and how far each
//! replica has replayed, and from the two, since when each replica is known to have
//! everything the primary had (its lag).

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use futures_util::future::join_all;

use super::Reads;
use crate::domain::consistency::Lsn;
use crate::persistence::{Db, wal};

/// How long a check waits for a server's answer before it counts the server as down.
const CHECK_TIMEOUT: Duration = Duration::from_millis(500);
/// The most positions of the primary kept: enough to tell lags well past any sensible bound.
const MAX_HISTORY: usize = 1_200;

pub(super) async fn run(reads: Reads, primary: Db, interval: Duration) {
    let mut written: VecDeque<(u64, Lsn)> = VecDeque::new();
    let mut was_up: Vec<Option<bool>> = vec![None; reads.replicas().len()];
    let mut primary_heard = true;
    let mut ticker = tokio::time::interval(interval.max(Duration::from_millis(10)));
    ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        ticker.tick().await;
        // The primary first: a replica that has replayed this far, read afterwards, has
        // everything the primary had at this moment.
        let at = reads.inner.nanos(Instant::now());
        match tokio::time::timeout(CHECK_TIMEOUT, wal::written(&primary)).await {
            Ok(Ok(Some(lsn))) => {
                if written.len() == MAX_HISTORY {
                    written.pop_front();
                }
                written.push_back((at, lsn));
                primary_heard = true;
            }
            failed => {
                if primary_heard {
                    tracing::warn!(
                        error = ?failed.map(|r| r.map_err(|e| e.to_string())),
                        "the replicas' check cannot read the primary's log position; reads \
                         without a consistency token go to the primary until it can"
                    );
                }
                primary_heard = false;
            }
        }
        let replicas = reads.replicas();
        let checks = join_all(
            replicas
                .iter()
                .map(|replica| tokio::time::timeout(CHECK_TIMEOUT, wal::replayed(&replica.db))),
        )
        .await;
        let now = reads.inner.nanos(Instant::now());
        for ((replica, check), was_up) in replicas.iter().zip(checks).zip(was_up.iter_mut()) {
            let problem = match check {
                Ok(Ok(Some(replayed))) => {
                    let covered = written
                        .iter()
                        .rev()
                        .find(|(_, lsn)| *lsn <= replayed)
                        .map(|(at, _)| *at);
                    replica.record(true, Some(replayed), covered);
                    None
                }
                Ok(Ok(None)) => Some("it is not a streaming replica (it replays no log)".into()),
                Ok(Err(err)) => Some(err.to_string()),
                Err(_) => Some(format!("it did not answer within {CHECK_TIMEOUT:?}")),
            };
            let up = problem.is_none();
            if let Some(problem) = &problem {
                replica.record(false, None, None);
                if *was_up != Some(false) {
                    tracing::warn!(
                        replica = %replica.label,
                        %problem,
                        "a replica takes no reads: they go to the primary"
                    );
                }
            } else if *was_up != Some(true) {
                tracing::info!(replica = %replica.label, "a replica takes reads");
            }
            *was_up = Some(up);
            let covered = replica
                .covered_at
                .load(std::sync::atomic::Ordering::Relaxed);
            let lag = if covered == 0 {
                f64::INFINITY
            } else {
                Duration::from_nanos(now.saturating_sub(covered)).as_secs_f64()
            };
            crate::metrics::replicas::record_replica(&replica.label, up, lag);
        }
    }
}
