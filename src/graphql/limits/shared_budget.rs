//! One budget per account across every gateway instance, kept in Redis.
//!
//! Each request costs one round trip: a Lua script takes its requested cost after refilling
//! the account's bucket by the time elapsed on Redis's own clock (so instances' clocks do not
//! matter), and in the same call applies what this instance's earlier requests of the account
//! gave back or took beyond their charge (kept here meanwhile, and flushed every half second
//! for accounts that send nothing more). Points are counted in thousandths: a millisecond of
//! Redis time restores exactly `restore_rate` of them, integers throughout.
//!
//! When Redis cannot be reached, each instance falls back to its own bucket (the local
//! [`Throttle`]): the outage is logged once at WARN and counted in the metrics, requests are
//! not failed for it, and Redis is tried again a second later; when it answers, the budget is
//! shared again (logged at INFO).

use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use redis::aio::{ConnectionManager, ConnectionManagerConfig};

use super::budget::{BudgetStatus, Throttle, ThrottleSettings, Throttled};
use super::budgets::Hold;

/// The script: `KEYS[1]` the account's bucket; `ARGV`: the capacity and the cost (thousandths
/// of a point), the restore rate (points per second, which is thousandths per millisecond),
/// the signed change to apply first, and the bucket's time to live (ms). Answers whether the
/// cost was taken (as the local bucket does, a cost of 0 is refused while in debt; a flush
/// ignores the answer), and what is left (thousandths; below zero while in debt).
const TAKE: &str = r"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local full = tonumber(ARGV[1])
local cost = tonumber(ARGV[2])
local rate = tonumber(ARGV[3])
local change = tonumber(ARGV[4])
local level = redis.call('HMGET', KEYS[1], 'a', 't')
local avail = tonumber(level[1])
local at = tonumber(level[2])
if avail == nil or at == nil then
  avail = full
  at = now
end
if now > at then
  avail = math.min(full, avail + (now - at) * rate)
  at = now
end
avail = math.max(-full, math.min(full, avail + change))
local ok = 1
if avail >= cost then avail = avail - cost else ok = 0 end
redis.call('HSET', KEYS[1], 'a', string.format('%.0f', avail), 't', string.format('%.0f', at))
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return {ok, avail}
";

/// How long an unanswered call to Redis may take before the request uses the local bucket.
const RESPONSE_TIMEOUT: Duration = Duration::from_millis(250);
/// How long after a failure Redis is left alone (requests use the local bucket meanwhile).
const RETRY_AFTER_FAILURE: Duration = Duration::from_secs(1);
/// How often changes kept for accounts that sent nothing since are flushed.
pub const FLUSH_EVERY: Duration = Duration::from_millis(500);

const KEY_PREFIX: &str = "graphpay:budget:";

/// The largest capacity or restore rate a budget kept in Redis may have (see
/// [`SharedBudget::new`]).
pub const MAX_POINTS: u64 = 1_000_000_000_000;

/// What this instance keeps of an account between two calls to Redis.
#[derive(Default)]
struct AccountState {
    /// Thousandths of a point to give back (or, below zero, to take) with the next call.
    change: AtomicI64,
    /// What Redis last said was left, in points (for refusals made before any call).
    last_available: AtomicI64,
}

pub struct SharedBudget {
    connection: ConnectionManager,
    script: redis::Script,
    capacity: u64,
    restore_rate: u64,
    /// Bucket time to live in Redis: as long as any bucket takes to fill up again.
    ttl_ms: u64,
    accounts: moka::sync::Cache<String, Arc<AccountState>>,
    local: Arc<Throttle>,
    /// When Redis last failed; `None` while it answers.
    failed_at: Mutex<Option<Instant>>,
    /// Whether the current outage was logged.
    warned: AtomicBool,
    /// Whether a request is trying Redis again after a failure.
    probing: AtomicBool,
}

impl SharedBudget {
    /// A budget kept in the Redis at `url` (nothing is connected until the first request),
    /// falling back to a local bucket with `settings`.
    pub fn new(url: &str, settings: ThrottleSettings) -> Result<Self, String> {
        // Redis's Lua counts in doubles: thousandths of a point stay exact integers up to
        // 2^53, so the budget is bounded well within that.
        if settings.capacity > MAX_POINTS || settings.restore_rate > MAX_POINTS {
            return Err(format!(
                "with GRAPHPAY_REDIS_URL, the rate limit's capacity and restore rate are at most \
                 {MAX_POINTS} points"
            ));
        }
        // The URL may hold a password: it is not repeated in the error.
        let client = redis::Client::open(url)
            .map_err(|e| format!("GRAPHPAY_REDIS_URL is not a Redis URL: {:?}", e.kind()))?;
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(RESPONSE_TIMEOUT))
            .set_response_timeout(Some(RESPONSE_TIMEOUT))
            .set_number_of_retries(1);
        let connection = ConnectionManager::new_lazy_with_config(client, config)
            .map_err(|e| format!("redis: {e}"))?;
        let fill_ms = (2 * settings.capacity * 1_000).div_ceil(settings.restore_rate.max(1));
        Ok(Self {
            connection,
            script: redis::Script::new(TAKE),
            capacity: settings.capacity,
            restore_rate: settings.restore_rate,
            ttl_ms: fill_ms.saturating_add(60_000),
            accounts: moka::sync::Cache::builder()
                .max_capacity(100_000)
                .time_to_idle(Duration::from_secs(600))
                .build(),
            local: Arc::new(Throttle::new(settings)),
            failed_at: Mutex::new(None),
            warned: AtomicBool::new(false),
            probing: AtomicBool::new(false),
        })
    }

    pub fn capacity(&self) -> u64 {
        self.capacity
    }

    fn account(&self, account: &str) -> Arc<AccountState> {
        self.accounts.get_with_by_ref(account, || {
            Arc::new(AccountState {
                change: AtomicI64::new(0),
                last_available: AtomicI64::new(i64::try_from(self.capacity).unwrap_or(i64::MAX)),
            })
        })
    }

    fn status(&self, available_points: i64) -> BudgetStatus {
        BudgetStatus {
            maximum_available: self.capacity,
            currently_available: u64::try_from(available_points.max(0)).unwrap_or(0),
            restore_rate: self.restore_rate,
        }
    }

    /// Whether Redis is to be asked now: it answered last time; or it failed long enough ago
    /// to be tried again, and no other request is trying it (the others use the local bucket
    /// meanwhile, so an unresponsive Redis delays one request per retry, not all of them).
    fn redis_usable(&self) -> bool {
        let failed_at = self
            .failed_at
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        match *failed_at {
            None => true,
            Some(at) if at.elapsed() >= RETRY_AFTER_FAILURE => self
                .probing
                .compare_exchange(false, true, Ordering::AcqRel, Ordering::Relaxed)
                .is_ok(),
            Some(_) => false,
        }
    }

    fn redis_failed(&self, err: &redis::RedisError) {
        *self
            .failed_at
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some(Instant::now());
        self.probing.store(false, Ordering::Release);
        crate::metrics::record_budget_fallback();
        if !self.warned.swap(true, Ordering::Relaxed) {
            tracing::warn!(error = %err, "Redis cannot be reached: each instance uses its own budget until it answers");
        }
    }

    fn redis_answered(&self) {
        let mut failed_at = self
            .failed_at
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        self.probing.store(false, Ordering::Release);
        if failed_at.take().is_some() && self.warned.swap(false, Ordering::Relaxed) {
            tracing::info!("Redis answers again: the budget is shared across instances");
        }
    }

    /// One call of the script for `account`: takes `cost` points after applying the change
    /// kept for it. `Ok((taken, available thousandths))`.
    async fn call(
        &self,
        account: &str,
        state: &AccountState,
        cost: u64,
    ) -> redis::RedisResult<(bool, i64)> {
        let change = state.change.swap(0, Ordering::AcqRel);
        let mut connection = self.connection.clone();
        let answer: redis::RedisResult<(i64, i64)> = self
            .script
            .key(format!("{KEY_PREFIX}{account}"))
            .arg(self.capacity.saturating_mul(1_000))
            .arg(cost.saturating_mul(1_000))
            .arg(self.restore_rate)
            .arg(change)
            .arg(self.ttl_ms)
            .invoke_async(&mut connection)
            .await;
        match answer {
            Ok((taken, available)) => {
                state
                    .last_available
                    .store(available.div_euclid(1_000), Ordering::Relaxed);
                Ok((taken == 1, available))
            }
            Err(err) => {
                // Kept for the next call only when the script surely did not run (the
                // connection was refused); after a timeout it may have run, and applying the
                // change twice would hand out budget, so it is dropped.
                if err.is_connection_refusal() {
                    state.change.fetch_add(change, Ordering::AcqRel);
                }
                Err(err)
            }
        }
    }

    /// Takes `cost` points from `account`'s shared bucket, or from this instance's own
    /// while Redis cannot be reached.
    pub async fn take(&self, account: &str, cost: u64) -> Result<(BudgetStatus, Hold), Throttled> {
        if self.redis_usable() {
            let state = self.account(account);
            match self.call(account, &state, cost).await {
                Ok((taken, available)) => {
                    self.redis_answered();
                    crate::metrics::record_budget_check("redis");
                    let status = self.status(available.div_euclid(1_000));
                    if taken {
                        return Ok((status, Hold::Shared));
                    }
                    let missing = i128::from(cost) * 1_000 - i128::from(available);
                    let per_second = i128::from(self.restore_rate.max(1)) * 1_000;
                    let seconds = (missing + per_second - 1) / per_second;
                    return Err(Throttled {
                        retry_after_seconds: u64::try_from(seconds.max(1)).unwrap_or(u64::MAX),
                        status,
                    });
                }
                Err(err) => self.redis_failed(&err),
            }
        }
        crate::metrics::record_budget_check("local");
        self.local
            .take_held(account, cost)
            .map(|(status, held)| (status, Hold::Local(held)))
    }

    /// Settles a request charged `requested` whose result cost `actual`: the difference goes
    /// back (or is taken) with the account's next call to Redis. The status reported is the
    /// one its charge saw, moved by that difference.
    pub fn settle(
        &self,
        account: &str,
        hold: &Hold,
        requested: u64,
        actual: u64,
        at_charge: BudgetStatus,
    ) -> BudgetStatus {
        match hold {
            Hold::Local(held) => {
                super::budgets::settle_local(&self.local, account, held, requested, actual)
            }
            Hold::Shared => {
                let difference = i64::try_from(requested).unwrap_or(i64::MAX)
                    - i64::try_from(actual).unwrap_or(i64::MAX);
                let state = self.account(account);
                state
                    .change
                    .fetch_add(difference.saturating_mul(1_000), Ordering::AcqRel);
                let available = i64::try_from(at_charge.currently_available)
                    .unwrap_or(i64::MAX)
                    .saturating_add(difference)
                    .min(i64::try_from(self.capacity).unwrap_or(i64::MAX));
                self.status(available)
            }
        }
    }

    /// Whether Redis failed and has not answered since.
    fn is_down(&self) -> bool {
        self.failed_at
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .is_some()
    }

    /// The account's budget as last seen, for answers refused before it was asked.
    pub fn last_status(&self, account: &str) -> BudgetStatus {
        if self.is_down() {
            return self.local.status(account);
        }
        let state = self.account(account);
        self.status(state.last_available.load(Ordering::Relaxed))
    }

    /// Sends the changes kept for accounts that made no call since, every [`FLUSH_EVERY`],
    /// until the budget is dropped elsewhere.
    pub async fn flush_forever(self: Arc<Self>) {
        let mut ticks = tokio::time::interval(FLUSH_EVERY);
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            ticks.tick().await;
            if Arc::strong_count(&self) == 1 {
                return;
            }
            // Requests try Redis again after an outage; the flush waits until one did.
            if self.is_down() {
                continue;
            }
            let pending: Vec<_> = self
                .accounts
                .iter()
                .filter(|(_, state)| state.change.load(Ordering::Relaxed) != 0)
                .collect();
            for (account, state) in pending {
                if let Err(err) = self.call(&account, &state, 0).await {
                    self.redis_failed(&err);
                    break;
                }
            }
        }
    }
}
