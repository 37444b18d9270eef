//! Timeouts, retries with exponential backoff and full jitter, and an overall deadline around
//! any processor. Only retryable failures are retried, always with the same idempotency key.

use std::sync::Arc;
use std::time::Duration;

use backon::{BackoffBuilder, ExponentialBuilder};
use rand::Rng;
use tokio::time::{Instant, timeout};
use tracing::Instrument;

use super::{
    CallLimits, CaptureOutcome, CaptureRequest, ChargeOutcome, ChargeRequest, Processor,
    ProcessorError, RefundOutcome, RefundRequest,
};

/// How a call is retried.
#[derive(Clone, Copy, Debug)]
pub struct RetryPolicy {
    pub limits: CallLimits,
}

impl RetryPolicy {
    /// The waits before each retry: exponential steps from backon, each drawn uniformly from
    /// zero up to the step ("full jitter"), so synchronised clients spread out.
    fn waits(&self) -> impl Iterator<Item = Duration> {
        ExponentialBuilder::default()
            .with_min_delay(self.limits.backoff_base)
            .with_max_delay(self.limits.backoff_max)
            .with_max_times(self.limits.max_retries)
            .build()
            .map(|step| {
                let max = u64::try_from(step.as_micros()).unwrap_or(u64::MAX);
                Duration::from_micros(rand::rng().random_range(0..=max))
            })
    }

    /// Runs `op` until it succeeds, fails for good, runs out of retries or of time. A
    /// processor's `Retry-After` lengthens the wait; an open circuit ends the call at once.
    pub async fn run<T, F, Fut>(&self, what: &'static str, mut op: F) -> Result<T, ProcessorError>
    where
        F: FnMut() -> Fut,
        Fut: Future<Output = Result<T, ProcessorError>>,
    {
        let deadline = Instant::now() + self.limits.deadline;
        let mut waits = self.waits();
        let mut attempt = 0u32;
        loop {
            attempt += 1;
            let left = deadline.saturating_duration_since(Instant::now());
            let budget = self.limits.attempt_timeout.min(left);
            let span = tracing::info_span!("processor_attempt", what, attempt);
            let started = Instant::now();
            let result = match timeout(budget, op()).instrument(span.clone()).await {
                Ok(result) => result,
                Err(_) => Err(ProcessorError::retryable(format!(
                    "no answer within {budget:?}"
                ))),
            };
            crate::metrics::record_processor_attempt(what, outcome(&result), started.elapsed());
            match &result {
                Ok(_) => span.in_scope(|| tracing::info!(outcome = "ok")),
                Err(e) => span.in_scope(|| tracing::warn!(outcome = %e)),
            }
            let hint = match &result {
                Err(ProcessorError::Retryable { retry_after, .. }) => *retry_after,
                _ => return result,
            };
            let Some(jittered) = waits.next() else {
                return result;
            };
            let wait = hint.map_or(jittered, |hint| hint.max(jittered));
            if Instant::now() + wait >= deadline {
                return result;
            }
            crate::metrics::record_processor_retry(what);
            tokio::time::sleep(wait).await;
        }
    }
}

/// How an attempt ended, as the attempts metric labels it (a timeout is `retryable`).
fn outcome<T>(result: &Result<T, ProcessorError>) -> &'static str {
    match result {
        Ok(_) => "ok",
        Err(ProcessorError::Retryable { .. }) => "retryable",
        Err(ProcessorError::CircuitOpen) => "circuit_open",
        Err(ProcessorError::Fatal(_)) => "fatal",
    }
}

/// A processor whose every call goes through a [`RetryPolicy`].
#[derive(Clone)]
pub struct Retrying {
    inner: Arc<dyn Processor>,
    policy: RetryPolicy,
}

impl Retrying {
    pub fn new(inner: Arc<dyn Processor>, limits: CallLimits) -> Self {
        Self {
            inner,
            policy: RetryPolicy { limits },
        }
    }

    pub async fn charge(&self, request: &ChargeRequest) -> Result<ChargeOutcome, ProcessorError> {
        self.policy
            .run("charge", || self.inner.charge(request))
            .await
    }

    pub async fn lookup_charge(&self, key: &str) -> Result<Option<ChargeOutcome>, ProcessorError> {
        self.policy
            .run("lookup_charge", || self.inner.lookup_charge(key))
            .await
    }

    pub async fn refund(&self, request: &RefundRequest) -> Result<RefundOutcome, ProcessorError> {
        self.policy
            .run("refund", || self.inner.refund(request))
            .await
    }

    pub async fn authorize(
        &self,
        request: &ChargeRequest,
    ) -> Result<ChargeOutcome, ProcessorError> {
        self.policy
            .run("authorize", || self.inner.authorize(request))
            .await
    }

    pub async fn capture(
        &self,
        request: &CaptureRequest,
    ) -> Result<CaptureOutcome, ProcessorError> {
        self.policy
            .run("capture", || self.inner.capture(request))
            .await
    }

    pub async fn void(&self, request: &CaptureRequest) -> Result<CaptureOutcome, ProcessorError> {
        self.policy.run("void", || self.inner.void(request)).await
    }

    pub async fn lookup_capture(
        &self,
        key: &str,
    ) -> Result<Option<CaptureOutcome>, ProcessorError> {
        self.policy
            .run("lookup_capture", || self.inner.lookup_capture(key))
            .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU32, Ordering};

    fn policy(retries: usize) -> RetryPolicy {
        RetryPolicy {
            limits: CallLimits {
                attempt_timeout: Duration::from_millis(50),
                deadline: Duration::from_secs(5),
                max_retries: retries,
                backoff_base: Duration::from_millis(1),
                backoff_max: Duration::from_millis(4),
            },
        }
    }

    #[tokio::test]
    async fn retryable_failures_are_retried_up_to_the_limit() {
        let calls = AtomicU32::new(0);
        let result: Result<(), _> = policy(3)
            .run("t", || async {
                calls.fetch_add(1, Ordering::SeqCst);
                Err(ProcessorError::retryable("down"))
            })
            .await;
        assert!(matches!(result, Err(ProcessorError::Retryable { .. })));
        assert_eq!(calls.load(Ordering::SeqCst), 4, "one try and three retries");
    }

    #[tokio::test]
    async fn fatal_failures_and_successes_are_not_retried() {
        let calls = AtomicU32::new(0);
        let result: Result<(), _> = policy(3)
            .run("t", || async {
                calls.fetch_add(1, Ordering::SeqCst);
                Err(ProcessorError::Fatal("no".into()))
            })
            .await;
        assert!(matches!(result, Err(ProcessorError::Fatal(_))));
        assert_eq!(calls.load(Ordering::SeqCst), 1);
    }

    #[tokio::test]
    async fn a_slow_attempt_times_out_and_is_retried() {
        let calls = AtomicU32::new(0);
        let result = policy(2)
            .run("t", || async {
                let n = calls.fetch_add(1, Ordering::SeqCst);
                if n == 0 {
                    tokio::time::sleep(Duration::from_secs(60)).await;
                }
                Ok(n)
            })
            .await;
        assert_eq!(result, Ok(1));
    }

    #[tokio::test]
    async fn an_open_circuit_is_not_retried() {
        let calls = AtomicU32::new(0);
        let result: Result<(), _> = policy(3)
            .run("t", || async {
                calls.fetch_add(1, Ordering::SeqCst);
                Err(ProcessorError::CircuitOpen)
            })
            .await;
        assert_eq!(result, Err(ProcessorError::CircuitOpen));
        assert_eq!(calls.load(Ordering::SeqCst), 1);
    }

    #[tokio::test(start_paused = true)]
    async fn retry_after_lengthens_the_wait() {
        let start = Instant::now();
        let calls = AtomicU32::new(0);
        let result = policy(1)
            .run("t", || async {
                if calls.fetch_add(1, Ordering::SeqCst) == 0 {
                    Err(ProcessorError::Retryable {
                        reason: "slow down".into(),
                        retry_after: Some(Duration::from_secs(2)),
                    })
                } else {
                    Ok(())
                }
            })
            .await;
        assert_eq!(result, Ok(()));
        assert!(
            start.elapsed() >= Duration::from_secs(2),
            "waited {:?}",
            start.elapsed()
        );
    }

    #[test]
    fn waits_use_full_jitter_below_each_exponential_step() {
        let p = RetryPolicy {
            limits: CallLimits {
                backoff_base: Duration::from_millis(100),
                backoff_max: Duration::from_secs(10),
                max_retries: 3,
                ..CallLimits::default()
            },
        };
        for _ in 0..50 {
            let waits: Vec<Duration> = p.waits().collect();
            assert_eq!(waits.len(), 3);
            for (i, w) in waits.iter().enumerate() {
                assert!(*w <= Duration::from_millis(100 << i), "{i}: {w:?}");
            }
        }
    }
}
