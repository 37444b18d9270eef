//! Metrics for operators, read from `/metrics` of a gateway run as a process of its own (the
//! recorder is process-wide) and parsed as the Prometheus text format.

use std::collections::{BTreeSet, HashMap};
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use prometheus_parse::{Scrape, Value as Reading};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;

use crate::helpers::{GatewayProcess, OwnDatabase, Socket, create_payload, first_error_code};

const METRICS_ON: (&str, &str) = ("GRAPHPAY_METRICS_LISTEN", "127.0.0.1:0");

async fn scrape(gateway: &GatewayProcess) -> Scrape {
    let address = gateway
        .metrics_address
        .as_ref()
        .expect("metrics are served");
    let response = gateway
        .http
        .get(format!("{address}/metrics"))
        .send()
        .await
        .expect("scraped");
    assert_eq!(response.status(), 200);
    let content_type = response.headers()["content-type"]
        .to_str()
        .unwrap_or_default();
    assert!(
        content_type.starts_with("text/plain; version=0.0.4"),
        "{content_type}"
    );
    let text = response.text().await.expect("a text body");
    Scrape::parse(text.lines().map(|line| Ok(line.to_string()))).expect("the text format")
}

/// The value of the sample of `metric` whose labels are exactly `labels` (a histogram's count).
fn reading(scrape: &Scrape, metric: &str, labels: &[(&str, &str)]) -> Option<f64> {
    let wanted: HashMap<String, String> = labels
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let sample = scrape
        .samples
        .iter()
        .find(|s| s.metric == metric && *s.labels == wanted)?;
    match &sample.value {
        Reading::Counter(v) | Reading::Gauge(v) | Reading::Untyped(v) => Some(*v),
        Reading::Histogram(buckets) => buckets
            .iter()
            .find(|b| b.less_than == f64::INFINITY)
            .map(|b| b.count),
        Reading::Summary(_) => None,
    }
}

/// Every `(operation, code)` pair counted in `graphpay_requests_total`, with its count; the
/// pairs registered at 0 before any request are not counts.
fn requests(scrape: &Scrape) -> HashMap<(String, String), f64> {
    scrape
        .samples
        .iter()
        .filter(|s| s.metric == "graphpay_requests_total")
        .filter_map(|s| {
            let Reading::Counter(v) = s.value else {
                return None;
            };
            if v == 0.0 {
                return None;
            }
            let label = |name| s.labels.get(name).unwrap_or_default().to_string();
            Some(((label("operation"), label("code")), v))
        })
        .collect()
}

fn operations(scrape: &Scrape) -> BTreeSet<String> {
    requests(scrape).into_keys().map(|(op, _)| op).collect()
}

const CREATE: &str = "mutation Pay($input: CreatePaymentInput!, $key: String!) {
    createPayment(input: $input, idempotencyKey: $key) { replayed payment { id status } }
}";

fn payment(amount: i64) -> Value {
    json!({"amount": amount, "currency": "USD", "source": "tok_visa"})
}

/// A `graphql-transport-ws` connection, acknowledged.
async fn subscriptions(gateway: &GatewayProcess) -> Socket {
    let url = format!("{}/graphql/ws", gateway.address.replace("http://", "ws://"));
    let mut request = url.into_client_request().expect("a request");
    request.headers_mut().insert(
        "sec-websocket-protocol",
        "graphql-transport-ws".parse().expect("a header value"),
    );
    let (mut socket, _) = tokio_tungstenite::connect_async(request)
        .await
        .expect("connected");
    let init = json!({"type": "connection_init", "payload": {"Authorization": format!("Bearer {}", gateway.key)}});
    socket.send(Message::text(init.to_string())).await.unwrap();
    assert_eq!(next_message(&mut socket).await["type"], "connection_ack");
    socket
}

async fn next_message(socket: &mut Socket) -> Value {
    loop {
        let message = tokio::time::timeout(Duration::from_secs(10), socket.next())
            .await
            .expect("a message within 10 s")
            .expect("the socket is open")
            .expect("a message");
        if let Message::Text(text) = message {
            return serde_json::from_str(&text).expect("JSON");
        }
    }
}

async fn subscribe(socket: &mut Socket, id: &str, query: &str) {
    let message = json!({"id": id, "type": "subscribe", "payload": {"query": query}});
    socket
        .send(Message::text(message.to_string()))
        .await
        .unwrap();
}

/// Scrapes until `metric{labels}` reads `value` (a subscription's start is counted by the
/// server without telling the client), at most 10 s.
async fn wait_for(gateway: &GatewayProcess, metric: &str, labels: &[(&str, &str)], value: f64) {
    for _ in 0..100 {
        if reading(&scrape(gateway).await, metric, labels) == Some(value) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("{metric}{labels:?} never read {value}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metrics_count_exactly_the_requests_made_and_what_they_decided() {
    let gateway = GatewayProcess::start(&[METRICS_ON, ("DATABASE_MAX_CONNECTIONS", "7")]);

    // Two subscriptions: one starts and waits for events, one is refused.
    let mut socket = subscriptions(&gateway).await;
    subscribe(
        &mut socket,
        "live",
        "subscription { paymentUpdated { id } }",
    )
    .await;
    wait_for(
        &gateway,
        "graphpay_requests_total",
        &[("operation", "paymentUpdated"), ("code", "OK")],
        1.0,
    )
    .await;
    subscribe(
        &mut socket,
        "refused",
        "subscription { paymentUpdated(id: \"nope\") { id } }",
    )
    .await;
    let refused = loop {
        let message = next_message(&mut socket).await;
        if message["id"] == "refused" {
            break message;
        }
    };
    assert_eq!(
        first_error_code(&refused["payload"]),
        "BAD_USER_INPUT",
        "{refused}"
    );

    for _ in 0..5 {
        let (status, body) = gateway
            .post("query Viewer { viewer { id } }", json!({}))
            .await;
        assert_eq!(status, 200, "{body}");
        assert!(body.get("errors").is_none(), "{body}");
    }
    let (status, _) = gateway
        .post_as(Some("gpk_not_a_key"), "{ viewer { id } }", json!({}))
        .await;
    assert_eq!(status, 401);
    let not_json = gateway
        .http
        .post(format!("{}/graphql", gateway.address))
        .bearer_auth(&gateway.key)
        .body("not json")
        .send()
        .await
        .unwrap();
    assert_eq!(not_json.status(), 400);
    let (_, body) = gateway.post("{ viewer { id ", json!({})).await;
    assert_eq!(first_error_code(&body), "GRAPHQL_PARSE_FAILED");

    let first = json!({"input": payment(1500), "key": "order-1"});
    let (_, body) = gateway.post(CREATE, first.clone()).await;
    assert_eq!(create_payload(&body)["replayed"], false, "{body}");
    let (_, body) = gateway.post(CREATE, first).await;
    assert_eq!(create_payload(&body)["replayed"], true, "{body}");
    let (_, body) = gateway
        .post(CREATE, json!({"input": payment(2500), "key": "order-1"}))
        .await;
    assert_eq!(first_error_code(&body), "IDEMPOTENCY_KEY_REUSED");
    let (_, body) = gateway.post("{ viewer { nope } }", json!({})).await;
    assert_eq!(first_error_code(&body), "GRAPHQL_VALIDATION_FAILED");

    let scraped = scrape(&gateway).await;
    let counted = requests(&scraped);
    let expected: HashMap<(String, String), f64> = [
        ("paymentUpdated", "OK", 1.0),
        ("paymentUpdated", "BAD_USER_INPUT", 1.0),
        ("viewer", "OK", 5.0),
        ("unknown", "UNAUTHENTICATED", 1.0),
        ("unknown", "GRAPHQL_PARSE_FAILED", 2.0),
        ("createPayment", "OK", 2.0),
        ("createPayment", "IDEMPOTENCY_KEY_REUSED", 1.0),
        ("viewer", "GRAPHQL_VALIDATION_FAILED", 1.0),
    ]
    .into_iter()
    .map(|(op, code, n)| ((op.to_string(), code.to_string()), n))
    .collect();
    assert_eq!(
        counted, expected,
        "every request counted once, under its label"
    );
    for ((operation, code), n) in &expected {
        let labels = [("operation", operation.as_str()), ("code", code.as_str())];
        assert_eq!(
            reading(&scraped, "graphpay_request_duration_seconds", &labels),
            Some(*n),
            "one duration per request: {labels:?}"
        );
    }

    let one = |metric, labels: &[(&str, &str)]| reading(&scraped, metric, labels);
    assert_eq!(one("graphpay_payments_created_total", &[]), Some(1.0));
    assert_eq!(one("graphpay_idempotency_replays_total", &[]), Some(1.0));
    assert_eq!(
        one(
            "graphpay_idempotency_key_conflicts_total",
            &[("operation", "createPayment")]
        ),
        Some(1.0)
    );
    assert_eq!(
        one(
            "graphpay_processor_attempts_total",
            &[("operation", "charge"), ("outcome", "ok")]
        ),
        Some(1.0),
        "the replay did not call the processor"
    );
    assert_eq!(
        one(
            "graphpay_processor_attempt_duration_seconds",
            &[("operation", "charge")]
        ),
        Some(1.0)
    );
    assert_eq!(
        one(
            "graphpay_processor_retries_total",
            &[("operation", "charge")]
        ),
        Some(0.0),
        "no retry, and the counter is there at 0"
    );

    assert_eq!(one("graphpay_db_pool_max_connections", &[]), Some(7.0));
    let idle = one("graphpay_db_pool_connections", &[("state", "idle")]).expect("idle");
    let in_use = one("graphpay_db_pool_connections", &[("state", "in_use")]).expect("in use");
    assert!(
        idle >= 1.0 && idle + in_use <= 7.0,
        "idle {idle}, in use {in_use}"
    );

    #[cfg(target_os = "linux")]
    {
        let api = gateway
            .address
            .rsplit(':')
            .next()
            .unwrap()
            .parse::<u16>()
            .unwrap();
        let metrics = gateway.metrics_address.as_ref().unwrap();
        let metrics = metrics.rsplit(':').next().unwrap().parse::<u16>().unwrap();
        let mut both = vec![api, metrics];
        both.sort_unstable();
        assert_eq!(gateway.listening_ports(), both);
    }
}

/// The counters the README's metrics table lists.
fn documented_counters() -> Vec<String> {
    let readme = include_str!("../../README.md");
    let counters: Vec<String> = readme
        .lines()
        .filter_map(|line| {
            let mut cells = line.split('|').map(str::trim).skip(1);
            let name = cells
                .next()?
                .strip_prefix("`graphpay_")?
                .strip_suffix('`')?;
            (cells.next()? == "counter").then(|| format!("graphpay_{name}"))
        })
        .collect();
    assert!(
        counters.len() >= 10,
        "the README's table was read: {counters:?}"
    );
    counters
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_documented_counter_is_in_the_first_scrape_at_zero() {
    let gateway = GatewayProcess::start(&[METRICS_ON]);
    let first = scrape(&gateway).await;
    for counter in documented_counters() {
        let samples: Vec<_> = first
            .samples
            .iter()
            .filter(|s| s.metric == counter)
            .collect();
        assert!(!samples.is_empty(), "{counter} is not in the first scrape");
        for sample in samples {
            assert!(
                matches!(sample.value, Reading::Counter(v) if v == 0.0),
                "{counter} {:?}: {:?}",
                sample.labels,
                sample.value
            );
        }
    }
    let zero = |metric, labels: &[(&str, &str)]| reading(&first, metric, labels);
    for operation in ["charge", "refund", "lookup_charge"] {
        for outcome in ["ok", "retryable", "circuit_open", "fatal"] {
            let labels = [("operation", operation), ("outcome", outcome)];
            assert_eq!(
                zero("graphpay_processor_attempts_total", &labels),
                Some(0.0),
                "{labels:?}"
            );
        }
    }
    for operation in [
        "payments",
        "createPayment",
        "refundPayment",
        "paymentUpdated",
        "unknown",
    ] {
        let labels = [("operation", operation), ("code", "OK")];
        assert_eq!(
            zero("graphpay_requests_total", &labels),
            Some(0.0),
            "{labels:?}"
        );
    }
    assert_eq!(
        zero("graphpay_processor_breaker_refused_total", &[]),
        Some(0.0)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_thousand_operation_names_add_at_most_one_operation_label() {
    let gateway = GatewayProcess::start(&[METRICS_ON]);
    let before = operations(&scrape(&gateway).await);

    let statuses: Vec<u16> = futures_util::stream::iter(0..1000)
        .map(|_| {
            let query = format!("query Rand{} {{ viewer {{ id }} }}", rand::random::<u32>());
            let gateway = &gateway;
            async move { gateway.post(&query, json!({})).await.0 }
        })
        .buffer_unordered(16)
        .collect()
        .await;
    assert!(statuses.iter().all(|s| *s == 200));
    let scraped = scrape(&gateway).await;
    let after = operations(&scraped);
    assert!(after.len() <= before.len() + 1, "{before:?} -> {after:?}");
    assert_eq!(
        reading(
            &scraped,
            "graphpay_requests_total",
            &[("operation", "viewer"), ("code", "OK")]
        ),
        Some(1000.0)
    );

    // Root fields the schema lacks, and operation names that are not in the document.
    for _ in 0..100 {
        let n = rand::random::<u32>();
        let (_, body) = gateway
            .post(&format!("query Q{n} {{ field{n} {{ id }} }}"), json!({}))
            .await;
        assert_eq!(first_error_code(&body), "GRAPHQL_VALIDATION_FAILED");
        let named = json!({"query": "query A { viewer { id } }", "operationName": format!("B{n}")});
        gateway
            .http
            .post(format!("{}/graphql", gateway.address))
            .bearer_auth(&gateway.key)
            .json(&named)
            .send()
            .await
            .unwrap();
    }
    let last = operations(&scrape(&gateway).await);
    assert_eq!(
        last.difference(&after).collect::<Vec<_>>(),
        ["unknown"],
        "all of them are `unknown`"
    );
}

/// The runtime's own count of its workers: `--worker-threads` (here through its variable)
/// reaches it, and unset it is one per CPU core (SQLite here, in the process: no database
/// server on this host keeps a core). Counting the process's threads by name would not do:
/// the runtime's blocking threads carry the same name as its workers.
#[tokio::test]
async fn the_runtime_has_as_many_worker_threads_as_asked() {
    let cores = std::thread::available_parallelism().unwrap().get() as f64;
    for (asked, expected) in [(Some("1"), 1.0), (Some("5"), 5.0), (None, cores)] {
        let threads = asked.map(|n| ("GRAPHPAY_WORKER_THREADS", n));
        let env: Vec<_> = [Some(METRICS_ON), threads].into_iter().flatten().collect();
        let gateway = GatewayProcess::start(&env);
        let workers = gateway.metric("graphpay_runtime_worker_threads").await;
        assert_eq!(workers, expected, "{asked:?} worker threads asked");
    }
}

/// PostgreSQL on this host (the test server is at a loopback address) shares the cores, and the
/// default is still one worker thread per core: measured, one core less answered as many pages
/// or fewer, mostly later (`docs/benchmarks/reads.md`).
#[tokio::test]
#[cfg_attr(
    not(pg_tests),
    ignore = "TEST_DATABASE_URL is not set: PostgreSQL test NOT run"
)]
async fn postgresql_on_this_host_leaves_the_default_a_thread_per_core_postgres() {
    let url = crate::helpers::postgres_url();
    let server = url.rsplit_once('/').expect("a URL with a database").0;
    let database = OwnDatabase::create(server).await;
    let url = database.url(server);
    let cores = std::thread::available_parallelism().unwrap().get();
    let gateway = GatewayProcess::start(&[METRICS_ON, ("DATABASE_URL", url.as_str())]);
    let workers = gateway.metric("graphpay_runtime_worker_threads").await;
    assert_eq!(workers, cores as f64, "{url}");
}

#[tokio::test]
async fn without_the_setting_no_metrics_are_served() {
    let gateway = GatewayProcess::start(&[]);
    assert_eq!(gateway.metrics_address, None, "no metrics address printed");
    #[cfg(target_os = "linux")]
    {
        let api = gateway
            .address
            .rsplit(':')
            .next()
            .unwrap()
            .parse::<u16>()
            .unwrap();
        assert_eq!(
            gateway.listening_ports(),
            [api],
            "the API's port and no other"
        );
    }
    let (status, _) = gateway.post("{ viewer { id } }", json!({})).await;
    assert_eq!(status, 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unreachable_processor_shows_as_failed_attempts_retries_and_an_open_breaker() {
    let closed_port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free port")
        .port();
    let processor = format!("http://127.0.0.1:{closed_port}");
    let gateway = GatewayProcess::start(&[
        METRICS_ON,
        ("PROCESSOR_URL", &processor),
        ("PROCESSOR_MAX_RETRIES", "2"),
        ("PROCESSOR_BACKOFF_BASE_MS", "1"),
        ("PROCESSOR_BREAKER_THRESHOLD", "3"),
        ("PROCESSOR_BREAKER_COOLDOWN_MS", "600000"),
    ]);
    let before = scrape(&gateway).await;
    assert_eq!(
        reading(&before, "graphpay_processor_breaker_state", &[]),
        Some(0.0),
        "closed"
    );

    let (_, body) = gateway
        .post(CREATE, json!({"input": payment(100), "key": "down-1"}))
        .await;
    assert_eq!(first_error_code(&body), "PROCESSOR_UNAVAILABLE");
    let scraped = scrape(&gateway).await;
    let charge = |outcome| [("operation", "charge"), ("outcome", outcome)];
    assert_eq!(
        reading(
            &scraped,
            "graphpay_processor_attempts_total",
            &charge("retryable")
        ),
        Some(3.0),
        "one try and two retries"
    );
    assert_eq!(
        reading(
            &scraped,
            "graphpay_processor_retries_total",
            &[("operation", "charge")]
        ),
        Some(2.0)
    );
    assert_eq!(
        reading(&scraped, "graphpay_processor_breaker_state", &[]),
        Some(1.0),
        "open after three failures"
    );

    let (_, body) = gateway
        .post(CREATE, json!({"input": payment(100), "key": "down-2"}))
        .await;
    assert_eq!(first_error_code(&body), "PROCESSOR_UNAVAILABLE");
    let scraped = scrape(&gateway).await;
    assert_eq!(
        reading(
            &scraped,
            "graphpay_processor_attempts_total",
            &charge("circuit_open")
        ),
        Some(1.0),
        "the open circuit fails fast, without retries"
    );
    assert_eq!(
        reading(&scraped, "graphpay_processor_breaker_refused_total", &[]),
        Some(1.0),
        "the refusal is counted"
    );
    assert_eq!(
        reading(
            &scraped,
            "graphpay_requests_total",
            &[
                ("operation", "createPayment"),
                ("code", "PROCESSOR_UNAVAILABLE")
            ]
        ),
        Some(2.0)
    );
}

/// Both document counters: (parsed, validated).
async fn documents_read(gateway: &GatewayProcess) -> (f64, f64) {
    let scrape = scrape(gateway).await;
    let count = |metric| reading(&scrape, metric, &[]).expect("registered at 0");
    (
        count("graphpay_documents_parsed_total"),
        count("graphpay_documents_validated_total"),
    )
}

async fn post_body(gateway: &GatewayProcess, body: &Value) -> Value {
    gateway
        .http
        .post(format!("{}/graphql", gateway.address))
        .bearer_auth(&gateway.key)
        .json(body)
        .send()
        .await
        .expect("sent")
        .json()
        .await
        .expect("JSON")
}

/// A trusted document is parsed and validated once, when the manifest is registered: run by
/// id over POST, GET and the WebSocket, it is neither parsed nor validated again. A text is
/// parsed and validated the first time it comes, not after; a text the rules refuse is
/// parsed once and validated (and refused) every time.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn trusted_documents_are_parsed_and_validated_once_when_registered() {
    const LIST: &str = "72010b78dd49c729b2ea0cacca7bc245";
    let manifest = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/relay/persisted_queries.json"
    );
    let gateway = GatewayProcess::start(&[METRICS_ON, ("GRAPHPAY_TRUSTED_DOCUMENTS", manifest)]);
    assert_eq!(documents_read(&gateway).await, (0.0, 0.0));
    let listed = |answer: &Value| {
        assert!(answer.get("errors").is_none(), "{answer}");
        assert!(
            answer["data"]["payments"]["edges"].is_array(),
            "a page: {answer}"
        );
    };

    let by_id = json!({"documentId": LIST, "variables": {"count": 2}});
    for _ in 0..3 {
        listed(&post_body(&gateway, &by_id).await);
    }
    let got: Value = gateway
        .http
        .get(
            reqwest::Url::parse_with_params(
                &format!("{}/graphql", gateway.address),
                [("documentId", LIST), ("variables", r#"{"count": 2}"#)],
            )
            .expect("a URL"),
        )
        .bearer_auth(&gateway.key)
        .send()
        .await
        .expect("sent")
        .json()
        .await
        .expect("JSON");
    listed(&got);
    let mut socket = subscriptions(&gateway).await;
    let message = json!({"id": "q", "type": "subscribe", "payload": by_id});
    socket
        .send(Message::text(message.to_string()))
        .await
        .unwrap();
    let next = next_message(&mut socket).await;
    assert_eq!(next["type"], "next", "{next}");
    listed(&next["payload"]);
    assert_eq!(
        documents_read(&gateway).await,
        (0.0, 0.0),
        "a trusted document run by id is parsed and validated again"
    );

    let text = serde_json::from_str::<HashMap<String, String>>(
        &std::fs::read_to_string(manifest).expect("the manifest"),
    )
    .expect("a manifest")[LIST]
        .clone();
    let as_text = json!({"query": text, "variables": {"count": 2}});
    for _ in 0..3 {
        listed(&post_body(&gateway, &as_text).await);
    }
    assert_eq!(documents_read(&gateway).await, (1.0, 1.0));
    // Over the WebSocket too: the text the rules passed is neither parsed nor validated again.
    for n in 0..2 {
        let message = json!({"id": format!("t{n}"), "type": "subscribe", "payload": as_text});
        socket
            .send(Message::text(message.to_string()))
            .await
            .unwrap();
        let next = loop {
            let message = next_message(&mut socket).await;
            if message["id"] == format!("t{n}") {
                break message;
            }
        };
        assert_eq!(next["type"], "next", "{next}");
        listed(&next["payload"]);
    }
    assert_eq!(documents_read(&gateway).await, (1.0, 1.0));

    let refused = json!({"query": "query { viewer { nope } }"});
    for round in 1..=2 {
        let answer = post_body(&gateway, &refused).await;
        assert_eq!(first_error_code(&answer), "GRAPHQL_VALIDATION_FAILED");
        assert_eq!(
            documents_read(&gateway).await,
            (2.0, 1.0 + f64::from(round))
        );
    }
}
