//! Rotating the gateway's signing secret on two instances: cursors and client tokens made
//! before a secret is added keep working after it (cursors from before secrets had ids too),
//! new ones are signed with the new secret once it has settled, and everything the old secret
//! signed stops working everywhere when it is retired.

use std::time::{Duration, Instant};

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use graphpay::domain::cursor::CursorCodec;
use graphpay::persistence::signing_keys::{self, RetireRefused};
use graphpay::service::signing_keys::KeyringSettings;
use serde_json::{Value, json};

use crate::helpers::{Backend, TestApp, created_id, first_error_code, on_both_backends_fn};

const FIRST: &str = "query { payments(first: 1) { pageInfo { endCursor } } }";
const AFTER: &str = "query($after: String) { payments(first: 1, after: $after) { nodes { id } } }";
const MINT: &str = "mutation { createClientToken(input: {scopes: [PAYMENTS_READ]}) { token } }";
const VIEWER: &str = "query { viewer { id } }";

fn quick(c: &mut graphpay::config::Config) {
    c.signing_keys = KeyringSettings {
        refresh: Duration::from_millis(100),
        activation: Duration::from_millis(800),
    };
}

/// The key id a cursor carries.
fn kid_of_cursor(cursor: &str) -> u16 {
    let bytes = URL_SAFE_NO_PAD.decode(cursor).unwrap();
    u16::from_be_bytes([bytes[1], bytes[2]])
}

/// The key id a client token carries.
fn kid_of_token(token: &str) -> u64 {
    let payload = token.trim_start_matches("gpct_").split('.').next().unwrap();
    let claims: Value = serde_json::from_slice(&URL_SAFE_NO_PAD.decode(payload).unwrap()).unwrap();
    claims["i"].as_u64().unwrap()
}

async fn cursor(app: &TestApp, key: &str) -> String {
    app.query(key, FIRST, json!({})).await["payments"]["pageInfo"]["endCursor"]
        .as_str()
        .unwrap()
        .to_string()
}

async fn token(app: &TestApp, key: &str) -> String {
    app.query(key, MINT, json!({})).await["createClientToken"]["token"]
        .as_str()
        .unwrap()
        .to_string()
}

/// `None` when the cursor is accepted, else the error code.
async fn refusal(app: &TestApp, key: &str, cursor: &str) -> Option<String> {
    let (_, body) = app.post(Some(key), AFTER, json!({"after": cursor})).await;
    if body.get("errors").is_some() {
        return Some(first_error_code(&body));
    }
    assert_eq!(
        body["data"]["payments"]["nodes"].as_array().unwrap().len(),
        1,
        "{body}"
    );
    None
}

async fn token_works(app: &TestApp, token: &str) -> bool {
    let (status, body) = app.post(Some(token), VIEWER, json!({})).await;
    match status {
        200 => true,
        401 => {
            assert_eq!(first_error_code(&body), "UNAUTHENTICATED");
            false
        }
        other => panic!("{other}: {body}"),
    }
}

async fn until(what: &str, mut done: impl AsyncFnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(15);
    while !done().await {
        assert!(Instant::now() < deadline, "never: {what}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

async fn a_secret_added_then_the_old_one_retired_on_two_instances(backend: Backend) {
    let first = TestApp::spawn_with(backend, quick).await;
    let second = first.another_instance_with(quick).await;
    let (_, key) = first.account("Acme").await;
    for i in 0..3 {
        created_id(
            &first,
            &key,
            &format!("p{i}"),
            json!({"amount": 100 + i, "currency": "USD", "source": "tok_visa"}),
        )
        .await;
    }
    let old_cursor = cursor(&first, &key).await;
    assert_eq!(kid_of_cursor(&old_cursor), 0);
    let old_token = token(&first, &key).await;
    assert_eq!(kid_of_token(&old_token), 0);
    // A cursor as the gateway signed them before its secrets had ids.
    let first_secret = first
        .db
        .query_text("SELECT secret FROM signing_keys WHERE kid = 0")
        .await
        .unwrap()[0][0]
        .clone();
    let codec = CursorCodec::new(first_secret.as_bytes());
    let fingerprint =
        graphpay::domain::paging::fingerprint(&Default::default(), Default::default());
    let position = codec.decode(&old_cursor, fingerprint).unwrap();
    let unkeyed = codec.encode_unkeyed(&position, fingerprint);

    let added = signing_keys::add(&first.db, || ulid::Ulid::generate().to_string())
        .await
        .unwrap();
    assert_eq!(added.kid, 1);
    // Once the new secret has settled, both instances sign with it.
    for app in [&first, &second] {
        until("the new secret signs", async || {
            kid_of_cursor(&cursor(app, &key).await) == 1
        })
        .await;
    }
    let new_cursor = cursor(&second, &key).await;
    let new_token = token(&second, &key).await;
    assert_eq!(kid_of_token(&new_token), 1);
    for app in [&first, &second] {
        for c in [&old_cursor, &unkeyed, &new_cursor] {
            assert_eq!(refusal(app, &key, c).await, None, "{c}");
        }
        assert!(token_works(app, &old_token).await);
        assert!(token_works(app, &new_token).await);
    }

    assert!(signing_keys::retire(&first.db, 0).await.unwrap().is_ok());
    for app in [&first, &second] {
        until("the retired secret is refused", async || {
            refusal(app, &key, &old_cursor).await.is_some()
        })
        .await;
        for c in [&old_cursor, &unkeyed] {
            assert_eq!(
                refusal(app, &key, c).await.as_deref(),
                Some("INVALID_CURSOR")
            );
        }
        assert!(
            !token_works(app, &old_token).await,
            "the old secret's token"
        );
        assert_eq!(refusal(app, &key, &new_cursor).await, None);
        assert!(token_works(app, &new_token).await);
    }
    // The last live secret stays.
    assert_eq!(
        signing_keys::retire(&first.db, 1)
            .await
            .unwrap()
            .unwrap_err(),
        RetireRefused::LastLive
    );
    assert_eq!(
        signing_keys::retire(&first.db, 9)
            .await
            .unwrap()
            .unwrap_err(),
        RetireRefused::NotFound
    );
}

on_both_backends_fn!(a_secret_added_then_the_old_one_retired_on_two_instances);
