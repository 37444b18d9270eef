//! Rolling an API key: a successor issued at once, the old key working beside it for the
//! overlap asked for and refused after it, on every instance; the keys' metadata listed
//! without their secrets; refusals of what cannot be rolled.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::helpers::{Backend, TestApp, first_error_code, on_both_backends, on_both_backends_fn};

const VIEWER: &str = "query { viewer { id } }";
const ROLL: &str = "mutation Roll($input: RollApiKeyInput!) { rollApiKey(input: $input) {
    apiKey key { id prefix live expiresAt } previousKey { id live expiresAt } } }";
const KEYS: &str =
    "query { apiKeys { id prefix scopes createdAt lastUsedAt expiresAt revokedAt live } }";
const MINT: &str = "mutation { createClientToken(input: {scopes: [PAYMENTS_READ]}) { token } }";

/// The id of the account's only key.
async fn key_id(app: &TestApp, key: &str) -> String {
    let data = app.query(key, KEYS, json!({})).await;
    data["apiKeys"][0]["id"].as_str().unwrap().to_string()
}

async fn works(app: &TestApp, credential: &str) -> bool {
    let (status, body) = app.post(Some(credential), VIEWER, json!({})).await;
    match status {
        200 => {
            assert!(body["data"]["viewer"]["id"].is_string(), "{body}");
            true
        }
        401 => {
            assert_eq!(first_error_code(&body), "UNAUTHENTICATED", "{body}");
            false
        }
        other => panic!("unexpected status {other}: {body}"),
    }
}

/// The first error's `extensions.field`.
fn field(body: &Value) -> &str {
    body["errors"][0]["extensions"]["field"]
        .as_str()
        .unwrap_or_default()
}

/// Rolled with an overlap of 4 s on one instance: during it, the old key, the new key and a
/// client token the old key minted all work on both instances; after it, the old key and its
/// token are refused on both, and the new key works.
async fn a_rolled_key_works_beside_its_successor_for_the_overlap_then_stops(backend: Backend) {
    let first = TestApp::spawn(backend).await;
    let second = first.another_instance().await;
    let (_, old) = first.account("Acme").await;
    let old_id = key_id(&first, &old).await;
    let token = first.query(&old, MINT, json!({})).await["createClientToken"]["token"]
        .as_str()
        .unwrap()
        .to_string();
    for app in [&first, &second] {
        assert!(works(app, &old).await);
    }
    let overlap = Duration::from_secs(4);
    let rolled_at = Instant::now();
    let data = first
        .query(
            &old,
            ROLL,
            json!({"input": {"keyId": old_id, "expireOldInSeconds": 4}}),
        )
        .await;
    let roll = &data["rollApiKey"];
    let new = roll["apiKey"].as_str().unwrap().to_string();
    assert_ne!(new, old);
    assert!(new.starts_with(roll["key"]["prefix"].as_str().unwrap()));
    assert_eq!(roll["key"]["live"], true);
    assert_eq!(roll["key"]["expiresAt"], Value::Null);
    assert_eq!(roll["previousKey"]["id"], old_id.as_str());
    assert_eq!(roll["previousKey"]["live"], true);
    assert!(roll["previousKey"]["expiresAt"].is_string());
    for app in [&first, &second] {
        assert!(works(app, &old).await, "the old key during the overlap");
        assert!(works(app, &new).await, "the new key at once");
        assert!(
            works(app, &token).await,
            "the old key's token during the overlap"
        );
    }
    assert!(
        rolled_at.elapsed() < overlap,
        "the checks above took longer than the overlap"
    );
    // After the overlap (and the half second an instance trusts what it looked up).
    tokio::time::sleep(overlap.saturating_sub(rolled_at.elapsed()) + Duration::from_millis(700))
        .await;
    for app in [&first, &second] {
        assert!(!works(app, &old).await, "the old key after the overlap");
        assert!(
            !works(app, &token).await,
            "the old key's token after the overlap"
        );
        assert!(works(app, &new).await, "the new key after the overlap");
    }
    let keys = first.query(&new, KEYS, json!({})).await;
    let listed = keys["apiKeys"].as_array().unwrap();
    assert_eq!(listed.len(), 2);
    assert_eq!(listed[0]["id"], old_id.as_str());
    assert_eq!(listed[0]["live"], false);
    assert_eq!(listed[1]["live"], true);
}

/// Rolled with no overlap (the default), the old key stops on every instance within the
/// second an instance may trust a key it looked up, as revocation does.
async fn a_key_rolled_without_overlap_stops_on_every_instance_within_a_second(backend: Backend) {
    let first = TestApp::spawn(backend).await;
    let second = first.another_instance().await;
    let (_, old) = first.account("Acme").await;
    let old_id = key_id(&first, &old).await;
    for app in [&first, &second] {
        assert!(works(app, &old).await);
    }
    let data = first
        .query(&old, ROLL, json!({"input": {"keyId": old_id}}))
        .await;
    let new = data["rollApiKey"]["apiKey"].as_str().unwrap().to_string();
    assert!(
        !works(&first, &old).await,
        "the instance that rolled it forgets it at once"
    );
    tokio::time::sleep(Duration::from_secs(1)).await;
    for app in [&first, &second] {
        assert!(!works(app, &old).await);
        assert!(works(app, &new).await);
    }
}

on_both_backends_fn!(
    a_rolled_key_works_beside_its_successor_for_the_overlap_then_stops,
    a_key_rolled_without_overlap_stops_on_every_instance_within_a_second,
);

on_both_backends! {
    async fn what_cannot_be_rolled_is_refused_and_changes_nothing(app: TestApp) {
        let (_, key) = app.account("Acme").await;
        let id = key_id(&app, &key).await;
        let (_, other_key) = app.account("Globex").await;
        let other_id = key_id(&app, &other_key).await;
        for (input, expected_field) in [
            (json!({"keyId": id, "expireOldInSeconds": -1}), "input.expireOldInSeconds"),
            (json!({"keyId": id, "expireOldInSeconds": 604_801}), "input.expireOldInSeconds"),
            (json!({"keyId": other_id}), "input.keyId"),
            (json!({"keyId": "key_01J00000000000000000000000"}), "input.keyId"),
            (json!({"keyId": "gpk_not_an_id"}), "input.keyId"),
            (json!({"keyId": ""}), "input.keyId"),
        ] {
            let (_, body) = app.post(Some(&key), ROLL, json!({"input": input})).await;
            assert_eq!(first_error_code(&body), "BAD_USER_INPUT", "{input}: {body}");
            assert_eq!(field(&body), expected_field, "{body}");
            assert!(body["data"]["rollApiKey"].is_null());
        }
        // Nothing changed: each account still has its one key, live and not expiring.
        for credential in [&key, &other_key] {
            let listed = app.query(credential, KEYS, json!({})).await;
            assert_eq!(listed["apiKeys"].as_array().unwrap().len(), 1, "{listed}");
            assert_eq!(listed["apiKeys"][0]["expiresAt"], Value::Null);
            assert_eq!(listed["apiKeys"][0]["live"], true);
        }
        // The longest overlap is accepted; the old key, now expiring, can be rolled again, and
        // its expiry is never pushed later.
        let data = app
            .query(&key, ROLL, json!({"input": {"keyId": id, "expireOldInSeconds": 604_800}}))
            .await;
        let expires = data["rollApiKey"]["previousKey"]["expiresAt"].clone();
        let data = app
            .query(&key, ROLL, json!({"input": {"keyId": id, "expireOldInSeconds": 604_800}}))
            .await;
        assert_eq!(data["rollApiKey"]["previousKey"]["expiresAt"], expires);
        // A revoked key cannot be rolled.
        let newest = data["rollApiKey"]["apiKey"].as_str().unwrap().to_string();
        graphpay::persistence::accounts::revoke_key(&app.db, &id).await.unwrap();
        let (_, body) = app.post(Some(&newest), ROLL, json!({"input": {"keyId": id}})).await;
        assert_eq!(first_error_code(&body), "BAD_USER_INPUT", "{body}");
        assert_eq!(field(&body), "input.keyId");
    }

    async fn the_listing_holds_the_newest_hundred_keys(app: TestApp) {
        let (account, key) = app.account("Acme").await;
        let first = key_id(&app, &key).await;
        let mut newest = String::new();
        for _ in 0..101 {
            let (made, _) = graphpay::persistence::accounts::create_key(&app.db, &account, Default::default())
                .await
                .unwrap()
                .unwrap();
            newest = made.id;
        }
        let listed = app.query(&key, KEYS, json!({})).await;
        let listed = listed["apiKeys"].as_array().unwrap();
        assert_eq!(listed.len(), 100);
        assert_eq!(listed[99]["id"], newest.as_str(), "oldest first, up to the newest");
        assert!(listed.iter().all(|k| k["id"] != first.as_str()), "the oldest left out");
    }

    async fn client_tokens_can_neither_list_nor_roll_keys(app: TestApp) {
        let (_, key) = app.account("Acme").await;
        let id = key_id(&app, &key).await;
        let token = app.query(&key, MINT, json!({})).await["createClientToken"]["token"]
            .as_str()
            .unwrap()
            .to_string();
        for (query, variables) in [
            (KEYS, json!({})),
            (ROLL, json!({"input": {"keyId": id, "expireOldInSeconds": 60}})),
        ] {
            let (_, body) = app.post(Some(&token), query, variables).await;
            assert_eq!(first_error_code(&body), "FORBIDDEN", "{body}");
        }
        let listed = app.query(&key, KEYS, json!({})).await;
        assert_eq!(listed["apiKeys"].as_array().unwrap().len(), 1);
    }

    async fn keys_are_listed_without_their_secrets_with_their_last_use(app: TestApp) {
        let (_, key) = app.account("Acme").await;
        let (_, body) = app.post(Some(&key), KEYS, json!({})).await;
        let text = body.to_string();
        assert!(!text.contains(&key), "the secret is never shown again");
        assert!(!text.contains(&key[12..]));
        let listed = &body["data"]["apiKeys"][0];
        assert!(key.starts_with(listed["prefix"].as_str().unwrap()));
        assert_eq!(listed["scopes"], Value::Null, "an unrestricted key");
        assert_eq!(listed["revokedAt"], Value::Null);
        // The request that listed them was a use of the key, recorded before it ran.
        assert!(listed["lastUsedAt"].is_string(), "{body}");
    }
}

/// A key's use is written at most once a minute: the first request with it writes it, and
/// many more write nothing (the count of statements the gateway ran is the viewer's only).
async fn a_key_in_use_records_its_use_once_a_minute_not_per_request(backend: Backend) {
    let app = TestApp::spawn_with(backend, |c| c.live_key_ttl = Duration::from_secs(3600)).await;
    let (_, key) = app.account("Acme").await;
    let unused = "SELECT id FROM api_keys WHERE last_used_at IS NULL";
    assert_eq!(app.db.query_text(unused).await.unwrap().len(), 1);
    app.query(&key, VIEWER, json!({})).await;
    assert!(app.db.query_text(unused).await.unwrap().is_empty());
    app.statements_settled().await;
    let before = app.server_db.statements_run();
    for _ in 0..20 {
        app.query(&key, VIEWER, json!({})).await;
    }
    assert_eq!(
        app.server_db.statements_run() - before,
        20,
        "one statement per viewer query"
    );
}

on_both_backends_fn!(a_key_in_use_records_its_use_once_a_minute_not_per_request);
