//! `paymentUpdated` over `graphql-transport-ws` at `/graphql/ws`.

use serde_json::json;

use crate::helpers::{
    Backend, CANCEL, TestApp, connect, create, input, next_update, on_both_backends_fn,
    subscribe_synced,
};

async fn a_subscriber_sees_its_own_payments_change(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let (_, key) = app.account("Alice").await;
    let (_, other) = app.account("Bob").await;
    let mut socket = connect(&app, &key).await.unwrap();
    subscribe_synced(&app, &key, &mut socket, None).await;

    create(&app, &other, "bob", input(100, "tok_visa")).await;
    let mine = create(&app, &key, "alice", input(4200, "tok_visa")).await;
    let id = mine["payment"]["id"].as_str().unwrap();
    let first = next_update(&mut socket).await;
    assert_eq!(
        first,
        json!({"id": id, "status": "PROCESSING", "amount": 4200}),
        "Bob's payment never shows"
    );
    let second = next_update(&mut socket).await;
    assert_eq!(
        second,
        json!({"id": id, "status": "SUCCEEDED", "amount": 4200})
    );
}

async fn a_subscription_to_one_payment_sees_only_that_one(backend: Backend) {
    let app = TestApp::quiet(backend).await;
    let (_, key) = app.account("Alice").await;
    let pending = create(&app, &key, "p", serde_json::json!({"amount": 100, "currency": "USD", "source": "tok_visa", "confirm": false})).await;
    let id = pending["payment"]["id"].as_str().unwrap().to_string();
    let mut socket = connect(&app, &key).await.unwrap();
    subscribe_synced(&app, &key, &mut socket, Some(&id)).await;
    create(&app, &key, "other", input(100, "tok_visa")).await;
    app.query(&key, CANCEL, json!({"id": id})).await;
    assert_eq!(
        next_update(&mut socket).await,
        json!({"id": id, "status": "CANCELED", "amount": 100})
    );
}

/// The card lifecycle's statuses reach subscribers like any other: an authorization, its
/// capture, and a customer action answered on the sandbox's page.
async fn a_subscriber_hears_authorizations_captures_and_customer_actions(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let (_, key) = app.account("Alice").await;
    let mut socket = connect(&app, &key).await.unwrap();
    subscribe_synced(&app, &key, &mut socket, None).await;

    let manual = json!({"amount": 700, "currency": "USD", "source": "tok_visa",
        "captureMethod": "MANUAL"});
    let authorized = create(&app, &key, "auth", manual).await;
    let id = authorized["payment"]["id"].as_str().unwrap().to_string();
    app.query(
        &key,
        "mutation($id: ID!) { capturePayment(input: {paymentId: $id}, idempotencyKey: \"c\") { payment { status } } }",
        json!({"id": id}),
    )
    .await;
    for status in ["PROCESSING", "REQUIRES_CAPTURE", "SUCCEEDED"] {
        assert_eq!(
            next_update(&mut socket).await,
            json!({"id": id, "status": status, "amount": 700})
        );
    }

    let (acting, page) = crate::customer_action::needing_action(
        &app,
        &key,
        "3ds",
        "https://shop.example/done",
        false,
    )
    .await;
    let answered = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
        .post(format!("{page}/approve"))
        .send()
        .await
        .unwrap();
    assert_eq!(answered.status(), 303);
    for status in ["PROCESSING", "REQUIRES_ACTION", "PROCESSING", "SUCCEEDED"] {
        assert_eq!(
            next_update(&mut socket).await,
            json!({"id": acting, "status": status, "amount": 1234})
        );
    }
}

async fn a_connection_without_a_valid_key_is_refused(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    assert!(connect(&app, "gpk_wrong").await.is_err());
    let (_, key) = app.account("Alice").await;
    assert!(connect(&app, &key).await.is_ok());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[cfg_attr(
    not(pg_tests),
    ignore = "TEST_DATABASE_URL is not set: PostgreSQL test NOT run"
)]
async fn subscribers_on_one_instance_hear_changes_made_on_another_postgres() {
    let app = TestApp::spawn(Backend::Postgres).await;
    let other = app.another_instance().await;
    let (_, key) = app.account("Alice").await;
    let mut socket = connect(&other, &key).await.unwrap();
    subscribe_synced(&other, &key, &mut socket, None).await;
    let made = create(&app, &key, "x", input(100, "tok_chargeDeclined")).await;
    let id = made["payment"]["id"].as_str().unwrap();
    assert_eq!(next_update(&mut socket).await["status"], "PROCESSING");
    assert_eq!(
        next_update(&mut socket).await,
        json!({"id": id, "status": "FAILED", "amount": 100})
    );
}

/// A change whose payment is too long to announce whole (a processor's long failure message)
/// is still stored and still heard: the announcement then says where to read it.
async fn a_change_too_long_to_announce_whole_still_arrives(backend: Backend) {
    let app = TestApp::quiet(backend).await;
    let (_, key) = app.account("Alice").await;
    let mut socket = connect(&app, &key).await.unwrap();
    subscribe_synced(&app, &key, &mut socket, None).await;
    let made = create(&app, &key, "async", input(700, "tok_async")).await;
    let id = made["payment"]["id"].as_str().unwrap();
    assert_eq!(next_update(&mut socket).await["status"], "PROCESSING");

    let message = "declined ".repeat(1_000);
    let event = json!({
        "id": "evt_long_message",
        "type": "charge.failed",
        "created": graphpay::domain::time::Timestamp::now().micros() / 1_000_000,
        "data": {"idempotencyKey": id, "reference": "ch_long", "failureCode": "card_declined",
                 "failureMessage": message},
    });
    let (status, body) = app.webhook(&event, 0).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        next_update(&mut socket).await,
        json!({"id": id, "status": "FAILED", "amount": 700})
    );
    let stored = app
        .query(
            &key,
            "query($id: ID!) { payment(id: $id) { failureMessage } }",
            json!({"id": id}),
        )
        .await;
    assert_eq!(
        stored["payment"]["failureMessage"].as_str(),
        Some(message.as_str())
    );
}

on_both_backends_fn!(
    a_change_too_long_to_announce_whole_still_arrives,
    a_subscriber_sees_its_own_payments_change,
    a_subscription_to_one_payment_sees_only_that_one,
    a_subscriber_hears_authorizations_captures_and_customer_actions,
    a_connection_without_a_valid_key_is_refused,
);
