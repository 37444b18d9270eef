//! Tests of `breaker`.

use super::*;

const COOLDOWN: Duration = Duration::from_secs(10);

fn breaker() -> Breaker {
    Breaker::new(BreakerSettings {
        failure_threshold: 3,
        cooldown: COOLDOWN,
    })
}

/// Opens `b` at `t` with three failed calls.
fn open(b: &Breaker, t: Instant) {
    for _ in 0..3 {
        let permit = b.admit(t).expect("closed");
        b.record(permit, false, t);
    }
    assert_eq!(
        b.state(),
        BreakerState::Open {
            until: t + COOLDOWN
        }
    );
}

#[test]
fn opens_after_consecutive_failures_only() {
    let b = breaker();
    let t = Instant::now();
    for healthy in [false, false, true, false, false] {
        let permit = b.admit(t).unwrap();
        b.record(permit, healthy, t);
    }
    assert_eq!(b.state(), BreakerState::Closed { failures: 2 });
    let permit = b.admit(t).unwrap();
    b.record(permit, false, t);
    assert_eq!(
        b.state(),
        BreakerState::Open {
            until: t + COOLDOWN
        }
    );
    assert!(b.admit(t + Duration::from_secs(9)).is_none());
}

#[test]
fn refused_calls_change_nothing_and_the_probe_comes_after_one_cooldown() {
    let b = breaker();
    let t = Instant::now();
    open(&b, t);
    // A busy gateway: a refused call every 100 ms for the whole cool-down.
    for step in 1..100 {
        let now = t + Duration::from_millis(100 * step);
        assert!(b.admit(now).is_none(), "{step}");
        assert_eq!(
            b.state(),
            BreakerState::Open {
                until: t + COOLDOWN
            }
        );
    }
    let probe = b
        .admit(t + COOLDOWN)
        .expect("the probe, right after the cool-down");
    assert!(probe.is_probe());
}

#[test]
fn half_open_lets_one_probe_through_and_closes_on_success() {
    let b = breaker();
    let t = Instant::now();
    open(&b, t);
    let later = t + COOLDOWN;
    let probe = b.admit(later).expect("the probe");
    assert!(b.admit(later).is_none(), "only one probe at a time");
    assert_eq!(b.state(), BreakerState::HalfOpen);
    b.record(probe, true, later);
    assert_eq!(b.state(), BreakerState::Closed { failures: 0 });
    assert!(!b.admit(later).unwrap().is_probe());
}

#[test]
fn a_failed_probe_opens_the_circuit_again() {
    let b = breaker();
    let t = Instant::now();
    open(&b, t);
    let later = t + Duration::from_secs(11);
    let probe = b.admit(later).unwrap();
    b.record(probe, false, later);
    assert_eq!(
        b.state(),
        BreakerState::Open {
            until: later + COOLDOWN
        }
    );
}

#[test]
fn a_call_admitted_before_the_circuit_opened_does_not_decide_the_probe() {
    let b = breaker();
    let t = Instant::now();
    let slow = b.admit(t).unwrap();
    open(&b, t);
    let later = t + COOLDOWN;
    let probe = b.admit(later).unwrap();
    b.record(slow, true, later);
    assert_eq!(b.state(), BreakerState::HalfOpen, "only the probe decides");
    b.record(probe, true, later);
    assert_eq!(b.state(), BreakerState::Closed { failures: 0 });
}

#[tokio::test(start_paused = true)]
async fn a_probe_abandoned_before_it_answers_opens_the_circuit_again() {
    let b = breaker();
    open(&b, Instant::now());
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

#[tokio::test(start_paused = true)]
async fn a_refused_guard_records_nothing() {
    let b = breaker();
    let t = Instant::now();
    open(&b, t);
    for _ in 0..10 {
        tokio::time::advance(Duration::from_millis(100)).await;
        assert!(b.admitted().is_none());
    }
    assert_eq!(
        b.state(),
        BreakerState::Open {
            until: t + COOLDOWN
        }
    );
}
