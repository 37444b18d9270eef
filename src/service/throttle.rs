//! Each account's query-cost budget: a leaky bucket shared by all the account's keys, which
//! holds up to `capacity` points and refills at `restore_rate` points per second. A request
//! takes its requested cost up front and gets back what its result did not use.
//!
//! Buckets live in this process: with N gateway instances behind a load balancer an account
//! can spend up to N buckets at once, so operators divide the capacity and rate by N where
//! the budget must hold across instances.
//!
//! Rate-limiting crates (governor's GCRA, for one) take cells but cannot give unused ones
//! back, nor say how much is left as a number; the refund is what makes a page that returned
//! 3 rows cost 3 rows. The arithmetic is small, and the clock is injectable for tests.

use std::collections::HashMap;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Where the bucket reads the time: the system's monotonic clock, or one a test moves.
pub trait Clock: Send + Sync {
    /// Time elapsed since some fixed origin.
    fn now(&self) -> Duration;
}

struct SystemClock(Instant);

impl Clock for SystemClock {
    fn now(&self) -> Duration {
        self.0.elapsed()
    }
}

/// A clock that moves only when told to.
///
/// Exists for the tests and benchmarks (feature `test-support`).
#[cfg(any(test, feature = "test-support"))]
#[derive(Default)]
pub struct ManualClock(Mutex<Duration>);

#[cfg(any(test, feature = "test-support"))]
impl ManualClock {
    pub fn advance(&self, by: Duration) {
        if let Ok(mut now) = self.0.lock() {
            *now += by;
        }
    }
}

#[cfg(any(test, feature = "test-support"))]
impl Clock for ManualClock {
    fn now(&self) -> Duration {
        self.0.lock().map(|now| *now).unwrap_or_default()
    }
}

/// Points in each account's budget by default: two seconds of [`DEFAULT_BUDGET_RESTORE_RATE`],
/// so a burst of twice the sustained rate (or two of the largest requests allowed, 1,000
/// points each) passes at once.
pub const DEFAULT_BUDGET_CAPACITY: u64 = 2_000;

/// Points restored to each budget per second by default. A `createPayment` with a usual
/// selection costs 11-12 points (10 for the mutation, 1 for its payment), so an account
/// sustains about 100 creates a second (Stripe's live-mode rate), while a `totalCount` that
/// counts rows (100 points) runs at most 12 times a second, and the largest document allowed
/// (1,000 points: a page of 100 with nested objects, or an alias bomb that reaches the cost
/// limit) at most once a second beyond the burst.
pub const DEFAULT_BUDGET_RESTORE_RATE: u64 = 1_200;

/// The budget's settings.
#[derive(Clone)]
pub struct ThrottleSettings {
    pub capacity: u64,
    /// Points restored per second.
    pub restore_rate: u64,
    pub clock: Arc<dyn Clock>,
}

impl ThrottleSettings {
    pub fn new(capacity: u64, restore_rate: u64) -> Self {
        Self {
            capacity,
            restore_rate,
            clock: Arc::new(SystemClock(Instant::now())),
        }
    }
}

impl fmt::Debug for ThrottleSettings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ThrottleSettings")
            .field("capacity", &self.capacity)
            .field("restore_rate", &self.restore_rate)
            .finish_non_exhaustive()
    }
}

/// An account's budget as a response reports it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BudgetStatus {
    pub maximum_available: u64,
    pub currently_available: u64,
    pub restore_rate: u64,
}

/// A request that costs more than the account has left.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Throttled {
    /// Seconds until the bucket holds the request's cost.
    pub retry_after_seconds: u64,
    pub status: BudgetStatus,
}

struct Bucket {
    available: f64,
    at: Duration,
}

/// Every account's bucket in this process.
pub struct Throttle {
    settings: ThrottleSettings,
    buckets: Mutex<HashMap<String, Bucket>>,
    /// The clock's second at the last pruning.
    pruned_at: AtomicU64,
}

/// Beyond this many buckets, full ones are dropped (a full bucket is the same as none).
const PRUNE_AT: usize = 10_000;

impl Throttle {
    pub fn new(settings: ThrottleSettings) -> Self {
        Self {
            settings,
            buckets: Mutex::new(HashMap::new()),
            pruned_at: AtomicU64::new(0),
        }
    }

    pub fn capacity(&self) -> u64 {
        self.settings.capacity
    }

    /// Takes `cost` points from `account`'s bucket, or says when it will hold them.
    pub fn take(&self, account: &str, cost: u64) -> Result<BudgetStatus, Throttled> {
        self.with_bucket(account, |bucket, settings| {
            let cost = cost as f64;
            if bucket.available + 1e-9 >= cost {
                bucket.available -= cost;
                Ok(())
            } else {
                let missing = cost - bucket.available;
                let rate = settings.restore_rate.max(1) as f64;
                Err((missing / rate).ceil().max(1.0) as u64)
            }
        })
        .map_err(|(retry_after_seconds, status)| Throttled {
            retry_after_seconds,
            status,
        })
    }

    /// Gives back points a request did not use.
    pub fn refund(&self, account: &str, points: u64) -> BudgetStatus {
        let refunded = self.with_bucket(account, |bucket, settings| {
            bucket.available = (bucket.available + points as f64).min(settings.capacity as f64);
            Ok::<(), ()>(())
        });
        match refunded {
            Ok(status) | Err(((), status)) => status,
        }
    }

    /// Takes points a result used beyond what its request was charged, even below zero:
    /// the account then waits longer before its next request.
    pub fn force_take(&self, account: &str, points: u64) -> BudgetStatus {
        let taken = self.with_bucket(account, |bucket, _| {
            bucket.available -= points as f64;
            Ok::<(), ()>(())
        });
        match taken {
            Ok(status) | Err(((), status)) => status,
        }
    }

    /// The account's budget now.
    pub fn status(&self, account: &str) -> BudgetStatus {
        self.refund(account, 0)
    }

    fn with_bucket<E>(
        &self,
        account: &str,
        change: impl FnOnce(&mut Bucket, &ThrottleSettings) -> Result<(), E>,
    ) -> Result<BudgetStatus, (E, BudgetStatus)> {
        let settings = &self.settings;
        let now = settings.clock.now();
        let capacity = settings.capacity as f64;
        let mut buckets = self.buckets.lock().unwrap_or_else(|p| p.into_inner());
        // Pruning scans every bucket, so it runs at most once a second however many there are.
        if buckets.len() >= PRUNE_AT && now.as_secs() > self.pruned_at.load(Ordering::Relaxed) {
            self.pruned_at.store(now.as_secs(), Ordering::Relaxed);
            buckets
                .retain(|_, b| b.available + refill(settings, now.saturating_sub(b.at)) < capacity);
        }
        let bucket = buckets.entry(account.to_string()).or_insert(Bucket {
            available: capacity,
            at: now,
        });
        bucket.available =
            (bucket.available + refill(settings, now.saturating_sub(bucket.at))).min(capacity);
        bucket.at = now;
        let outcome = change(bucket, settings);
        let status = BudgetStatus {
            maximum_available: settings.capacity,
            currently_available: bucket.available.max(0.0).floor() as u64,
            restore_rate: settings.restore_rate,
        };
        outcome.map(|()| status).map_err(|e| (e, status))
    }
}

fn refill(settings: &ThrottleSettings, elapsed: Duration) -> f64 {
    elapsed.as_secs_f64() * settings.restore_rate as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn throttle() -> (Throttle, Arc<ManualClock>) {
        let clock = Arc::new(ManualClock::default());
        let settings = ThrottleSettings {
            capacity: 100,
            restore_rate: 10,
            clock: clock.clone(),
        };
        (Throttle::new(settings), clock)
    }

    #[test]
    fn a_full_bucket_pays_for_requests_until_it_is_empty() {
        let (throttle, _) = throttle();
        assert_eq!(throttle.take("a", 60).unwrap().currently_available, 40);
        let refused = throttle.take("a", 60).unwrap_err();
        assert_eq!(refused.retry_after_seconds, 2);
        assert_eq!(refused.status.currently_available, 40);
    }

    #[test]
    fn the_bucket_refills_at_the_restore_rate_up_to_its_capacity() {
        let (throttle, clock) = throttle();
        throttle.take("a", 100).unwrap();
        clock.advance(Duration::from_millis(2_500));
        assert_eq!(throttle.status("a").currently_available, 25);
        clock.advance(Duration::from_secs(3_600));
        assert_eq!(throttle.status("a").currently_available, 100);
    }

    #[test]
    fn unused_points_are_given_back() {
        let (throttle, _) = throttle();
        throttle.take("a", 80).unwrap();
        assert_eq!(throttle.refund("a", 70).currently_available, 90);
        assert_eq!(throttle.refund("a", 70).currently_available, 100);
    }

    #[test]
    fn a_result_beyond_its_charge_puts_the_account_in_debt() {
        let (throttle, clock) = throttle();
        throttle.take("a", 90).unwrap();
        assert_eq!(throttle.force_take("a", 30).currently_available, 0);
        // 20 points in debt: 3 s until the 10 points a request needs are there.
        assert_eq!(throttle.take("a", 10).unwrap_err().retry_after_seconds, 3);
        clock.advance(Duration::from_secs(3));
        assert!(throttle.take("a", 10).is_ok());
    }

    #[test]
    fn accounts_have_buckets_of_their_own() {
        let (throttle, _) = throttle();
        throttle.take("a", 100).unwrap();
        assert!(throttle.take("a", 1).is_err());
        assert_eq!(throttle.take("b", 100).unwrap().currently_available, 0);
    }
}
