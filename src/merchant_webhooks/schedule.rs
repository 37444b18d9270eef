//! When a failed webhook delivery is tried again: exponential backoff with full jitter, capped,
//! for a limited window after the first attempt (by default about three days), after which the
//! gateway gives up on the event.

use std::time::Duration;

/// The retry schedule of webhook deliveries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RetrySchedule {
    /// The longest wait after the first failed attempt; it doubles with each further failure.
    pub base: Duration,
    /// The longest wait between two attempts.
    pub cap: Duration,
    /// How long after its first attempt an event is still retried.
    pub window: Duration,
}

impl Default for RetrySchedule {
    /// Base 5 s, cap 8 h, window 3 days: quick retries for a blip, then a few a day for about
    /// three days.
    fn default() -> Self {
        Self {
            base: Duration::from_secs(5),
            cap: Duration::from_secs(8 * 60 * 60),
            window: Duration::from_secs(3 * 24 * 60 * 60),
        }
    }
}

impl RetrySchedule {
    /// The wait before the next attempt after `failed_attempts` failures in a row: uniformly
    /// random between zero and `min(cap, base * 2^(failed_attempts - 1))` ("full jitter", so
    /// endpoints recovering from an outage are not hit by every retry at once). Zero failures
    /// count as one. Never overflows, however many failures.
    pub fn delay_after(&self, failed_attempts: u32, rng: &mut impl rand::Rng) -> Duration {
        let ceiling = u64::try_from(self.ceiling(failed_attempts).as_micros()).unwrap_or(u64::MAX);
        Duration::from_micros(rng.random_range(0..=ceiling))
    }

    /// The longest wait after `failed_attempts` failures.
    pub fn ceiling(&self, failed_attempts: u32) -> Duration {
        let doublings = failed_attempts.saturating_sub(1);
        2u32.checked_pow(doublings)
            .and_then(|factor| self.base.checked_mul(factor))
            .map_or(self.cap, |step| step.min(self.cap))
    }

    /// Whether the retry window has passed: the event's first attempt was at
    /// `first_attempt_at_micros` and it is now `now_micros` (both Unix microseconds).
    pub fn gives_up(&self, first_attempt_at_micros: i64, now_micros: i64) -> bool {
        let window = i64::try_from(self.window.as_micros()).unwrap_or(i64::MAX);
        now_micros.saturating_sub(first_attempt_at_micros) >= window
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use rand::SeedableRng;
    use rand::rngs::StdRng;

    const SECOND: i64 = 1_000_000;

    #[test]
    fn ceiling_doubles_from_base_up_to_cap() {
        let s = RetrySchedule::default();
        assert_eq!(s.ceiling(0), Duration::from_secs(5));
        assert_eq!(s.ceiling(1), Duration::from_secs(5));
        assert_eq!(s.ceiling(2), Duration::from_secs(10));
        assert_eq!(s.ceiling(3), Duration::from_secs(20));
        assert_eq!(s.ceiling(13), Duration::from_secs(5 * 4096));
        assert_eq!(s.ceiling(14), s.cap); // 5 s * 8192 > 8 h
        assert_eq!(s.ceiling(32), s.cap);
        assert_eq!(s.ceiling(33), s.cap);
        assert_eq!(s.ceiling(u32::MAX), s.cap);
    }

    #[test]
    fn delays_are_spread_over_the_whole_range() {
        let s = RetrySchedule::default();
        let mut rng = StdRng::seed_from_u64(7);
        let delays: Vec<Duration> = (0..1000).map(|_| s.delay_after(3, &mut rng)).collect();
        let ceiling = Duration::from_secs(20);
        assert!(delays.iter().all(|d| *d <= ceiling));
        assert!(delays.iter().any(|d| *d < Duration::from_secs(2)));
        assert!(delays.iter().any(|d| *d > Duration::from_secs(18)));
    }

    #[test]
    fn a_huge_base_is_capped() {
        let s = RetrySchedule {
            base: Duration::MAX,
            cap: Duration::from_secs(60),
            window: Duration::from_secs(3600),
        };
        let mut rng = StdRng::seed_from_u64(1);
        assert!(s.delay_after(40, &mut rng) <= Duration::from_secs(60));
    }

    #[test]
    fn gives_up_once_the_window_has_passed() {
        let s = RetrySchedule::default();
        let start = 1_700_000_000 * SECOND;
        let window = 3 * 24 * 3600 * SECOND;
        assert!(!s.gives_up(start, start));
        assert!(!s.gives_up(start, start + window - 1));
        assert!(s.gives_up(start, start + window));
        assert!(!s.gives_up(start, start - SECOND)); // clock went back
        assert!(s.gives_up(i64::MIN, i64::MAX));
        assert!(!s.gives_up(i64::MAX, i64::MIN));
    }

    #[test]
    fn default_schedule_makes_a_reasonable_number_of_attempts() {
        // With the expected (mean) delays, about three days holds a few dozen attempts.
        let s = RetrySchedule::default();
        let window = s.window;
        let (mut elapsed, mut attempts) = (Duration::ZERO, 1u32);
        while elapsed < window {
            elapsed += s.ceiling(attempts) / 2;
            attempts += 1;
        }
        assert!((20..=40).contains(&attempts), "{attempts}");
    }

    proptest! {
        #[test]
        fn delays_never_exceed_the_cap(
            failed in any::<u32>(),
            base_ms in 0u64..=u64::MAX / 4,
            cap_ms in 0u64..=u64::MAX / 4,
            seed in any::<u64>(),
        ) {
            let s = RetrySchedule {
                base: Duration::from_millis(base_ms),
                cap: Duration::from_millis(cap_ms),
                window: Duration::from_secs(1),
            };
            let mut rng = StdRng::seed_from_u64(seed);
            let delay = s.delay_after(failed, &mut rng);
            prop_assert!(delay <= s.cap);
            prop_assert!(delay <= s.ceiling(failed));
        }

        #[test]
        fn gives_up_never_overflows(first in any::<i64>(), now in any::<i64>(), secs in any::<u64>()) {
            let s = RetrySchedule { window: Duration::from_secs(secs), ..RetrySchedule::default() };
            let _ = s.gives_up(first, now);
        }
    }
}
