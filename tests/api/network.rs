//! The processor over the network: the sandbox as its own HTTP service on loopback, reached
//! through the gateway's HTTP client with timeouts, retries, backoff and a circuit breaker.

use std::collections::HashMap;
use std::time::Duration;

use graphpay::config::Config;
use graphpay::persistence::{Db, sandbox};
use graphpay::sandbox::{SandboxApp, SandboxConfig};
use serde_json::{Value, json};
use tokio::sync::oneshot;

use crate::helpers::{
    Backend, CREATE, SandboxProcess, TestApp, create, create_payload, create_while_unavailable,
    created_id, first_error_code, input, on_both_backends_fn, refund, refund_payload, row_count,
    sandbox_db, status_of,
};

/// A sandbox service running in this process, with its own SQLite database.
struct Sandbox {
    url: String,
    db: Db,
    http: reqwest::Client,
    _stop: oneshot::Sender<()>,
    _dir: tempfile::TempDir,
}

impl Sandbox {
    async fn start() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let config = SandboxConfig {
            listen: "127.0.0.1:0".parse().unwrap(),
            database: sandbox_db(&dir),
            webhooks: None,
        };
        let app = SandboxApp::build(config.clone()).await.unwrap();
        let url = format!("http://{}", app.local_addr());
        let (tx, rx) = oneshot::channel::<()>();
        tokio::spawn(app.run_until(async {
            let _ = rx.await;
        }));
        let db = Db::connect(&config.database).await.unwrap();
        Sandbox {
            url,
            db,
            // The gateway installs the TLS provider when it starts; this client may be the
            // process's first.
            http: {
                graphpay::tls::install_default_provider();
                reqwest::Client::new()
            },
            _stop: tx,
            _dir: dir,
        }
    }

    async fn faults(&self, settings: Value) {
        let status = self
            .http
            .post(format!("{}/_faults", self.url))
            .json(&settings)
            .send()
            .await
            .unwrap()
            .status();
        assert_eq!(status, 204);
    }

    async fn requests(&self) -> u64 {
        let stats: Value = self
            .http
            .get(format!("{}/_stats", self.url))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        stats["requests"].as_u64().unwrap()
    }

    async fn charges(&self) -> u64 {
        sandbox::charge_count(&self.db).await.unwrap()
    }
}

/// A gateway that reaches `processor_url` over HTTP, with short timeouts for tests.
pub(crate) async fn gateway(
    backend: Backend,
    processor_url: &str,
    adjust: impl FnOnce(&mut Config),
) -> TestApp {
    let url = processor_url.to_string();
    TestApp::spawn_with(backend, move |c: &mut Config| {
        c.processor_url = Some(url);
        c.processor_connect_timeout = Duration::from_millis(200);
        c.processor_limits.attempt_timeout = Duration::from_millis(400);
        c.processor_limits.deadline = Duration::from_secs(3);
        c.processor_limits.backoff_base = Duration::from_millis(20);
        c.breaker.cooldown = Duration::from_millis(200);
        adjust(c);
    })
    .await
}

async fn a_flaky_processor_succeeds_after_retries_with_one_charge(backend: Backend) {
    let processor = Sandbox::start().await;
    let app = gateway(backend, &processor.url, |_| {}).await;
    let (_, key) = app.account("Alice").await;
    let paid = create(&app, &key, "f", input(100, "tok_flaky")).await;
    assert_eq!(paid["payment"]["status"], "SUCCEEDED");
    assert_eq!(processor.charges().await, 1);
    assert_eq!(processor.requests().await, 3, "two 503s, then the approval");
    for (source, status) in [
        ("tok_visa", "SUCCEEDED"),
        ("tok_chargeDeclined", "FAILED"),
        ("tok_async", "PROCESSING"),
    ] {
        let made = create(&app, &key, source, input(100, source)).await;
        assert_eq!(made["payment"]["status"], status, "{source}");
    }
    let id = created_id(&app, &key, "r", input(900, "tok_visa")).await;
    let (_, body) = refund(&app, &key, "refund", &id, Some(400)).await;
    assert_eq!(
        refund_payload(&body)["refund"]["status"],
        "SUCCEEDED",
        "{body}"
    );
}

async fn a_processor_that_never_answers_gives_processor_unavailable_then_one_charge(
    backend: Backend,
) {
    let processor = Sandbox::start().await;
    let app = gateway(backend, &processor.url, |c| {
        c.processor_limits.max_retries = 1;
        c.breaker.failure_threshold = 100;
    })
    .await;
    let (_, key) = app.account("Alice").await;
    for _ in 0..2 {
        create_while_unavailable(&app, &key, "t", "tok_timeout").await;
    }
    assert_eq!(
        processor.charges().await,
        1,
        "every attempt carried the same key"
    );
    assert_eq!(
        processor.requests().await,
        4,
        "two requests, each with one retry"
    );
    // Reconciliation asks the processor (over HTTP) what became of it.
    let settings = graphpay::service::reconcile::ReconcileSettings {
        pending_ttl: Duration::ZERO,
        processing_deadline: Duration::ZERO,
    };
    let report = app.payments.reconcile(settings).await.unwrap();
    assert_eq!(report.resolved, 1);
    let done = create(&app, &key, "t", input(100, "tok_timeout")).await;
    assert_eq!(done["payment"]["status"], "SUCCEEDED");
    assert_eq!(processor.charges().await, 1);
}

async fn a_response_lost_after_the_charge_is_found_by_key_on_retry(backend: Backend) {
    let processor = Sandbox::start().await;
    let app = gateway(backend, &processor.url, |_| {}).await;
    let (_, key) = app.account("Alice").await;
    processor.faults(json!({"dropNextResponses": 1})).await;
    let paid = create(&app, &key, "lost", input(2500, "tok_visa")).await;
    assert_eq!(paid["payment"]["status"], "SUCCEEDED");
    assert_eq!(
        processor.requests().await,
        2,
        "the retry after the lost response"
    );
    assert_eq!(processor.charges().await, 1);
}

async fn the_breaker_opens_fails_fast_and_closes_again(backend: Backend) {
    let processor = Sandbox::start().await;
    let app = gateway(backend, &processor.url, |c| {
        c.processor_limits.max_retries = 0;
        c.breaker.failure_threshold = 3;
        c.breaker.cooldown = Duration::from_millis(300);
    })
    .await;
    let (_, key) = app.account("Alice").await;
    processor.faults(json!({"failNextRequests": 1000})).await;
    for i in 0..3 {
        let (_, body) = app
            .post(
                Some(&key),
                CREATE,
                json!({"input": input(100, "tok_visa"), "key": format!("k{i}")}),
            )
            .await;
        assert_eq!(first_error_code(&body), "PROCESSOR_UNAVAILABLE");
    }
    assert_eq!(processor.requests().await, 3);
    let (_, body) = app
        .post(
            Some(&key),
            CREATE,
            json!({"input": input(100, "tok_visa"), "key": "k3"}),
        )
        .await;
    assert_eq!(first_error_code(&body), "PROCESSOR_UNAVAILABLE");
    assert_eq!(
        processor.requests().await,
        3,
        "an open circuit does not call the processor"
    );

    processor.faults(json!({})).await;
    tokio::time::sleep(Duration::from_millis(400)).await;
    let probe = create(&app, &key, "k3", input(100, "tok_visa")).await;
    assert_eq!(
        probe["payment"]["status"], "SUCCEEDED",
        "the half-open probe succeeds"
    );
    for i in 0..3 {
        let paid = create(&app, &key, &format!("k{i}"), input(100, "tok_visa")).await;
        assert_eq!(
            paid["payment"]["status"], "SUCCEEDED",
            "closed again: the earlier keys complete"
        );
    }
    assert_eq!(processor.charges().await, 4);
}

async fn the_sandbox_service_settles_async_payments_by_signed_webhook(backend: Backend) {
    let port = crate::helpers::free_port();
    let dir = tempfile::tempdir().unwrap();
    let config = SandboxConfig {
        listen: "127.0.0.1:0".parse().unwrap(),
        database: sandbox_db(&dir),
        webhooks: Some(graphpay::sandbox::WebhookTarget {
            url: format!("http://127.0.0.1:{port}/webhooks/processor"),
            secret: b"whsec_shared".to_vec(),
            delay: Duration::from_millis(100),
        }),
    };
    let service = SandboxApp::build(config).await.unwrap();
    let url = format!("http://{}", service.local_addr());
    let (_stop, stopped) = oneshot::channel::<()>();
    tokio::spawn(service.run_until(async {
        let _ = stopped.await;
    }));
    let app = gateway(backend, &url, |c| {
        c.listen = format!("127.0.0.1:{port}").parse().unwrap();
        c.webhook_secret = Some("whsec_shared".into());
    })
    .await;
    let (_, key) = app.account("Alice").await;
    let id = created_id(&app, &key, "a", input(700, "tok_async")).await;
    for _ in 0..100 {
        let status = status_of(&app, &key, &id).await["status"].clone();
        if status == "SUCCEEDED" {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the webhook never settled {id}");
}

async fn a_client_that_goes_away_does_not_stop_its_payment_halfway(backend: Backend) {
    let processor = Sandbox::start().await;
    let app = gateway(backend, &processor.url, |_| {}).await;
    let (_, key) = app.account("Alice").await;
    // The processor asks for a 1 s pause before the retry; the client gives up long before.
    processor
        .faults(json!({"failNextRequests": 1, "retryAfterSeconds": 1}))
        .await;
    let impatient = reqwest::Client::builder()
        .timeout(Duration::from_millis(200))
        .build()
        .unwrap();
    let sent = impatient
        .post(format!("{}/graphql", app.address))
        .bearer_auth(&key)
        .json(&json!({"query": CREATE, "variables": {"input": input(100, "tok_visa"), "key": "gone"}}))
        .send()
        .await;
    assert!(sent.is_err(), "the client timed out");
    let record = "{ idempotencyRecord(key: \"gone\") { state payment { status } } }";
    let mut completed = false;
    for _ in 0..100 {
        tokio::time::sleep(Duration::from_millis(50)).await;
        let data = app.query(&key, record, json!({})).await;
        if data["idempotencyRecord"]["state"] == "COMPLETED" {
            assert_eq!(data["idempotencyRecord"]["payment"]["status"], "SUCCEEDED");
            completed = true;
            break;
        }
    }
    assert!(
        completed,
        "the request finished without its client, after the processor's pause"
    );
    let replay = create(&app, &key, "gone", input(100, "tok_visa")).await;
    assert_eq!(replay["replayed"], true);
    assert_eq!(processor.charges().await, 1);
    assert_eq!(
        processor.requests().await,
        2,
        "one refused attempt, one retry after the pause"
    );
}

async fn a_processor_killed_and_restarted_during_a_burst_loses_nothing(backend: Backend) {
    let dir = tempfile::tempdir().unwrap();
    let db = sandbox_db(&dir);
    let port = crate::helpers::free_port();
    let mut processor = SandboxProcess::start(port, &db.url);
    let app = gateway(backend, &format!("http://127.0.0.1:{port}"), |c| {
        c.processor_limits.deadline = Duration::from_secs(1);
    })
    .await;
    let (_, key) = app.account("Alice").await;

    let send = |i: usize| {
        let (address, key) = (app.address.clone(), key.clone());
        async move {
            let body = crate::helpers::post_on_new_connection(
                address,
                key,
                CREATE,
                json!({"input": input(100 + i as i64, "tok_visa"), "key": format!("burst-{i}")}),
            )
            .await;
            (i, body)
        }
    };
    let burst: Vec<_> = (0..100).map(|i| tokio::spawn(send(i))).collect();
    tokio::time::sleep(Duration::from_millis(30)).await;
    processor.kill();
    let mut outcomes: HashMap<usize, Value> = HashMap::new();
    for task in burst {
        let (i, body) = task.await.unwrap();
        outcomes.insert(i, body);
    }
    let failed = outcomes
        .values()
        .filter(|b| b.get("errors").is_some())
        .count();
    assert!(failed > 0, "the kill hit the burst");
    for body in outcomes.values().filter(|b| b.get("errors").is_some()) {
        let code = first_error_code(body);
        assert!(
            code == "PROCESSOR_UNAVAILABLE" || code == "REQUEST_IN_PROGRESS",
            "{body}"
        );
    }

    let _restarted = SandboxProcess::start(port, &db.url);
    // Every client retries with its key until it has an answer.
    let mut ids: HashMap<usize, String> = HashMap::new();
    for round in 0..40 {
        let pending: Vec<usize> = (0..100).filter(|i| !ids.contains_key(i)).collect();
        if pending.is_empty() {
            break;
        }
        let retries: Vec<_> = pending.into_iter().map(|i| tokio::spawn(send(i))).collect();
        for task in retries {
            let (i, body) = task.await.unwrap();
            if let Some(id) = create_payload(&body)["payment"]["id"].as_str() {
                assert_eq!(create_payload(&body)["payment"]["status"], "SUCCEEDED");
                ids.insert(i, id.to_string());
            }
        }
        tokio::time::sleep(Duration::from_millis(50 * (round + 1).min(6))).await;
    }
    assert_eq!(ids.len(), 100, "every request eventually succeeded");
    let distinct: std::collections::HashSet<&String> = ids.values().collect();
    assert_eq!(distinct.len(), 100);
    for (i, body) in &outcomes {
        if let Some(id) = create_payload(body)["payment"]["id"].as_str() {
            assert_eq!(
                ids[i], id,
                "a retry found the payment the first answer named"
            );
        }
    }
    assert_eq!(row_count(&app, "payments").await, 100);
    let sandbox_db = Db::connect(&db).await.unwrap();
    assert_eq!(
        sandbox::charge_count(&sandbox_db).await.unwrap(),
        100,
        "exactly one charge per key"
    );
}

on_both_backends_fn!(
    a_flaky_processor_succeeds_after_retries_with_one_charge,
    a_processor_that_never_answers_gives_processor_unavailable_then_one_charge,
    a_response_lost_after_the_charge_is_found_by_key_on_retry,
    the_breaker_opens_fails_fast_and_closes_again,
    a_processor_killed_and_restarted_during_a_burst_loses_nothing,
    the_sandbox_service_settles_async_payments_by_signed_webhook,
    a_client_that_goes_away_does_not_stop_its_payment_halfway,
);
