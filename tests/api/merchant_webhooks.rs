//! Merchant webhooks, end to end: endpoints managed over GraphQL, payment events delivered
//! to a real receiver on loopback, signed so that the Standard Webhooks library verifies them,
//! retried with the same event id until acknowledged, in order per payment, given up after
//! the (compressed) schedule, kept across a gateway killed mid-way, sent once by two
//! instances, and redelivered on request; private addresses refused by default.

use std::collections::HashMap;
use std::time::Duration;

use graphpay::config::Config;
use graphpay::merchant_webhooks::schedule::RetrySchedule;
use graphpay::merchant_webhooks::worker::DeliverySettings;
use serde_json::{Value, json};

use crate::helpers::{
    Answer, Backend, GatewayProcess, Receiver, TestApp, created_id, error_extension,
    first_error_code, on_both_backends_fn,
};

const CREATE_ENDPOINT: &str = "mutation($input: CreateWebhookEndpointInput!) {
  createWebhookEndpoint(input: $input) { secret endpoint { id url statuses enabled } }
}";

const ENDPOINT: &str = "query($id: ID!) { node(id: $id) { ... on WebhookEndpoint {
  id enabled disabledReason
  deliveries(first: 100) { edges { node {
    id eventId eventType status nextAttemptAt payment { id }
    attempts { statusCode durationMs error }
  } } }
} } }";

const REDELIVER: &str = "mutation($id: ID!) { redeliverWebhook(deliveryId: $id) {
  delivery { id status eventId } } }";

/// Retries compressed from days to moments, and loopback receivers allowed.
pub(crate) fn fast(c: &mut Config) {
    c.deliveries = DeliverySettings::with_attempt_timeout(Duration::from_millis(500));
    c.deliveries.policy.allow_private = true;
    c.deliveries.schedule = RetrySchedule {
        base: Duration::from_millis(20),
        cap: Duration::from_millis(200),
        window: Duration::from_secs(60),
    };
}

async fn gateway(backend: Backend) -> TestApp {
    TestApp::spawn_with(backend, fast).await
}

fn pending(amount: i64) -> Value {
    json!({"amount": amount, "currency": "USD", "source": "tok_visa", "confirm": false})
}

/// Registers `url` (for every status unless `statuses` says otherwise); returns the
/// endpoint's id and secret.
async fn endpoint(app: &TestApp, key: &str, url: &str, statuses: Value) -> (String, String) {
    let created = app
        .query(
            key,
            CREATE_ENDPOINT,
            json!({"input": {"url": url, "statuses": statuses}}),
        )
        .await;
    let created = &created["createWebhookEndpoint"];
    (
        created["endpoint"]["id"].as_str().unwrap().to_string(),
        created["secret"].as_str().unwrap().to_string(),
    )
}

async fn deliveries(app: &TestApp, key: &str, endpoint: &str) -> Value {
    app.query(key, ENDPOINT, json!({"id": endpoint})).await["node"].clone()
}

/// Waits until the endpoint's deliveries satisfy `done`.
async fn until_deliveries(
    app: &TestApp,
    key: &str,
    endpoint: &str,
    done: impl Fn(&Value) -> bool,
) -> Value {
    for _ in 0..600 {
        let node = deliveries(app, key, endpoint).await;
        if done(&node) {
            return node;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!(
        "the deliveries never got there: {}",
        deliveries(app, key, endpoint).await
    );
}

fn statuses_of(node: &Value) -> Vec<String> {
    node["deliveries"]["edges"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["node"]["status"].as_str().unwrap().to_string())
        .collect()
}

async fn a_payment_event_arrives_signed_and_verifies(backend: Backend) {
    let app = gateway(backend).await;
    let (_, key) = app.account("Alice").await;
    let receiver = Receiver::accepting().await;
    let (endpoint_id, secret) = endpoint(&app, &key, &receiver.url, json!([])).await;
    assert!(secret.starts_with("whsec_"), "{secret}");

    let payment = created_id(&app, &key, "p1", pending(1234)).await;
    let got = receiver.until(|r| !r.is_empty()).await;
    let first = &got[0];
    assert!(first.verifies_with(&secret), "the signature verifies");
    assert!(!first.verifies_with("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"));
    let body = first.json();
    assert_eq!(
        body["id"],
        first.id.as_str(),
        "the body's id is the webhook-id"
    );
    assert!(first.id.starts_with("evt_"));
    assert_eq!(body["type"], "payment.pending");
    assert_eq!(body["data"]["payment"]["id"], payment.as_str());
    assert_eq!(body["data"]["payment"]["amount"], 1234);
    assert_eq!(body["data"]["payment"]["status"], "PENDING");
    assert_eq!(body["data"]["payment"]["events"][0]["toStatus"], "PENDING");

    let node = until_deliveries(&app, &key, &endpoint_id, |n| {
        statuses_of(n) == ["SUCCEEDED"]
    })
    .await;
    let delivery = &node["deliveries"]["edges"][0]["node"];
    assert_eq!(delivery["eventId"], first.id.as_str());
    assert_eq!(delivery["eventType"], "payment.pending");
    assert_eq!(delivery["payment"]["id"], payment.as_str());
    assert_eq!(delivery["attempts"][0]["statusCode"], 200);
    assert!(delivery["nextAttemptAt"].is_null());
}

async fn a_receiver_that_fails_twice_gets_the_same_event_three_times(backend: Backend) {
    let app = gateway(backend).await;
    let (_, key) = app.account("Alice").await;
    let receiver = Receiver::start(|_, before| {
        if before < 2 {
            Answer::Status(500)
        } else {
            Answer::Status(200)
        }
    })
    .await;
    let (endpoint_id, secret) = endpoint(&app, &key, &receiver.url, json!([])).await;
    created_id(&app, &key, "p1", pending(100)).await;

    let got = receiver.until(|r| r.len() >= 3).await;
    assert_eq!(got[0].id, got[1].id);
    assert_eq!(got[1].id, got[2].id);
    assert!(got.iter().all(|r| r.verifies_with(&secret)));
    let node = until_deliveries(&app, &key, &endpoint_id, |n| {
        statuses_of(n) == ["SUCCEEDED"]
    })
    .await;
    let codes: Vec<Value> = node["deliveries"]["edges"][0]["node"]["attempts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["statusCode"].clone())
        .collect();
    assert_eq!(codes, vec![json!(500), json!(500), json!(200)]);
    assert_eq!(
        node["deliveries"]["edges"][0]["node"]["attempts"][0]["error"],
        "answered 500"
    );
}

async fn a_later_event_of_a_payment_waits_for_the_earlier_one(backend: Backend) {
    let app = gateway(backend).await;
    let (_, key) = app.account("Alice").await;
    // The first event of every payment is refused three times; the others are accepted.
    let receiver = Receiver::start(|_, _| Answer::Status(200)).await;
    let (_, _) = endpoint(&app, &key, &receiver.url, json!([])).await;
    let first_ids = std::sync::Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let seen = first_ids.clone();
    receiver.answer_with(move |id, before| {
        let mut firsts = seen.lock().unwrap();
        if before == 0 && firsts.is_empty() {
            firsts.push(id.to_string());
        }
        if firsts.first().is_some_and(|f| f == id) && before < 3 {
            Answer::Status(503)
        } else {
            Answer::Status(200)
        }
    });
    let payment = created_id(&app, &key, "p1", pending(100)).await;
    let confirmed = app
        .query(
            &key,
            "mutation($id: ID!) { confirmPayment(paymentId: $id, idempotencyKey: \"c1\") { payment { status } } }",
            json!({"id": payment}),
        )
        .await;
    assert_eq!(
        confirmed["confirmPayment"]["payment"]["status"],
        "SUCCEEDED"
    );
    let got = receiver
        .until(|r| r.iter().filter(|x| x.answered == Some(200)).count() >= 3)
        .await;
    let types: Vec<(String, Option<u16>)> = got
        .iter()
        .map(|r| (r.json()["type"].as_str().unwrap().to_string(), r.answered))
        .collect();
    let pending_ack = types
        .iter()
        .position(|(t, a)| t == "payment.pending" && *a == Some(200))
        .expect("the first event acknowledged");
    assert!(
        types[..pending_ack]
            .iter()
            .all(|(t, _)| t == "payment.pending"),
        "nothing later before the first event was acknowledged: {types:?}"
    );
    let order: Vec<&str> = types
        .iter()
        .filter(|(_, a)| *a == Some(200))
        .map(|(t, _)| t.as_str())
        .collect();
    assert_eq!(
        order,
        ["payment.pending", "payment.processing", "payment.succeeded"]
    );
}

async fn a_receiver_that_never_answers_exhausts_the_schedule_and_its_endpoint_is_disabled(
    backend: Backend,
) {
    let app = TestApp::spawn_with(backend, |c| {
        fast(c);
        c.deliveries.attempt_timeout = Duration::from_millis(200);
        c.deliveries.lease = Duration::from_secs(1);
        c.deliveries.schedule.window = Duration::from_secs(2);
    })
    .await;
    let (_, key) = app.account("Alice").await;
    let receiver = Receiver::start(|_, _| Answer::Hang).await;
    let (endpoint_id, _) = endpoint(&app, &key, &receiver.url, json!([])).await;
    created_id(&app, &key, "p1", pending(100)).await;

    let node = until_deliveries(&app, &key, &endpoint_id, |n| {
        statuses_of(n) == ["FAILED"] && n["enabled"] == false
    })
    .await;
    assert!(
        node["disabledReason"]
            .as_str()
            .unwrap()
            .contains("retry schedule"),
        "{node}"
    );
    let attempts = node["deliveries"]["edges"][0]["node"]["attempts"]
        .as_array()
        .unwrap()
        .clone();
    assert!(
        attempts.len() >= 2,
        "retried before giving up: {attempts:?}"
    );
    assert!(
        attempts.iter().all(
            |a| a["statusCode"].is_null() && a["error"].as_str().unwrap().contains("timed out")
        )
    );

    // A redelivery is refused while the endpoint is disabled.
    let delivery = node["deliveries"]["edges"][0]["node"]["id"]
        .as_str()
        .unwrap();
    let refused = app
        .post(Some(&key), REDELIVER, json!({"id": delivery}))
        .await
        .1;
    assert_eq!(first_error_code(&refused), "BAD_USER_INPUT");
    receiver.answer_with(|_, _| Answer::Status(200));
    let enabled = app
        .query(
            &key,
            "mutation($id: ID!) { updateWebhookEndpoint(input: {id: $id, enabled: true}) {
               endpoint { enabled disabledReason } } }",
            json!({"id": endpoint_id}),
        )
        .await;
    assert_eq!(
        enabled["updateWebhookEndpoint"]["endpoint"],
        json!({"enabled": true, "disabledReason": null})
    );
    // Once enabled again, it hears of later changes.
    created_id(&app, &key, "p3", pending(300)).await;
    let got = receiver
        .until(|r| r.iter().any(|x| x.answered == Some(200)))
        .await;
    let amounts: Vec<Value> = got
        .iter()
        .filter(|r| r.answered == Some(200))
        .map(|r| r.json()["data"]["payment"]["amount"].clone())
        .collect();
    assert_eq!(
        amounts,
        vec![json!(300)],
        "nothing of the time it was disabled"
    );
}

async fn redelivery_sends_the_same_event_again(backend: Backend) {
    let app = gateway(backend).await;
    let (_, key) = app.account("Alice").await;
    let receiver = Receiver::accepting().await;
    let (endpoint_id, secret) = endpoint(&app, &key, &receiver.url, json!([])).await;
    created_id(&app, &key, "p1", pending(100)).await;
    let node = until_deliveries(&app, &key, &endpoint_id, |n| {
        statuses_of(n) == ["SUCCEEDED"]
    })
    .await;
    let delivery = node["deliveries"]["edges"][0]["node"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let redelivered = app.query(&key, REDELIVER, json!({"id": delivery})).await;
    assert_eq!(
        redelivered["redeliverWebhook"]["delivery"]["status"],
        "PENDING"
    );
    let got = receiver.until(|r| r.len() >= 2).await;
    assert_eq!(got[0].id, got[1].id, "the same event id");
    assert_eq!(got[0].body, got[1].body, "the same body");
    assert!(got[1].verifies_with(&secret));
    until_deliveries(&app, &key, &endpoint_id, |n| {
        n["deliveries"]["edges"][0]["node"]["attempts"]
            .as_array()
            .is_some_and(|a| a.len() == 2)
            && statuses_of(n) == ["SUCCEEDED"]
    })
    .await;
}

async fn endpoints_are_managed_per_account(backend: Backend) {
    let app = gateway(backend).await;
    let (_, key) = app.account("Alice").await;
    let (_, other) = app.account("Bob").await;
    let receiver = Receiver::accepting().await;
    let (first, _) = endpoint(&app, &key, &receiver.url, json!(["SUCCEEDED"])).await;
    let (second, _) = endpoint(&app, &key, &format!("{}?b", receiver.url), json!([])).await;

    // A connection, newest first, paged with cursors.
    let page = |after: Value| {
        let app = &app;
        let key = key.clone();
        async move {
            app.query(
                &key,
                "query($after: String) { webhookEndpoints(first: 1, after: $after) {
                   edges { cursor node { id statuses } } pageInfo { hasNextPage hasPreviousPage } } }",
                json!({"after": after}),
            )
            .await["webhookEndpoints"]
                .clone()
        }
    };
    let one = page(Value::Null).await;
    assert_eq!(one["edges"][0]["node"]["id"], second.as_str());
    assert_eq!(
        one["pageInfo"],
        json!({"hasNextPage": true, "hasPreviousPage": false})
    );
    let two = page(one["edges"][0]["cursor"].clone()).await;
    assert_eq!(two["edges"][0]["node"]["id"], first.as_str());
    assert_eq!(two["edges"][0]["node"]["statuses"], json!(["SUCCEEDED"]));
    assert_eq!(
        two["pageInfo"],
        json!({"hasNextPage": false, "hasPreviousPage": true})
    );

    // Another account sees none of it and changes none of it.
    let theirs = app
        .query(
            &other,
            "{ webhookEndpoints { edges { node { id } } } }",
            json!({}),
        )
        .await;
    assert_eq!(theirs["webhookEndpoints"]["edges"], json!([]));
    assert!(deliveries(&app, &other, &first).await.is_null());
    let (_, refused) = app
        .post(
            Some(&other),
            "mutation($id: ID!) { deleteWebhookEndpoint(id: $id) { deletedId } }",
            json!({"id": first}),
        )
        .await;
    assert_eq!(first_error_code(&refused), "BAD_USER_INPUT");

    // Statuses filter what is sent: the first endpoint hears only SUCCEEDED events.
    created_id(
        &app,
        &key,
        "p1",
        json!({"amount": 100, "currency": "USD", "source": "tok_visa"}),
    )
    .await;
    let first_node =
        until_deliveries(&app, &key, &first, |n| statuses_of(n) == ["SUCCEEDED"]).await;
    assert_eq!(
        first_node["deliveries"]["edges"][0]["node"]["eventType"],
        "payment.succeeded"
    );

    let deleted = app
        .query(
            &key,
            "mutation($id: ID!) { deleteWebhookEndpoint(id: $id) { deletedId } }",
            json!({"id": second}),
        )
        .await;
    assert_eq!(
        deleted["deleteWebhookEndpoint"]["deletedId"],
        second.as_str()
    );
    assert!(deliveries(&app, &key, &second).await.is_null());
}

async fn private_and_malformed_urls_are_refused_by_default(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let (_, key) = app.account("Alice").await;
    for url in [
        "http://127.0.0.1:9/hook",
        "http://localhost/hook",
        "http://10.1.2.3/hook",
        "http://169.254.169.254/latest/meta-data",
        "http://[::1]/hook",
        "http://[fd00::1]/hook",
        "ftp://example.com/hook",
        "not a url",
        "https://user:secret@example.com/hook",
    ] {
        let (_, body) = app
            .post(Some(&key), CREATE_ENDPOINT, json!({"input": {"url": url}}))
            .await;
        assert_eq!(first_error_code(&body), "BAD_USER_INPUT", "{url}: {body}");
        assert_eq!(error_extension(&body, "field"), "input.url", "{url}");
    }
    let listed = app
        .query(
            &key,
            "{ webhookEndpoints { edges { node { id } } } }",
            json!({}),
        )
        .await;
    assert_eq!(listed["webhookEndpoints"]["edges"], json!([]));
}

on_both_backends_fn!(
    a_payment_event_arrives_signed_and_verifies,
    a_receiver_that_fails_twice_gets_the_same_event_three_times,
    a_later_event_of_a_payment_waits_for_the_earlier_one,
    a_receiver_that_never_answers_exhausts_the_schedule_and_its_endpoint_is_disabled,
    redelivery_sends_the_same_event_again,
    endpoints_are_managed_per_account,
    private_and_malformed_urls_are_refused_by_default,
);

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[cfg_attr(
    not(pg_tests),
    ignore = "TEST_DATABASE_URL is not set: PostgreSQL test NOT run"
)]
async fn two_instances_never_make_the_same_attempt_twice_postgres() {
    let app = gateway(Backend::Postgres).await;
    let other = app.another_instance().await;
    let (_, key) = app.account("Alice").await;
    // Every event is refused once, then accepted: exactly two requests per event.
    let receiver = Receiver::start(|_, before| {
        if before == 0 {
            Answer::Status(500)
        } else {
            Answer::Status(200)
        }
    })
    .await;
    endpoint(&app, &key, &receiver.url, json!([])).await;
    for n in 0..40 {
        let through = if n % 2 == 0 { &app } else { &other };
        created_id(through, &key, &format!("p{n}"), pending(100 + n)).await;
    }
    let got = receiver
        .until(|r| r.iter().filter(|x| x.answered == Some(200)).count() >= 40)
        .await;
    // Give a second sender a moment to show itself, if there were one.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let got_after = receiver.received();
    assert_eq!(
        got.len(),
        got_after.len(),
        "nothing more after every event was acknowledged"
    );
    let mut per_event: HashMap<String, usize> = HashMap::new();
    for r in &got_after {
        *per_event.entry(r.id.clone()).or_default() += 1;
    }
    assert_eq!(per_event.len(), 40);
    assert!(per_event.values().all(|&n| n == 2), "{per_event:?}");
}

/// A gateway killed while deliveries are pending delivers them once it is started again.
async fn pending_deliveries_survive_a_killed_gateway(backend: Backend) {
    let receiver = Receiver::start(|_, _| Answer::Status(503)).await;
    let own;
    let url = match backend {
        Backend::Sqlite => None,
        Backend::Postgres => {
            let server = crate::helpers::postgres_url();
            let server = server.rsplit_once('/').unwrap().0.to_string();
            own = crate::helpers::OwnDatabase::create(&server).await;
            Some(own.url(&server))
        }
    };
    let mut env = vec![
        ("GRAPHPAY_WEBHOOKS_ALLOW_PRIVATE_ADDRESSES", "1".to_string()),
        ("GRAPHPAY_WEBHOOK_RETRY_BASE_MS", "50".to_string()),
        ("GRAPHPAY_WEBHOOK_RETRY_MAX_DELAY_MS", "200".to_string()),
        ("GRAPHPAY_WEBHOOK_ATTEMPT_TIMEOUT_MS", "500".to_string()),
    ];
    if let Some(url) = &url {
        env.push(("DATABASE_URL", url.clone()));
    }
    let env_refs: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let mut first = GatewayProcess::start(&env_refs);
    let (_, created) = first
        .post(CREATE_ENDPOINT, json!({"input": {"url": receiver.url}}))
        .await;
    let secret = created["data"]["createWebhookEndpoint"]["secret"]
        .as_str()
        .unwrap_or_else(|| panic!("{created}"))
        .to_string();
    let (_, made) = first
        .post(
            crate::helpers::CREATE,
            json!({"key": "k1", "input": pending(777)}),
        )
        .await;
    assert!(made["errors"].is_null(), "{made}");
    receiver.until(|r| !r.is_empty()).await;
    first.kill();

    receiver.answer_with(|_, _| Answer::Status(200));
    let mut env_again = env_refs.clone();
    let database = first.database_url.clone();
    if url.is_none() {
        env_again.push(("DATABASE_URL", database.as_str()));
    }
    let _second = GatewayProcess::start_on_shared_database(&env_again);
    let got = receiver
        .until(|r| r.iter().any(|x| x.answered == Some(200)))
        .await;
    let acknowledged = got.iter().find(|x| x.answered == Some(200)).unwrap();
    assert_eq!(
        acknowledged.id, got[0].id,
        "the same event, after the restart"
    );
    assert!(acknowledged.verifies_with(&secret));
    assert_eq!(acknowledged.json()["data"]["payment"]["amount"], 777);
}

on_both_backends_fn!(pending_deliveries_survive_a_killed_gateway);

/// Every size and count a client controls here is bounded: the URL's length, the
/// description's, the number of endpoints; and a cursor of one list is refused by another.
async fn endpoint_inputs_are_bounded(backend: Backend) {
    let app = gateway(backend).await;
    let (_, key) = app.account("Alice").await;
    let receiver = Receiver::accepting().await;
    let refused = |input: Value| {
        let (app, key) = (&app, key.clone());
        async move {
            let (_, body) = app
                .post(Some(&key), CREATE_ENDPOINT, json!({"input": input}))
                .await;
            (
                first_error_code(&body).to_string(),
                error_extension(&body, "field").clone(),
            )
        }
    };
    let long_url = format!("{}?{}", receiver.url, "a".repeat(3_000));
    assert_eq!(
        refused(json!({"url": long_url})).await,
        ("BAD_USER_INPUT".to_string(), json!("input.url"))
    );
    assert_eq!(
        refused(json!({"url": receiver.url, "description": "d".repeat(501)})).await,
        ("BAD_USER_INPUT".to_string(), json!("input.description"))
    );
    for n in 0..20 {
        endpoint(&app, &key, &format!("{}?n={n}", receiver.url), json!([])).await;
    }
    assert_eq!(
        refused(json!({"url": receiver.url})).await,
        ("BAD_USER_INPUT".to_string(), json!("input.url"))
    );

    // A cursor of one endpoint's deliveries is not a cursor of the endpoint list.
    let listed = app
        .query(
            &key,
            "{ webhookEndpoints(first: 1) { edges { cursor node { id } } } }",
            json!({}),
        )
        .await;
    let endpoint_id = listed["webhookEndpoints"]["edges"][0]["node"]["id"].clone();
    let endpoint_cursor = listed["webhookEndpoints"]["edges"][0]["cursor"].clone();
    let (_, body) = app
        .post(
            Some(&key),
            "query($id: ID!, $after: String) { node(id: $id) { ... on WebhookEndpoint {
               deliveries(after: $after) { edges { cursor } } } } }",
            json!({"id": endpoint_id, "after": endpoint_cursor}),
        )
        .await;
    let code = first_error_code(&body).to_string();
    assert!(
        code == "INVALID_CURSOR" || code == "CURSOR_MISMATCH",
        "{body}"
    );
    let (_, body) = app
        .post(
            Some(&key),
            "{ webhookEndpoints(first: 101) { edges { cursor } } }",
            json!({}),
        )
        .await;
    assert_eq!(first_error_code(&body), "PAGE_SIZE_OUT_OF_RANGE", "{body}");
}

on_both_backends_fn!(endpoint_inputs_are_bounded);
