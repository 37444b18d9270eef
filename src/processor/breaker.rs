//! A circuit breaker: after repeated failures it fails fast for a cool-down instead of piling
//! requests onto a dead processor, then lets one probe through (half-open) to decide whether
//! to close again.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::time::Instant;

use super::{
    ChargeOutcome, ChargeRequest, Processor, ProcessorError, RefundOutcome, RefundRequest,
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
    /// One probe is in flight; everything else fails fast until it answers.
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

/// The breaker's bookkeeping, apart from any processor so that it can be tested alone.
#[derive(Debug)]
pub struct Breaker {
    settings: BreakerSettings,
    state: Mutex<BreakerState>,
}

impl Breaker {
    pub fn new(settings: BreakerSettings) -> Self {
        let state = BreakerState::Closed { failures: 0 };
        state.report();
        Self {
            settings,
            state: Mutex::new(state),
        }
    }

    pub fn state(&self) -> BreakerState {
        *self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// May a call go through now?
    pub fn admit(&self, now: Instant) -> bool {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        match *state {
            BreakerState::Closed { .. } => true,
            BreakerState::Open { until } if now >= until => {
                *state = BreakerState::HalfOpen;
                state.report();
                tracing::info!("processor circuit half-open: probing");
                true
            }
            BreakerState::Open { .. } | BreakerState::HalfOpen => false,
        }
    }

    /// Records how an admitted call ended: `healthy` when the processor answered.
    pub fn record(&self, healthy: bool, now: Instant) {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let open = BreakerState::Open {
            until: now + self.settings.cooldown,
        };
        *state = match (*state, healthy) {
            (_, true) => BreakerState::Closed { failures: 0 },
            (BreakerState::Closed { failures }, false)
                if failures + 1 < self.settings.failure_threshold =>
            {
                BreakerState::Closed {
                    failures: failures + 1,
                }
            }
            (
                BreakerState::Closed { .. } | BreakerState::HalfOpen | BreakerState::Open { .. },
                false,
            ) => {
                tracing::warn!(cooldown = ?self.settings.cooldown, "processor circuit open");
                open
            }
        };
        state.report();
    }
}

/// An admitted call, which must end in a record: a call abandoned before it answered (its
/// attempt timed out and the future was dropped) counts as a failure. Otherwise a probe that
/// never answers would leave the breaker half-open, failing every call, for good.
struct Admitted<'a> {
    breaker: &'a Breaker,
    recorded: bool,
}

impl Admitted<'_> {
    fn record(mut self, healthy: bool) {
        self.recorded = true;
        self.breaker.record(healthy, Instant::now());
    }
}

impl Drop for Admitted<'_> {
    fn drop(&mut self) {
        if !self.recorded {
            self.breaker.record(false, Instant::now());
        }
    }
}

impl Breaker {
    /// Admits a call now, or `None` while the circuit fails fast.
    fn admitted(&self) -> Option<Admitted<'_>> {
        self.admit(Instant::now()).then_some(Admitted {
            breaker: self,
            recorded: false,
        })
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
}

#[cfg(test)]
mod tests {
    use super::*;

    fn breaker() -> Breaker {
        Breaker::new(BreakerSettings {
            failure_threshold: 3,
            cooldown: Duration::from_secs(10),
        })
    }

    #[test]
    fn opens_after_consecutive_failures_only() {
        let b = breaker();
        let t = Instant::now();
        b.record(false, t);
        b.record(false, t);
        b.record(true, t);
        b.record(false, t);
        b.record(false, t);
        assert_eq!(b.state(), BreakerState::Closed { failures: 2 });
        b.record(false, t);
        assert_eq!(
            b.state(),
            BreakerState::Open {
                until: t + Duration::from_secs(10)
            }
        );
        assert!(!b.admit(t + Duration::from_secs(9)));
    }

    #[test]
    fn half_open_lets_one_probe_through_and_closes_on_success() {
        let b = breaker();
        let t = Instant::now();
        for _ in 0..3 {
            b.record(false, t);
        }
        let later = t + Duration::from_secs(10);
        assert!(b.admit(later), "the probe");
        assert!(!b.admit(later), "only one probe at a time");
        b.record(true, later);
        assert_eq!(b.state(), BreakerState::Closed { failures: 0 });
        assert!(b.admit(later));
    }

    #[test]
    fn a_failed_probe_opens_the_circuit_again() {
        let b = breaker();
        let t = Instant::now();
        for _ in 0..3 {
            b.record(false, t);
        }
        let later = t + Duration::from_secs(11);
        assert!(b.admit(later));
        b.record(false, later);
        assert_eq!(
            b.state(),
            BreakerState::Open {
                until: later + Duration::from_secs(10)
            }
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_probe_abandoned_before_it_answers_opens_the_circuit_again() {
        let b = breaker();
        let t = Instant::now();
        for _ in 0..3 {
            b.record(false, t);
        }
        tokio::time::advance(Duration::from_secs(11)).await;
        let probe = b.admitted().expect("the probe is admitted");
        drop(probe);
        assert!(
            matches!(b.state(), BreakerState::Open { .. }),
            "not stuck half-open: {:?}",
            b.state()
        );
        tokio::time::advance(Duration::from_secs(11)).await;
        let probe = b.admitted().expect("a new probe after the cool-down");
        probe.record(true);
        assert_eq!(b.state(), BreakerState::Closed { failures: 0 });
    }
}
