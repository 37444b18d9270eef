//! Rolling a webhook endpoint's secret: during the overlap every delivery carries two
//! signatures and verifies (with the Standard Webhooks library) with the old secret and with
//! the new one; after it, with the new one only. The endpoint, its settings and its delivery
//! log stay as they were.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::helpers::{
    Backend, Received, Receiver, TestApp, created_id, first_error_code, on_both_backends_fn,
};
use crate::merchant_webhooks::fast;

const CREATE: &str = "mutation($input: CreateWebhookEndpointInput!) {
  createWebhookEndpoint(input: $input) { secret endpoint { id } } }";
const ROLL: &str = "mutation($input: RollWebhookEndpointSecretInput!) {
  rollWebhookEndpointSecret(input: $input) {
    secret endpoint { id url eventTypes enabled previousSecretExpiresAt } } }";
const ENDPOINT: &str = "query($id: ID!) { node(id: $id) { ... on WebhookEndpoint {
  previousSecretExpiresAt eventTypes deliveries(first: 100) { edges { node { id } } } } } }";

fn pending(amount: i64) -> Value {
    json!({"amount": amount, "currency": "USD", "source": "tok_visa", "confirm": false})
}

/// Creates a payment and waits for its first delivery.
pub(crate) async fn delivered(
    app: &TestApp,
    key: &str,
    receiver: &Receiver,
    idem: &str,
) -> Received {
    let payment = created_id(app, key, idem, pending(100)).await;
    let of_payment = |r: &Received| r.json()["data"]["payment"]["id"] == payment.as_str();
    let got = receiver.until(|all| all.iter().any(of_payment)).await;
    got.into_iter().find(of_payment).unwrap()
}

/// Registers an endpoint with `input`; returns its id and secret.
async fn endpoint(app: &TestApp, key: &str, input: Value) -> (String, String) {
    let created = app.query(key, CREATE, json!({"input": input})).await;
    let created = &created["createWebhookEndpoint"];
    (
        created["endpoint"]["id"].as_str().unwrap().to_string(),
        created["secret"].as_str().unwrap().to_string(),
    )
}

fn signatures(received: &Received) -> usize {
    received.headers["webhook-signature"]
        .to_str()
        .unwrap()
        .split(' ')
        .count()
}

async fn roll(app: &TestApp, key: &str, id: &str, overlap: i64) -> Value {
    app.query(
        key,
        ROLL,
        json!({"input": {"id": id, "expireOldInSeconds": overlap}}),
    )
    .await["rollWebhookEndpointSecret"]
        .clone()
}

async fn a_rolled_secret_signs_beside_the_new_one_for_the_overlap_then_stops(backend: Backend) {
    let app = TestApp::spawn_with(backend, fast).await;
    let (_, key) = app.account("Acme").await;
    let receiver = Receiver::accepting().await;
    let (id, first_secret) = endpoint(
        &app,
        &key,
        json!({"url": receiver.url, "eventTypes": ["payment.pending"]}),
    )
    .await;
    let before = delivered(&app, &key, &receiver, "p1").await;
    assert_eq!(signatures(&before), 1);
    assert!(before.verifies_with(&first_secret));

    let overlap = Duration::from_secs(8);
    let rolled_at = Instant::now();
    let rolled = roll(&app, &key, &id, 8).await;
    let second_secret = rolled["secret"].as_str().unwrap().to_string();
    assert!(second_secret.starts_with("whsec_") && second_secret != first_secret);
    assert_eq!(rolled["endpoint"]["id"], id.as_str());
    assert_eq!(rolled["endpoint"]["url"], receiver.url.as_str());
    assert_eq!(rolled["endpoint"]["eventTypes"], json!(["payment.pending"]));
    assert_eq!(rolled["endpoint"]["enabled"], true);
    assert!(rolled["endpoint"]["previousSecretExpiresAt"].is_string());

    let during = delivered(&app, &key, &receiver, "p2").await;
    assert!(
        rolled_at.elapsed() < overlap,
        "the delivery came after the overlap; the test cannot tell what it wanted to"
    );
    assert_eq!(signatures(&during), 2);
    assert!(
        during.verifies_with(&second_secret),
        "the new secret verifies"
    );
    assert!(
        during.verifies_with(&first_secret),
        "the old secret verifies during the overlap"
    );

    tokio::time::sleep(overlap.saturating_sub(rolled_at.elapsed()) + Duration::from_millis(300))
        .await;
    let after = delivered(&app, &key, &receiver, "p3").await;
    assert_eq!(signatures(&after), 1);
    assert!(after.verifies_with(&second_secret));
    assert!(
        !after.verifies_with(&first_secret),
        "the old secret is done"
    );
    let node = app.query(&key, ENDPOINT, json!({"id": id})).await["node"].clone();
    assert_eq!(node["previousSecretExpiresAt"], Value::Null);

    // Rolled with no overlap (the default), the old secret stops at once.
    let third_secret = roll(&app, &key, &id, 0).await["secret"]
        .as_str()
        .unwrap()
        .to_string();
    let last = delivered(&app, &key, &receiver, "p4").await;
    assert_eq!(signatures(&last), 1);
    assert!(last.verifies_with(&third_secret));
    assert!(!last.verifies_with(&second_secret));

    // One endpoint throughout: its delivery log holds every delivery, its settings kept.
    let node = app.query(&key, ENDPOINT, json!({"id": id})).await["node"].clone();
    assert_eq!(
        node["deliveries"]["edges"].as_array().unwrap().len(),
        4,
        "{node}"
    );
    assert_eq!(node["eventTypes"], json!(["payment.pending"]));
}

async fn what_cannot_be_rolled_is_refused_and_the_secret_kept(backend: Backend) {
    let app = TestApp::spawn_with(backend, fast).await;
    let (_, key) = app.account("Acme").await;
    let (_, other) = app.account("Globex").await;
    let receiver = Receiver::accepting().await;
    let (id, secret) = endpoint(&app, &key, json!({"url": receiver.url})).await;
    for (credential, input, field) in [
        (
            &key,
            json!({"id": id, "expireOldInSeconds": -1}),
            "input.expireOldInSeconds",
        ),
        (
            &key,
            json!({"id": id, "expireOldInSeconds": 604_801}),
            "input.expireOldInSeconds",
        ),
        (&other, json!({"id": id}), "input.id"),
        (
            &key,
            json!({"id": "we_00000000000000000000000000"}),
            "input.id",
        ),
        (
            &key,
            json!({"id": "pay_00000000000000000000000000"}),
            "input.id",
        ),
    ] {
        let (_, body) = app
            .post(Some(credential), ROLL, json!({"input": input}))
            .await;
        assert_eq!(first_error_code(&body), "BAD_USER_INPUT", "{input}: {body}");
        assert_eq!(body["errors"][0]["extensions"]["field"], field, "{body}");
    }
    let token = app
        .query(
            &key,
            "mutation { createClientToken(input: {scopes: [PAYMENTS_READ, PAYMENTS_WRITE]}) { token } }",
            json!({}),
        )
        .await["createClientToken"]["token"]
        .as_str()
        .unwrap()
        .to_string();
    let (_, body) = app
        .post(Some(&token), ROLL, json!({"input": {"id": id}}))
        .await;
    assert_eq!(first_error_code(&body), "FORBIDDEN", "{body}");
    // The secret is the one it was created with.
    let still = delivered(&app, &key, &receiver, "p1").await;
    assert_eq!(signatures(&still), 1);
    assert!(still.verifies_with(&secret));
    // The longest overlap is accepted.
    let rolled = roll(&app, &key, &id, 604_800).await;
    assert!(rolled["endpoint"]["previousSecretExpiresAt"].is_string());
}

/// An endpoint's event types changed by `updateWebhookEndpoint` are stored, not only
/// answered: read back, they are the new ones.
async fn updated_event_types_are_stored(backend: Backend) {
    let app = TestApp::spawn_with(backend, fast).await;
    let (_, key) = app.account("Acme").await;
    let receiver = Receiver::accepting().await;
    let (id, _) = endpoint(&app, &key, json!({"url": receiver.url})).await;
    app.query(
        &key,
        "mutation($id: ID!) { updateWebhookEndpoint(input: {id: $id, eventTypes: [\"refund.created\"]}) { endpoint { id } } }",
        json!({"id": id}),
    )
    .await;
    let node = app.query(&key, ENDPOINT, json!({"id": id})).await["node"].clone();
    assert_eq!(node["eventTypes"], json!(["refund.created"]));
}

on_both_backends_fn!(
    a_rolled_secret_signs_beside_the_new_one_for_the_overlap_then_stops,
    what_cannot_be_rolled_is_refused_and_the_secret_kept,
    updated_event_types_are_stored,
);
