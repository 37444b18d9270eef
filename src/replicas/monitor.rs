//! The replicas' checks: every interval, how far the primary has written (one task) and how
//! far each replica has replayed (a task each, on a connection of its own, so that a replica
//! that is slow to answer delays no other), and from the two, since when each replica is known
//! to have everything the primary had (its lag).

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::{Reads, Replica};
use crate::domain::consistency::Lsn;
use crate::persistence::{Db, wal};

/// How long a check waits for a server's answer before it counts the server as down.
const CHECK_TIMEOUT: Duration = Duration::from_millis(500);
/// The most positions of the primary kept: enough to tell lags well past any sensible bound.
const MAX_HISTORY: usize = 1_200;

/// The primary's positions, each with when it was read (nanoseconds after the epoch).
type Written = Arc<Mutex<VecDeque<(u64, Lsn)>>>;

pub(super) async fn run(reads: Reads, primary: Db, interval: Duration) {
    let interval = interval.max(Duration::from_millis(10));
    let written: Written = Arc::default();
    for index in 0..reads.replicas().len() {
        tokio::spawn(check_replica(
            reads.clone(),
            index,
            written.clone(),
            interval,
        ));
    }
    let mut heard = true;
    let mut ticker = ticker(interval);
    loop {
        ticker.tick().await;
        // Read before a replica's check that uses it: a replica that has replayed this far,
        // asked afterwards, has everything the primary had at this moment.
        let at = reads.inner.nanos(Instant::now());
        match tokio::time::timeout(CHECK_TIMEOUT, wal::written(&primary)).await {
            Ok(Ok(Some(lsn))) => {
                let mut written = written.lock().unwrap_or_else(|e| e.into_inner());
                if written.len() == MAX_HISTORY {
                    written.pop_front();
                }
                written.push_back((at, lsn));
                heard = true;
            }
            failed => {
                if heard {
                    tracing::warn!(
                        error = ?failed.map(|r| r.map_err(|e| e.to_string())),
                        "the replicas' check cannot read the primary's log position; reads \
                         go to the primary until it can"
                    );
                }
                heard = false;
            }
        }
    }
}

fn ticker(interval: Duration) -> tokio::time::Interval {
    let mut ticker = tokio::time::interval(interval);
    ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    ticker
}

async fn check_replica(reads: Reads, index: usize, written: Written, interval: Duration) {
    let mut was_up = None;
    let mut ticker = ticker(interval);
    loop {
        ticker.tick().await;
        let replica = &reads.replicas()[index];
        let check = tokio::time::timeout(CHECK_TIMEOUT, wal::replayed(&replica.check)).await;
        let problem = match check {
            Ok(Ok(Some(replayed))) => {
                // The latest position of the primary this replica has: it has had everything
                // the primary had since it was read.
                let covered = written
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .iter()
                    .rev()
                    .find(|(_, lsn)| *lsn <= replayed)
                    .map(|(at, _)| *at);
                replica.found(replayed, covered);
                None
            }
            Ok(Ok(None)) => Some("it is not a streaming replica (it replays no log)".into()),
            Ok(Err(err)) => Some(err.to_string()),
            Err(_) => Some(format!("it did not answer within {CHECK_TIMEOUT:?}")),
        };
        if let Some(problem) = &problem {
            replica.down();
            if was_up != Some(false) {
                tracing::warn!(
                    replica = %replica.label,
                    %problem,
                    "a replica takes no reads: they go to the primary"
                );
            }
        } else if was_up != Some(true) {
            tracing::info!(replica = %replica.label, "a replica takes reads");
        }
        was_up = Some(problem.is_none());
        record(&reads, replica);
    }
}

/// The replica's metrics as the check left them.
fn record(reads: &Reads, replica: &Replica) {
    use std::sync::atomic::Ordering;
    let covered = replica.covered_at.load(Ordering::Relaxed);
    let now = reads.inner.nanos(Instant::now());
    let lag = if covered == 0 {
        f64::INFINITY
    } else {
        Duration::from_nanos(now.saturating_sub(covered)).as_secs_f64()
    };
    crate::metrics::replicas::record_replica(
        &replica.label,
        replica.up.load(Ordering::Relaxed),
        lag,
    );
}
