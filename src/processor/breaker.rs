//! A circuit breaker: after repeated failures it fails fast for a cool-down instead of piling
//! requests onto a dead processor, then lets one probe through (half-open) to decide whether
//! to close again.
//!
//! The states and what moves between them:
//!
//! | state | admit | the call's record |
//! |---|---|---|
//! | closed (n failures) | admitted | success: closed (0); failure: closed (n + 1), or open at the threshold |
//! | open until T, before T | refused, nothing changes | (no call was admitted) |
//! | open until T, at or after T | admitted as the probe: half-open | |
//! | half-open (the probe in flight) | refused, nothing changes | the probe's success: closed (0); its failure: open for a cool-down |
//!
//! Each admitted call carries the epoch it was admitted in, and the epoch changes with every
//! change of state, so a call admitted before the circuit opened that answers later (while it
//! is open, half-open or closed again) changes nothing: only the probe decides a half-open
//! circuit. A call whose future is dropped before it answered (its attempt timed out) counts as
//! a failure; otherwise a probe that never answers would leave the circuit half-open for good.

#[cfg(test)]
mod props;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::time::Instant;

use super::{
    CaptureOutcome, CaptureRequest, ChargeOutcome, ChargeRequest, Processor, ProcessorError,
    RefundOutcome, RefundRequest,
};

#[derive(Clone, Copy, Debug)]
pub struct BreakerSettings {
    /// Consecutive transient failures that open the circuit.
    pub failure_threshold: u32,
    /// How long an open circuit fails fast before a probe is let through.
    pub cooldown: Duration,
}

impl Default for BreakerSettings {
    fn default() -> Self {
        BreakerSettings {
            failure_threshold: 5,
            cooldown: Duration::from_secs(10),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BreakerState {
    Closed {
        failures: u32,
    },
    Open {
        until: Instant,
    },
    /// The one probe is in flight; everything else fails fast until it answers.
    HalfOpen,
}

impl BreakerState {
    /// Sets the breaker-state gauge to this state.
    fn report(&self) {
        use crate::metrics::breaker_state::{CLOSED, HALF_OPEN, OPEN};
        crate::metrics::record_breaker_state(match self {
            BreakerState::Closed { .. } => CLOSED,
            BreakerState::Open { .. } => OPEN,
            BreakerState::HalfOpen => HALF_OPEN,
        });
    }
}

/// The right to make one call, handed out by [`Breaker::admit`] and given back to
/// [`Breaker::record`] with the call's outcome.
#[derive(Debug, PartialEq, Eq)]
#[must_use = "an admitted call must be recorded"]
pub struct Permit {
    epoch: u64,
    probe: bool,
}

impl Permit {
    /// Whether this call is the half-open circuit's probe.
    pub fn is_probe(&self) -> bool {
        self.probe
    }
}

#[derive(Debug)]
struct Inner {
    state: BreakerState,
    /// Changes with every change of state: see the module's opening comment.
    epoch: u64,
}

impl Inner {
    fn enter(&mut self, state: BreakerState) {
        self.state = state;
        self.epoch += 1;
        state.report();
    }
}

/// The breaker's bookkeeping, apart from any processor so that it can be tested alone.
#[derive(Debug)]
pub struct Breaker {
    settings: BreakerSettings,
    inner: Mutex<Inner>,
}

impl Breaker {
    pub fn new(settings: BreakerSettings) -> Self {
        let state = BreakerState::Closed { failures: 0 };
        state.report();
        Self {
            settings,
            inner: Mutex::new(Inner { state, epoch: 0 }),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn state(&self) -> BreakerState {
        self.lock().state
    }

    /// Admits a call now, or refuses it (`None`) while the circuit fails fast. A refused call
    /// changes nothing.
    pub fn admit(&self, now: Instant) -> Option<Permit> {
        let mut inner = self.lock();
        match inner.state {
            BreakerState::Closed { .. } => Some(Permit {
                epoch: inner.epoch,
                probe: false,
            }),
            BreakerState::Open { until } if now >= until => {
                inner.enter(BreakerState::HalfOpen);
                tracing::info!("processor circuit half-open: probing");
                Some(Permit {
                    epoch: inner.epoch,
                    probe: true,
                })
            }
            BreakerState::Open { .. } | BreakerState::HalfOpen => {
                drop(inner);
                crate::metrics::record_breaker_refusal();
                None
            }
        }
    }

    /// Records how an admitted call ended: `healthy` when the processor answered.
    pub fn record(&self, permit: Permit, healthy: bool, now: Instant) {
        let mut inner = self.lock();
        if permit.epoch != inner.epoch {
            // Admitted before the last change of state: its news is older than that change.
            return;
        }
        let open = BreakerState::Open {
            until: now + self.settings.cooldown,
        };
        match (inner.state, permit.probe, healthy) {
            (BreakerState::Closed { failures }, false, true) => {
                if failures > 0 {
                    inner.state = BreakerState::Closed { failures: 0 };
                }
            }
            (BreakerState::Closed { failures }, false, false) => {
                if failures + 1 < self.settings.failure_threshold {
                    inner.state = BreakerState::Closed {
                        failures: failures + 1,
                    };
                } else {
                    tracing::warn!(cooldown = ?self.settings.cooldown, "processor circuit open");
                    inner.enter(open);
                }
            }
            (BreakerState::HalfOpen, true, true) => {
                tracing::info!("processor circuit closed: the probe succeeded");
                inner.enter(BreakerState::Closed { failures: 0 });
            }
            (BreakerState::HalfOpen, true, false) => {
                tracing::warn!(cooldown = ?self.settings.cooldown, "processor circuit open again: the probe failed");
                inner.enter(open);
            }
            // A permit of the current epoch is a probe exactly when the circuit is half-open,
            // and no permit is issued while it is open.
            (BreakerState::Closed { .. }, true, _)
            | (BreakerState::HalfOpen, false, _)
            | (BreakerState::Open { .. }, _, _) => {}
        }
    }

    /// Admits a call now as a guard that records a failure if it is dropped unrecorded, or
    /// `None` while the circuit fails fast.
    fn admitted(&self) -> Option<Admitted<'_>> {
        self.admit(Instant::now()).map(|permit| Admitted {
            breaker: self,
            permit: Some(permit),
        })
    }
}

/// An admitted call, which must end in a record: a call abandoned before it answered (its
/// attempt timed out and the future was dropped) counts as a failure.
struct Admitted<'a> {
    breaker: &'a Breaker,
    permit: Option<Permit>,
}

impl Admitted<'_> {
    fn record(mut self, healthy: bool) {
        if let Some(permit) = self.permit.take() {
            self.breaker.record(permit, healthy, Instant::now());
        }
    }
}

impl Drop for Admitted<'_> {
    fn drop(&mut self) {
        if let Some(permit) = self.permit.take() {
            self.breaker.record(permit, false, Instant::now());
        }
    }
}

/// A processor behind a [`Breaker`].
pub struct CircuitBreaker {
    inner: Arc<dyn Processor>,
    breaker: Breaker,
}

impl CircuitBreaker {
    pub fn new(inner: Arc<dyn Processor>, settings: BreakerSettings) -> Self {
        Self {
            inner,
            breaker: Breaker::new(settings),
        }
    }

    async fn call<T>(
        &self,
        fut: impl Future<Output = Result<T, ProcessorError>>,
    ) -> Result<T, ProcessorError> {
        let Some(admitted) = self.breaker.admitted() else {
            return Err(ProcessorError::CircuitOpen);
        };
        let result = fut.await;
        admitted.record(!matches!(result, Err(ProcessorError::Retryable { .. })));
        result
    }
}

#[async_trait::async_trait]
impl Processor for CircuitBreaker {
    async fn charge(&self, request: &ChargeRequest) -> Result<ChargeOutcome, ProcessorError> {
        self.call(self.inner.charge(request)).await
    }

    async fn lookup_charge(&self, key: &str) -> Result<Option<ChargeOutcome>, ProcessorError> {
        self.call(self.inner.lookup_charge(key)).await
    }

    async fn refund(&self, request: &RefundRequest) -> Result<RefundOutcome, ProcessorError> {
        self.call(self.inner.refund(request)).await
    }

    async fn authorize(&self, request: &ChargeRequest) -> Result<ChargeOutcome, ProcessorError> {
        self.call(self.inner.authorize(request)).await
    }

    async fn capture(&self, request: &CaptureRequest) -> Result<CaptureOutcome, ProcessorError> {
        self.call(self.inner.capture(request)).await
    }

    async fn void(&self, request: &CaptureRequest) -> Result<CaptureOutcome, ProcessorError> {
        self.call(self.inner.void(request)).await
    }

    async fn lookup_capture(&self, key: &str) -> Result<Option<CaptureOutcome>, ProcessorError> {
        self.call(self.inner.lookup_capture(key)).await
    }
}

#[cfg(test)]
#[path = "breaker_tests.rs"]
mod tests;
