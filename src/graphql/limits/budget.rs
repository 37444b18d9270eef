//! Each account's query-cost budget: a leaky bucket shared by all the account's keys, which
//! holds up to `capacity` points and refills at `restore_rate` points per second. A request
//! takes its requested cost up front and gets back what its result did not use.
//!
//! Buckets live in this process: with N gateway instances behind a load balancer an account
//! can spend up to N buckets at once, unless the budgets are shared through Redis
//! (`shared_budget`), which falls back to these buckets while Redis cannot be reached.
//!
//! Rate-limiting crates (governor's GCRA, for one) take cells but cannot give unused ones
//! back, nor say how much is left as a number; the refund is what makes a page that returned
//! 3 rows cost 3 rows. The arithmetic is small, and the clock is injectable for tests.
//!
//! Points are counted in millionths, so that each microsecond restores exactly
//! `restore_rate` of them: integers throughout, and refills add up to the same however
//! finely requests cut the time. Each account's bucket has a lock of its own, so accounts
//! never wait for each other; the buckets live in a concurrent cache that forgets one left
//! idle for as long as any bucket takes to fill up again (a full bucket is the same as none).
//! A request keeps the bucket it took from until it settles, so that giving back what its
//! result did not use needs no second look-up.

use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};
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
/// Exists for the tests and benchmarks (feature `test-support`). Idle buckets are still
/// forgotten on the system's time (at the earliest after a minute), which no test waits for.
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

/// Millionths of a point in a point: a microsecond restores `restore_rate` millionths.
const PARTS: i128 = 1_000_000;

/// How long an idle bucket is kept at the least, so that an account sending a request every
/// few seconds keeps its bucket instead of making a new one each time.
const MIN_IDLE: Duration = Duration::from_secs(60);

/// A bucket that takes longer than this to fill up is never forgotten (the cache cannot hold
/// entries for arbitrarily long idle times, and such settings are not for production).
const MAX_IDLE: Duration = Duration::from_secs(24 * 60 * 60);

/// A request holds the bucket it took from at most this long, and settles on it directly;
/// later it looks the account up again. Well within [`MIN_IDLE`]: a bucket accessed less
/// than that long ago is still in the cache, so the one held is the account's.
const HOLD_FOR: Duration = Duration::from_secs(30);

/// One account's bucket.
struct Bucket(Mutex<Level>);

struct Level {
    /// Millionths of a point; below zero while the account is in debt, never below minus
    /// the capacity.
    available: i128,
    /// When `available` was last brought up to date: whole microseconds on the throttle's
    /// clock. Each refill counts the microseconds between two such readings, so the parts of a
    /// microsecond that one reading drops are counted by the next.
    at_micros: u128,
}

/// The bucket a request took its cost from, kept until the request settles, so that what
/// its result did not use goes back without looking the account up a second time.
pub struct Held {
    bucket: Arc<Bucket>,
    /// Read before the bucket was last accessed.
    since: Instant,
}

/// Every account's bucket in this process.
pub struct Throttle {
    settings: ThrottleSettings,
    /// The capacity, in millionths.
    full: i128,
    buckets: moka::sync::Cache<String, Arc<Bucket>>,
    /// Whether idle buckets are forgotten at all (see [`HOLD_FOR`]).
    forgets: bool,
}

impl Throttle {
    pub fn new(settings: ThrottleSettings) -> Self {
        let idle = idle_until_full(&settings);
        let builder = moka::sync::Cache::builder();
        let builder = match idle {
            Some(idle) => builder.time_to_idle(idle.max(MIN_IDLE)),
            None => builder,
        };
        Self {
            full: millionths(settings.capacity),
            buckets: builder.build(),
            forgets: idle.is_some(),
            settings,
        }
    }

    pub fn capacity(&self) -> u64 {
        self.settings.capacity
    }

    /// Takes `cost` points from `account`'s bucket, or says when it will hold them.
    pub fn take(&self, account: &str, cost: u64) -> Result<BudgetStatus, Throttled> {
        self.take_held(account, cost).map(|(status, _)| status)
    }

    /// [`Self::take`], and the bucket, for settling the request on it.
    pub fn take_held(&self, account: &str, cost: u64) -> Result<(BudgetStatus, Held), Throttled> {
        let since = Instant::now();
        let bucket = self.bucket(account);
        let rate = self.settings.restore_rate;
        let status = self
            .with_level(&bucket, |level| {
                let cost = millionths(cost);
                if level.available >= cost {
                    level.available -= cost;
                    return Ok(());
                }
                let missing = (cost - level.available).unsigned_abs();
                let per_second = millionths(rate.max(1)).unsigned_abs();
                Err(u64::try_from(missing.div_ceil(per_second))
                    .unwrap_or(u64::MAX)
                    .max(1))
            })
            .map_err(|(retry_after_seconds, status)| Throttled {
                retry_after_seconds,
                status,
            })?;
        Ok((status, Held { bucket, since }))
    }

    /// Gives back points a request did not use.
    pub fn refund(&self, account: &str, points: u64) -> BudgetStatus {
        self.settled(&self.bucket(account), |level, full| {
            level.available = level.available.saturating_add(millionths(points)).min(full);
        })
    }

    /// [`Self::refund`] to the bucket a request took from.
    pub fn refund_held(&self, account: &str, held: &Held, points: u64) -> BudgetStatus {
        match self.still_held(held) {
            Some(bucket) => self.settled(bucket, |level, full| {
                level.available = level.available.saturating_add(millionths(points)).min(full);
            }),
            None => self.refund(account, points),
        }
    }

    /// Takes points a result used beyond what its request was charged, even below zero:
    /// the account then waits longer before its next request. The debt stops at one full
    /// budget (a request costs at most the capacity, and its result never more than its
    /// request), which also bounds how long a bucket takes to fill up again.
    pub fn force_take(&self, account: &str, points: u64) -> BudgetStatus {
        self.settled(&self.bucket(account), |level, full| {
            level.available = level
                .available
                .saturating_sub(millionths(points))
                .max(-full);
        })
    }

    /// [`Self::force_take`] from the bucket a request took from.
    pub fn force_take_held(&self, account: &str, held: &Held, points: u64) -> BudgetStatus {
        match self.still_held(held) {
            Some(bucket) => self.settled(bucket, |level, full| {
                level.available = level
                    .available
                    .saturating_sub(millionths(points))
                    .max(-full);
            }),
            None => self.force_take(account, points),
        }
    }

    /// The account's budget now.
    pub fn status(&self, account: &str) -> BudgetStatus {
        self.refund(account, 0)
    }

    /// The account's bucket. One per account even when several requests find none at once:
    /// the cache runs one initialisation per key and hands the others its result.
    fn bucket(&self, account: &str) -> Arc<Bucket> {
        self.buckets.get_with_by_ref(account, || {
            Arc::new(Bucket(Mutex::new(Level {
                available: self.full,
                at_micros: self.settings.clock.now().as_micros(),
            })))
        })
    }

    /// The bucket `held`, while the cache surely still has it for its account.
    fn still_held<'h>(&self, held: &'h Held) -> Option<&'h Bucket> {
        (!self.forgets || held.since.elapsed() < HOLD_FOR).then_some(&*held.bucket)
    }

    fn settled(&self, bucket: &Bucket, change: impl FnOnce(&mut Level, i128)) -> BudgetStatus {
        let full = self.full;
        let changed = self.with_level(bucket, |level| {
            change(level, full);
            Ok::<(), ()>(())
        });
        match changed {
            Ok(status) | Err(((), status)) => status,
        }
    }

    /// Brings `bucket` up to date and applies `change`, under the bucket's own lock.
    fn with_level<E>(
        &self,
        bucket: &Bucket,
        change: impl FnOnce(&mut Level) -> Result<(), E>,
    ) -> Result<BudgetStatus, (E, BudgetStatus)> {
        let settings = &self.settings;
        let mut level = bucket.0.lock().unwrap_or_else(PoisonError::into_inner);
        let now = settings.clock.now().as_micros();
        // The clock is read under the lock, so each update starts where the last one ended;
        // `max` keeps that true should a clock ever step back.
        let elapsed = i128::try_from(now.saturating_sub(level.at_micros)).unwrap_or(i128::MAX);
        level.available = level
            .available
            .saturating_add(elapsed.saturating_mul(i128::from(settings.restore_rate)))
            .min(self.full);
        level.at_micros = level.at_micros.max(now);
        let outcome = change(&mut level);
        let status = BudgetStatus {
            maximum_available: settings.capacity,
            currently_available: u64::try_from(level.available.max(0) / PARTS).unwrap_or(u64::MAX),
            restore_rate: settings.restore_rate,
        };
        outcome.map(|()| status).map_err(|e| (e, status))
    }
}

fn millionths(points: u64) -> i128 {
    i128::from(points) * PARTS
}

/// How long a bucket takes to fill up from its lowest (a full budget in debt); `None` when it
/// never does, or only after [`MAX_IDLE`].
fn idle_until_full(settings: &ThrottleSettings) -> Option<Duration> {
    if settings.restore_rate == 0 {
        return None;
    }
    let seconds = (2 * u128::from(settings.capacity)).div_ceil(u128::from(settings.restore_rate));
    let idle = Duration::from_secs(u64::try_from(seconds).ok()?);
    (idle <= MAX_IDLE).then_some(idle)
}

#[cfg(test)]
mod tests;
