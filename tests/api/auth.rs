use serde_json::json;

use std::time::Duration;

use crate::helpers::{Backend, TestApp, first_error_code, on_both_backends, on_both_backends_fn};

const VIEWER: &str = "query Viewer { viewer { id name } }";

on_both_backends! {
    async fn a_valid_key_resolves_to_its_account(app: TestApp) {
        let (account_id, key) = app.account("Acme").await;
        let data = app.query(&key, VIEWER, json!({})).await;
        assert_eq!(data["viewer"]["id"], account_id.as_str());
        assert_eq!(data["viewer"]["name"], "Acme");
    }

    async fn a_missing_key_is_unauthenticated_and_nothing_resolves(app: TestApp) {
        let (status, body) = app.post(None, VIEWER, json!({})).await;
        assert_eq!(status, 401);
        assert_eq!(first_error_code(&body), "UNAUTHENTICATED");
        assert!(body["data"].is_null());
    }

    async fn a_wrong_or_malformed_key_is_unauthenticated(app: TestApp) {
        let (_, key) = app.account("Acme").await;
        let mut wrong = key.clone();
        wrong.pop();
        wrong.push(if key.ends_with('A') { 'B' } else { 'A' });
        for candidate in [wrong.as_str(), "gpk_nope", "", "Bearer"] {
            let (status, body) = app.post(Some(candidate), VIEWER, json!({})).await;
            assert_eq!(status, 401, "{candidate:?}");
            assert_eq!(first_error_code(&body), "UNAUTHENTICATED");
        }
        let response = app
            .http
            .post(format!("{}/graphql", app.address))
            .header("authorization", format!("Basic {key}"))
            .json(&json!({"query": VIEWER}))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 401);
    }

    async fn a_revoked_key_is_unauthenticated_while_other_keys_still_work(app: TestApp) {
        let (account_id, key) = app.account("Acme").await;
        let (second, second_secret) = graphpay::persistence::accounts::create_key(&app.db, &account_id, Default::default())
            .await
            .unwrap()
            .unwrap();
        assert!(graphpay::persistence::accounts::revoke_key(&app.db, &second.id).await.unwrap().is_some());
        let (status, body) = app.post(Some(&second_secret), VIEWER, json!({})).await;
        assert_eq!(status, 401);
        assert_eq!(first_error_code(&body), "UNAUTHENTICATED");
        app.query(&key, VIEWER, json!({})).await;
    }

    async fn keys_are_stored_only_as_hashes(app: TestApp) {
        let (account_id, key) = app.account("Acme").await;
        let keys = graphpay::persistence::accounts::list_keys(&app.db, &account_id).await.unwrap();
        assert_eq!(keys.len(), 1);
        let stored = app.db.query_text("SELECT key_hash FROM api_keys").await.unwrap();
        let key_hash = &stored[0][0];
        assert_ne!(key_hash, &key);
        assert!(!key_hash.contains(&key[4..]));
        assert!(key.starts_with(&keys[0].prefix));
        assert!(keys[0].prefix.len() < 16);
    }
}

/// A key in use is remembered by each instance for half a second; the contract promises that a
/// revoked key stops working on every instance within one second. Both instances have just
/// used the key (so both remember it) when it is revoked; a second later, neither accepts it.
async fn a_key_revoked_while_in_use_stops_working_on_every_instance_within_a_second(
    backend: Backend,
) {
    let first = TestApp::spawn(backend).await;
    let second = first.another_instance().await;
    let (account_id, key) = first.account("Acme").await;
    let (_, other_key) =
        graphpay::persistence::accounts::create_key(&first.db, &account_id, Default::default())
            .await
            .unwrap()
            .unwrap();
    for app in [&first, &second] {
        for _ in 0..3 {
            app.query(&key, VIEWER, json!({})).await;
        }
    }
    let revoked = graphpay::persistence::accounts::revoke_key(&first.db, &key[..12])
        .await
        .unwrap();
    assert!(revoked.is_some());
    tokio::time::sleep(Duration::from_secs(1)).await;
    for app in [&first, &second] {
        let (status, body) = app.post(Some(&key), VIEWER, json!({})).await;
        assert_eq!(status, 401, "{body}");
        assert_eq!(first_error_code(&body), "UNAUTHENTICATED");
        app.query(&other_key, VIEWER, json!({})).await;
    }
}

/// A live key is looked up once and then remembered: more requests with it cost no further
/// key check (the remembering time is an hour here, so a slow machine cannot blur the count).
async fn a_key_in_use_costs_no_database_round_trip_per_request(backend: Backend) {
    let app = TestApp::spawn_with(backend, |c| c.live_key_ttl = Duration::from_secs(3600)).await;
    let (_, key) = app.account("Acme").await;
    app.query(&key, VIEWER, json!({})).await;
    app.statements_settled().await;
    let before = app.server_db.statements_run();
    app.query(&key, VIEWER, json!({})).await;
    let one = app.server_db.statements_run() - before;
    for _ in 0..10 {
        app.query(&key, VIEWER, json!({})).await;
    }
    let eleven = app.server_db.statements_run() - before;
    assert_eq!(one, 1, "the viewer's account only");
    assert_eq!(eleven, 11);
    // A made-up key of the right shape is never remembered: each one is looked up.
    let made_up = format!("gpk_{}", "A".repeat(43));
    for _ in 0..3 {
        let before = app.server_db.statements_run();
        let (status, _) = app.post(Some(&made_up), VIEWER, json!({})).await;
        assert_eq!(status, 401);
        assert_eq!(app.server_db.statements_run() - before, 1);
    }
}

on_both_backends_fn!(
    a_key_revoked_while_in_use_stops_working_on_every_instance_within_a_second,
    a_key_in_use_costs_no_database_round_trip_per_request,
);
