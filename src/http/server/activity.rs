//! A connection's activity and the deadline that goes with it: the head of a request must
//! arrive in time, and a connection may sit idle between requests only so long.

use tokio::sync::watch;
use tokio::time::Instant;

use super::ConnectionLimits;

/// Completes with the deadline's reason when it passes; never, without a deadline.
pub(super) async fn expiry(deadline: Option<(Instant, &'static str)>) -> &'static str {
    match deadline {
        Some((at, reason)) => {
            tokio::time::sleep_until(at).await;
            reason
        }
        None => std::future::pending().await,
    }
}

/// What a connection is doing, as far as its deadlines are concerned.
#[derive(Clone, Copy, Debug)]
pub(super) enum Phase {
    /// Receiving a request's head, since the connection opened or the head's first byte.
    ReadingHead(Instant),
    /// Between a response and the next request's first byte.
    Idle(Instant),
    /// Serving this many requests.
    Busy(usize),
    /// Handed over to another protocol (a WebSocket).
    Upgraded,
}

impl Phase {
    pub(super) fn deadline(self, limits: &ConnectionLimits) -> Option<(Instant, &'static str)> {
        match self {
            Phase::ReadingHead(since) => Some((since + limits.header_read_timeout, "header")),
            Phase::Idle(since) => Some((since + limits.idle_timeout, "idle")),
            Phase::Busy(_) | Phase::Upgraded => None,
        }
    }
}

/// A connection's phase, told by its socket (bytes arrive) and its requests (start, finish).
pub(super) struct Activity {
    pub(super) phase: watch::Sender<Phase>,
}

impl Activity {
    pub(super) fn new() -> Self {
        Activity {
            phase: watch::Sender::new(Phase::ReadingHead(Instant::now())),
        }
    }

    pub(super) fn bytes_arrived(&self) {
        self.phase.send_if_modified(|phase| match phase {
            Phase::Idle(_) => {
                *phase = Phase::ReadingHead(Instant::now());
                true
            }
            _ => false,
        });
    }

    pub(super) fn request_started(&self) {
        self.phase.send_modify(|phase| {
            *phase = match *phase {
                Phase::Busy(n) => Phase::Busy(n + 1),
                Phase::Upgraded => Phase::Upgraded,
                Phase::ReadingHead(_) | Phase::Idle(_) => Phase::Busy(1),
            }
        });
    }

    pub(super) fn request_finished(&self) {
        self.phase.send_modify(|phase| {
            *phase = match *phase {
                Phase::Busy(n) if n > 1 => Phase::Busy(n - 1),
                Phase::Busy(_) => Phase::Idle(Instant::now()),
                other => other,
            }
        });
    }

    pub(super) fn upgraded(&self) {
        self.phase.send_replace(Phase::Upgraded);
    }
}
