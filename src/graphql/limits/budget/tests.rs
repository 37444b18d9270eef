//! The bucket's arithmetic, and its accounts under many threads at once.

use std::sync::atomic::{AtomicU64, Ordering};

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

#[test]
fn refills_add_up_exactly_however_finely_the_time_is_cut() {
    let clock = Arc::new(ManualClock::default());
    let throttle = Throttle::new(ThrottleSettings {
        capacity: 10,
        restore_rate: 3,
        clock: clock.clone(),
    });
    throttle.take("a", 10).unwrap();
    // A third of a millisecond at a time, 3,000 times: one second, three points.
    for _ in 0..3_000 {
        clock.advance(Duration::from_nanos(333_334));
        throttle.status("a");
    }
    assert_eq!(throttle.status("a").currently_available, 3);
    assert_eq!(throttle.take("a", 4).unwrap_err().retry_after_seconds, 1);
}

#[test]
fn a_debt_stops_at_one_full_budget() {
    let (throttle, clock) = throttle();
    throttle.take("a", 100).unwrap();
    throttle.force_take("a", 1_000);
    assert_eq!(throttle.take("a", 100).unwrap_err().retry_after_seconds, 20);
    clock.advance(Duration::from_secs(20));
    assert!(throttle.take("a", 100).is_ok());
}

#[test]
fn many_threads_on_one_account_spend_exactly_its_capacity() {
    let (throttle, _) = throttle();
    let taken = AtomicU64::new(0);
    std::thread::scope(|scope| {
        for _ in 0..8 {
            scope.spawn(|| {
                for _ in 0..100 {
                    if throttle.take("a", 1).is_ok() {
                        taken.fetch_add(1, Ordering::Relaxed);
                    }
                }
            });
        }
    });
    // With the clock still, every point is taken once and none twice.
    assert_eq!(taken.load(Ordering::Relaxed), 100);
    assert_eq!(throttle.status("a").currently_available, 0);
}

#[test]
fn many_threads_over_several_accounts_never_spend_more_than_was_restored() {
    const ACCOUNTS: [&str; 3] = ["a", "b", "c"];
    const CAPACITY: u64 = 50;
    const RATE: u64 = 1_000;
    let clock = Arc::new(ManualClock::default());
    let throttle = Throttle::new(ThrottleSettings {
        capacity: CAPACITY,
        restore_rate: RATE,
        clock: clock.clone(),
    });
    let spent: [AtomicU64; 3] = Default::default();
    let refused: [AtomicU64; 3] = Default::default();
    let ticks = 200u64;
    std::thread::scope(|scope| {
        for worker in 0..6usize {
            let (throttle, spent, refused) = (&throttle, &spent, &refused);
            scope.spawn(move || {
                for round in 0..2_000usize {
                    let which = (worker + round) % ACCOUNTS.len();
                    let cost = 1 + (round % 7) as u64;
                    if let Ok((_, held)) = throttle.take_held(ACCOUNTS[which], cost) {
                        // Some requests use less than they were charged, and give it back
                        // to the bucket they hold or by the account's name.
                        let unused = (round % 3) as u64 % cost;
                        if worker % 2 == 0 {
                            throttle.refund_held(ACCOUNTS[which], &held, unused);
                        } else {
                            throttle.refund(ACCOUNTS[which], unused);
                        }
                        spent[which].fetch_add(cost - unused, Ordering::Relaxed);
                    } else {
                        refused[which].fetch_add(1, Ordering::Relaxed);
                    }
                }
            });
        }
        let clock = &clock;
        scope.spawn(move || {
            for _ in 0..ticks {
                clock.advance(Duration::from_millis(1));
                std::thread::yield_now();
            }
        });
    });
    // One point a millisecond, over the 200 ms the clock moved.
    let restored = RATE * ticks / 1_000;
    for (which, account) in ACCOUNTS.iter().enumerate() {
        let spent = spent[which].load(Ordering::Relaxed);
        let left = throttle.status(account).currently_available;
        assert!(
            spent + left <= CAPACITY + restored,
            "{account}: spent {spent} and holds {left} of {CAPACITY} + {restored}"
        );
        assert!(
            refused[which].load(Ordering::Relaxed) > 0,
            "{account} ran out of points"
        );
    }
}
