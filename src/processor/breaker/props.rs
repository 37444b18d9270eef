//! The breaker as a state machine, checked over arbitrary interleavings of admitted, refused,
//! answered and abandoned calls, with a clock the test moves.

use proptest::prelude::*;

use super::*;

const COOLDOWN: Duration = Duration::from_millis(1_000);
const THRESHOLD: u32 = 3;

#[derive(Clone, Debug)]
enum Step {
    /// A call asks to be admitted.
    Admit,
    /// The call at this index (modulo those in flight) answers, healthy or not.
    Answer(usize, bool),
    /// The call at this index is abandoned before it answers: its future is dropped.
    Abandon(usize),
    /// Time passes.
    Wait(u64),
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        4 => Just(Step::Admit),
        3 => (any::<usize>(), any::<bool>()).prop_map(|(i, ok)| Step::Answer(i, ok)),
        1 => any::<usize>().prop_map(Step::Abandon),
        2 => (0u64..1_500).prop_map(Step::Wait),
    ]
}

fn snapshot(b: &Breaker) -> (BreakerState, u64) {
    let inner = b.lock();
    (inner.state, inner.epoch)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Drives the breaker through the guard that [`CircuitBreaker`] uses, on tokio's paused
    /// clock, so that a refusal that built (and dropped) a guard would show as a change.
    #[test]
    fn the_breaker_heals_within_a_cooldown_and_refusals_change_nothing(
        steps in proptest::collection::vec(step(), 1..200)
    ) {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .start_paused(true)
            .build()
            .unwrap();
        runtime.block_on(run(steps))?;
    }
}

async fn run(steps: Vec<Step>) -> Result<(), TestCaseError> {
    let b = Breaker::new(BreakerSettings {
        failure_threshold: THRESHOLD,
        cooldown: COOLDOWN,
    });
    let start = Instant::now();
    let mut in_flight: Vec<Admitted<'_>> = Vec::new();
    let mut last_failure: Option<Instant> = None;
    let is_probe = |call: &Admitted<'_>| call.permit.as_ref().is_some_and(Permit::is_probe);
    for step in steps {
        let now = Instant::now();
        match step {
            Step::Admit => {
                let before = snapshot(&b);
                match b.admitted() {
                    Some(call) => in_flight.push(call),
                    None => {
                        prop_assert_eq!(snapshot(&b), before, "a refused call changed the state");
                        let probing = in_flight.iter().any(is_probe);
                        let cooling = last_failure.is_some_and(|t| now < t + COOLDOWN);
                        prop_assert!(
                            probing || cooling,
                            "refused at {:?} with no probe in flight and no failure within a \
                             cool-down (last at {:?}): {:?}",
                            now - start,
                            last_failure.map(|t| t - start),
                            before.0
                        );
                    }
                }
            }
            Step::Answer(i, healthy) if !in_flight.is_empty() => {
                let call = in_flight.remove(i % in_flight.len());
                if !healthy {
                    last_failure = Some(now);
                }
                call.record(healthy);
            }
            Step::Abandon(i) if !in_flight.is_empty() => {
                // Its future dropped: the guard's `Drop` records a failure.
                drop(in_flight.remove(i % in_flight.len()));
                last_failure = Some(now);
            }
            Step::Answer(..) | Step::Abandon(_) => {}
            Step::Wait(ms) => tokio::time::advance(Duration::from_millis(ms)).await,
        }

        let (state, epoch) = snapshot(&b);
        let probes: Vec<&Admitted<'_>> = in_flight.iter().filter(|c| is_probe(c)).collect();
        prop_assert!(probes.len() <= 1, "{} probes in flight", probes.len());
        let live_probes = probes
            .iter()
            .filter(|c| c.permit.as_ref().is_some_and(|p| p.epoch == epoch))
            .count();
        match state {
            BreakerState::Closed { failures } => {
                prop_assert!(failures < THRESHOLD);
                prop_assert_eq!(live_probes, 0);
            }
            BreakerState::Open { until } => {
                let failed = last_failure.expect("opened only by a failure");
                prop_assert!(
                    until <= failed + COOLDOWN,
                    "open until {:?}, more than a cool-down after the last failure at {:?}",
                    until - start,
                    failed - start
                );
                prop_assert_eq!(live_probes, 0);
            }
            BreakerState::HalfOpen => {
                prop_assert_eq!(live_probes, 1, "half-open with no probe to decide it");
            }
        }
    }
    // What is still in flight is abandoned with the test.
    drop(in_flight);
    Ok(())
}
