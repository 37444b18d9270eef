//! The circuit breaker under steady traffic, against `graphpay sandbox` in a process of its
//! own: it heals within one cool-down of the processor's recovery while clients keep retrying,
//! and a processor killed (SIGKILL) and restarted during a burst loses nothing.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::time::{Instant, MissedTickBehavior};

use crate::helpers::{
    Backend, CREATE, SandboxProcess, TestApp, create_payload, first_error_code, free_port, input,
    on_both_backends_fn, post_on_new_connection, row_count, sandbox_charges, sandbox_db,
};
use crate::network::gateway;

const COOLDOWN: Duration = Duration::from_millis(1_000);
/// How often the steady client sends its request.
const INTERVAL: Duration = Duration::from_millis(100);

/// A gateway on `processor` whose breaker opens after three failed attempts for [`COOLDOWN`].
async fn breaker_gateway(backend: Backend, processor: &SandboxProcess) -> TestApp {
    gateway(backend, &processor.url, |c| {
        c.processor_limits.max_retries = 0;
        c.breaker.failure_threshold = 3;
        c.breaker.cooldown = COOLDOWN;
    })
    .await
}

async fn send_create(app: &TestApp, key: &str, idem: &str, amount: i64) -> Value {
    post_on_new_connection(
        app.address.clone(),
        key.to_string(),
        CREATE,
        json!({"input": input(amount, "tok_visa"), "key": idem}),
    )
    .await
}

async fn under_steady_traffic_the_breaker_closes_within_one_cooldown_of_recovery(backend: Backend) {
    let dir = tempfile::tempdir().unwrap();
    let db = sandbox_db(&dir);
    let processor = SandboxProcess::start(free_port(), &db.url);
    let app = breaker_gateway(backend, &processor).await;
    let (_, key) = app.account("Alice").await;

    processor.faults(json!({"failNextRequests": 100_000})).await;
    for i in 0..3 {
        let body = send_create(&app, &key, &format!("open-{i}"), 100).await;
        assert_eq!(first_error_code(&body), "PROCESSOR_UNAVAILABLE", "{body}");
    }
    let opened = processor.requests().await;
    processor.faults(json!({})).await;

    // One client, one key, a request every INTERVAL, as a checkout retrying would. With a
    // breaker whose refusals lengthened the open period, every answer stays
    // PROCESSOR_UNAVAILABLE for as long as the requests keep coming.
    let allowed = (COOLDOWN.as_millis() / INTERVAL.as_millis()) as usize + 1;
    let mut ticks = tokio::time::interval(INTERVAL);
    ticks.set_missed_tick_behavior(MissedTickBehavior::Delay);
    let cleared = Instant::now();
    let mut refused = 0;
    let paid = loop {
        ticks.tick().await;
        let body = send_create(&app, &key, "steady", 4_200).await;
        if let Some(status) = create_payload(&body)["payment"]["status"].as_str() {
            break status.to_string();
        }
        assert_eq!(first_error_code(&body), "PROCESSOR_UNAVAILABLE", "{body}");
        refused += 1;
        assert!(
            refused <= allowed,
            "{refused} requests refused in {:?} after the processor recovered: the breaker \
             should have probed after one cool-down ({COOLDOWN:?}) plus one request interval \
             ({INTERVAL:?}), that is within {allowed} requests",
            cleared.elapsed()
        );
    };
    assert_eq!(paid, "SUCCEEDED");
    assert!(refused > 0, "the circuit was open when the requests began");
    assert_eq!(
        processor.requests().await,
        opened + 1,
        "the open circuit called the processor only for the probe, which charged"
    );
    assert_eq!(sandbox_charges(&db).await, 1);
    let replay = send_create(&app, &key, "steady", 4_200).await;
    assert_eq!(create_payload(&replay)["replayed"], true, "{replay}");
    assert_eq!(sandbox_charges(&db).await, 1, "one charge for the key");
}

async fn a_processor_killed_and_restarted_under_retrying_clients_resolves_every_key(
    backend: Backend,
) {
    const KEYS: usize = 50;
    let dir = tempfile::tempdir().unwrap();
    let db = sandbox_db(&dir);
    let port = free_port();
    let mut processor = SandboxProcess::start(port, &db.url);
    let app = gateway(backend, &processor.url, |c| {
        c.processor_limits.deadline = Duration::from_secs(1);
        c.breaker.failure_threshold = 3;
        c.breaker.cooldown = COOLDOWN;
    })
    .await;
    let (_, key) = app.account("Alice").await;

    // Each client sends its key until it gets a payment, pausing a little between tries (so
    // the gateway sees steady traffic throughout the outage), and reports every answer.
    let errors = Arc::new(AtomicUsize::new(0));
    let client = |i: usize| {
        let (app_address, key, errors) = (app.address.clone(), key.clone(), errors.clone());
        tokio::spawn(async move {
            let give_up = Instant::now() + Duration::from_secs(120);
            let mut answers = Vec::new();
            loop {
                let body = post_on_new_connection(
                    app_address.clone(),
                    key.clone(),
                    CREATE,
                    json!({"input": input(100 + i as i64, "tok_visa"), "key": format!("burst-{i}")}),
                )
                .await;
                let payment = create_payload(&body)["payment"].clone();
                if body.get("errors").is_some() {
                    errors.fetch_add(1, Ordering::SeqCst);
                }
                answers.push(body);
                if payment.is_object() {
                    return (i, Some(payment), answers);
                }
                if Instant::now() >= give_up {
                    return (i, None, answers);
                }
                tokio::time::sleep(Duration::from_millis(50 + (i as u64 % 10) * 10)).await;
            }
        })
    };
    let clients: Vec<_> = (0..KEYS).map(client).collect();
    // Killed as the burst starts: its requests are on their way (each is authenticated and
    // claims its key before it reaches the processor), and a fast processor would otherwise
    // have answered them all before any later moment.
    processor.kill();
    // However slowly the gateway reaches the processor on a busy host, the outage lasts until
    // a client has been answered with an error, and then for longer than a cool-down, so that
    // the circuit opens and refuses calls while the clients keep sending.
    let waiting = Instant::now();
    while errors.load(Ordering::SeqCst) == 0 {
        assert!(
            waiting.elapsed() < Duration::from_secs(60),
            "no client was answered with an error in a minute of the processor's outage"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    tokio::time::sleep(COOLDOWN * 2).await;
    let _restarted = SandboxProcess::start(port, &db.url);

    let mut payments: HashMap<usize, Value> = HashMap::new();
    for task in clients {
        let (i, payment, answers) = task.await.unwrap();
        for body in answers.iter().filter(|b| b.get("errors").is_some()) {
            let code = first_error_code(body);
            assert!(
                code == "PROCESSOR_UNAVAILABLE" || code == "REQUEST_IN_PROGRESS",
                "{body}"
            );
        }
        let payment = payment.unwrap_or_else(|| {
            panic!(
                "key burst-{i} never resolved; its last answer: {}",
                answers.last().unwrap()
            )
        });
        assert_eq!(payment["status"], "SUCCEEDED", "burst-{i}: {payment}");
        payments.insert(i, payment);
    }
    let ids: HashSet<&str> = payments
        .values()
        .map(|p| p["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids.len(), KEYS, "one payment per key");
    assert_eq!(row_count(&app, "payments").await, KEYS as i64);
    assert_eq!(
        sandbox_charges(&db).await,
        KEYS as u64,
        "exactly one charge per key"
    );
}

on_both_backends_fn!(
    under_steady_traffic_the_breaker_closes_within_one_cooldown_of_recovery,
    a_processor_killed_and_restarted_under_retrying_clients_resolves_every_key,
);
