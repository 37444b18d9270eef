//! Submit tokens: issued to a secret key, accepted as the `idempotencyKey` of exactly one
//! money-moving mutation (its first use claims it, every repeat replays it), refused when
//! unknown, another account's or expired unused, required of client tokens where the operator
//! says so, and stored only as their SHA-256.

use std::collections::HashSet;
use std::time::Duration;

use graphpay::domain::time::Timestamp;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::helpers::{
    Backend, CANCEL, CONFIRM, CREATE, REFUND, TestApp, charges, create_payload, created_id,
    error_extension, first_error_code, input, on_both_backends_fn, post_on_new_connection,
    refund_payload, row_count,
};

const ISSUE: &str = "mutation I($input: CreateSubmitTokenInput!) { \
    createSubmitToken(input: $input) { token expiresAt } }";
const ISSUE_DEFAULT: &str = "mutation { createSubmitToken { token expiresAt } }";
const MINT: &str = "mutation { createClientToken(input: {scopes: [PAYMENTS_WRITE, PAYMENTS_READ]}) \
    { token } }";
const CANCEL_WITH_KEY: &str = "mutation C($id: ID!, $key: String!) { \
    cancelPayment(paymentId: $id, idempotencyKey: $key) { replayed payment { id status } } }";
const RECORD: &str = "query R($key: String!) { \
    idempotencyRecord(key: $key) { key operation state payment { id } } }";
const PAYMENTS: &str = "{ payments(first: 100) { nodes { id status } } }";

/// A submit token for `key`'s account (`ttl` seconds, or the default); with its expiry.
async fn issue(app: &TestApp, key: &str, ttl: Option<i64>) -> (String, Timestamp) {
    let data = match ttl {
        Some(ttl) => {
            app.query(key, ISSUE, json!({"input": {"ttlSeconds": ttl}}))
                .await
        }
        None => app.query(key, ISSUE_DEFAULT, json!({})).await,
    };
    let payload = &data["createSubmitToken"];
    let token = payload["token"]
        .as_str()
        .unwrap_or_else(|| panic!("no token in {data}"))
        .to_string();
    let expires = Timestamp::parse_rfc3339(payload["expiresAt"].as_str().expect("an expiry"))
        .expect("an RFC 3339 expiry");
    (token, expires)
}

/// A client token of `key`'s account that may create, confirm, cancel and read payments.
async fn client_token(app: &TestApp, key: &str) -> String {
    app.query(key, MINT, json!({})).await["createClientToken"]["token"]
        .as_str()
        .expect("a client token")
        .to_string()
}

/// A restricted key of `key`'s account holding `scopes`.
async fn restricted_key(app: &TestApp, key: &str, scopes: &[&str]) -> String {
    let data = app
        .query(
            key,
            "mutation K($input: CreateApiKeyInput!) { createApiKey(input: $input) { apiKey } }",
            json!({"input": {"name": "checkout server", "scopes": scopes}}),
        )
        .await;
    data["createApiKey"]["apiKey"]
        .as_str()
        .unwrap_or_else(|| panic!("no key in {data}"))
        .to_string()
}

/// The account's payments as its (secret) `key` lists them.
async fn payments_of(app: &TestApp, key: &str) -> Vec<Value> {
    app.query(key, PAYMENTS, json!({})).await["payments"]["nodes"]
        .as_array()
        .expect("a list of payments")
        .clone()
}

/// Sends `CREATE` with `idem` as the key; returns the body, errors included.
async fn create_with(app: &TestApp, credential: &str, idem: &str, input: Value) -> Value {
    app.post(
        Some(credential),
        CREATE,
        json!({"input": input, "key": idem}),
    )
    .await
    .1
}

/// A create answer that made (or replayed) a payment: its id and `replayed`.
fn made(body: &Value) -> (String, bool) {
    let payload = create_payload(body);
    let id = payload["payment"]["id"]
        .as_str()
        .unwrap_or_else(|| panic!("no payment in {body}"))
        .to_string();
    (
        id,
        payload["replayed"].as_bool().expect("replayed is given"),
    )
}

/// Microseconds from now to `at` (negative when it is past).
fn micros_until(at: Timestamp) -> i64 {
    at.micros() - Timestamp::now().micros()
}

/// Sleeps until `at` is at least `margin` in the past.
async fn sleep_past(at: Timestamp, margin: Duration) {
    let wait = micros_until(at) + i64::try_from(margin.as_micros()).unwrap();
    if wait > 0 {
        tokio::time::sleep(Duration::from_micros(wait.unsigned_abs())).await;
    }
}

/// The stored form of a token: lowercase hex SHA-256 of its text.
fn sha256_hex(text: &str) -> String {
    hex::encode(Sha256::digest(text.as_bytes()))
}

async fn issuing_is_for_secret_keys_with_payments_write_and_bounded(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let (_, key) = app.account("Acme").await;

    // Shape, and the default lifetime of 30 minutes.
    let (token, expires) = issue(&app, &key, None).await;
    let random = token
        .strip_prefix("sbt_")
        .unwrap_or_else(|| panic!("a submit token starts with sbt_: {token}"));
    assert_eq!(random.len(), 43, "{token}");
    assert!(
        random
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'),
        "URL-safe base64: {token}"
    );
    let left = micros_until(expires);
    assert!(
        (1_795_000_000..=1_800_000_000).contains(&left),
        "the default is 1800 s: {left} µs left"
    );
    let (again, _) = issue(&app, &key, None).await;
    assert_ne!(token, again, "every token is new");

    // A chosen lifetime, the bounds included.
    for ttl in [1_i64, 60, 86_400] {
        let (token, expires) = issue(&app, &key, Some(ttl)).await;
        assert!(token.starts_with("sbt_"), "{token}");
        let left = micros_until(expires);
        assert!(
            (ttl * 1_000_000 - 5_000_000..=ttl * 1_000_000).contains(&left),
            "ttl {ttl}: {left} µs left"
        );
    }
    let stored = row_count(&app, "submit_tokens").await;
    assert_eq!(stored, 5);

    // Out of 1..=86,400: refused, naming the field, nothing stored.
    for ttl in [0_i64, -1, 86_401] {
        let (_, body) = app
            .post(Some(&key), ISSUE, json!({"input": {"ttlSeconds": ttl}}))
            .await;
        assert_eq!(
            first_error_code(&body),
            "BAD_USER_INPUT",
            "ttl {ttl}: {body}"
        );
        assert_eq!(
            error_extension(&body, "field"),
            "input.ttlSeconds",
            "ttl {ttl}: {body}"
        );
        assert!(body["data"]["createSubmitToken"].is_null(), "{body}");
    }
    assert_eq!(row_count(&app, "submit_tokens").await, stored);

    // A client token, whatever it holds, may not issue one.
    let client = client_token(&app, &key).await;
    let (_, body) = app.post(Some(&client), ISSUE_DEFAULT, json!({})).await;
    assert_eq!(first_error_code(&body), "FORBIDDEN", "{body}");
    assert!(body["data"].is_null(), "{body}");

    // A restricted key may, with PAYMENTS_WRITE only.
    let writer = restricted_key(&app, &key, &["PAYMENTS_WRITE"]).await;
    let (token, _) = issue(&app, &writer, Some(120)).await;
    assert!(token.starts_with("sbt_"), "{token}");
    let reader = restricted_key(&app, &key, &["PAYMENTS_READ"]).await;
    let (_, body) = app.post(Some(&reader), ISSUE_DEFAULT, json!({})).await;
    assert_eq!(first_error_code(&body), "FORBIDDEN", "{body}");
    assert_eq!(error_extension(&body, "requiredScope"), "PAYMENTS_WRITE");
    assert!(body["data"].is_null(), "{body}");
    assert_eq!(row_count(&app, "submit_tokens").await, stored + 1);

    // The operator's lower bound is the bound.
    let strict = TestApp::spawn_with(backend, |c| c.submit_tokens.max_ttl_seconds = 600).await;
    let (_, key) = strict.account("Acme").await;
    issue(&strict, &key, Some(600)).await;
    let (_, body) = strict
        .post(Some(&key), ISSUE, json!({"input": {"ttlSeconds": 601}}))
        .await;
    assert_eq!(first_error_code(&body), "BAD_USER_INPUT", "{body}");
    assert_eq!(error_extension(&body, "field"), "input.ttlSeconds");
}

async fn a_token_moves_money_once_and_replays_after(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let (_, key) = app.account("Acme").await;
    let client = client_token(&app, &key).await;
    let (token, _) = issue(&app, &key, None).await;

    // The browser's first submit creates the payment.
    let first = create_with(&app, &client, &token, input(4_200, "tok_visa")).await;
    let (id, replayed) = made(&first);
    assert!(!replayed, "{first}");
    assert_eq!(create_payload(&first)["payment"]["status"], "SUCCEEDED");

    // Submitted again (by the browser or by the merchant's server): the same payment.
    for credential in [&client, &key] {
        let again = create_with(&app, credential, &token, input(4_200, "tok_visa")).await;
        assert_eq!(made(&again), (id.clone(), true), "{again}");
    }

    // Anything else with the token is refused, and runs nothing.
    let other = create_with(&app, &client, &token, input(4_201, "tok_visa")).await;
    assert_eq!(
        first_error_code(&other),
        "IDEMPOTENCY_KEY_REUSED",
        "{other}"
    );
    let (_, body) = app
        .post(
            Some(&key),
            REFUND,
            json!({"input": {"paymentId": id, "amount": 100}, "key": token}),
        )
        .await;
    assert_eq!(first_error_code(&body), "IDEMPOTENCY_KEY_REUSED", "{body}");
    assert!(refund_payload(&body).is_null(), "{body}");
    assert_eq!(payments_of(&app, &key).await.len(), 1, "one payment");
    assert_eq!(charges(&app).await, 1, "one charge");
    assert_eq!(row_count(&app, "refunds").await, 0, "no refund");

    // Nor may it confirm or cancel a payment that is waiting for exactly that.
    let pending = json!({"amount": 900, "currency": "USD", "source": "tok_visa", "confirm": false});
    let waiting = created_id(&app, &key, "pending-1", pending).await;
    let (_, body) = app
        .post(Some(&client), CONFIRM, json!({"id": waiting, "key": token}))
        .await;
    assert_eq!(first_error_code(&body), "IDEMPOTENCY_KEY_REUSED", "{body}");
    let (_, body) = app
        .post(
            Some(&client),
            CANCEL_WITH_KEY,
            json!({"id": waiting, "key": token}),
        )
        .await;
    assert_eq!(first_error_code(&body), "IDEMPOTENCY_KEY_REUSED", "{body}");
    let listed = payments_of(&app, &key).await;
    assert_eq!(listed.len(), 2, "the token's payment and the pending one");
    let still = listed.iter().find(|p| p["id"] == waiting.as_str()).unwrap();
    assert_eq!(still["status"], "PENDING", "neither confirmed nor canceled");
    assert_eq!(charges(&app).await, 1);
}

async fn unknown_foreign_and_expired_tokens_are_refused_but_used_ones_replay(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let (_, alice) = app.account("Alice").await;
    let (_, bob) = app.account("Bob").await;
    // Issued first: the two short-lived tokens, so that one wait outlives both.
    let (unused, unused_expiry) = issue(&app, &alice, Some(1)).await;
    let (used, used_expiry) = issue(&app, &alice, Some(2)).await;
    let first = create_with(&app, &alice, &used, input(1_500, "tok_visa")).await;
    let (used_payment, replayed) = made(&first);
    assert!(!replayed, "{first}");

    let records = row_count(&app, "idempotency_keys").await;
    let refused = |body: &Value, what: &str| {
        assert_eq!(
            first_error_code(body),
            "INVALID_IDEMPOTENCY_KEY",
            "{what}: {body}"
        );
        assert!(create_payload(body).is_null(), "{what}: {body}");
    };

    // A token never issued.
    let unknown = format!("sbt_{}", "A".repeat(43));
    let body = create_with(&app, &alice, &unknown, input(1_000, "tok_visa")).await;
    refused(&body, "unknown");
    // Bob's token, sent by Alice: refused, and left for Bob.
    let (bobs, _) = issue(&app, &bob, None).await;
    let body = create_with(&app, &alice, &bobs, input(1_000, "tok_visa")).await;
    refused(&body, "another account's");
    let alices_client = client_token(&app, &alice).await;
    let body = create_with(&app, &alices_client, &bobs, input(1_000, "tok_visa")).await;
    refused(&body, "another account's, by a client token");
    assert_eq!(payments_of(&app, &alice).await.len(), 1, "nothing created");
    assert_eq!(row_count(&app, "idempotency_keys").await, records);

    // Expired before it was used: refused; used before it expired: replayed, also after.
    sleep_past(unused_expiry.max(used_expiry), Duration::from_millis(300)).await;
    assert!(micros_until(unused_expiry) < 0 && micros_until(used_expiry) < 0);
    let body = create_with(&app, &alice, &unused, input(1_000, "tok_visa")).await;
    refused(&body, "expired");
    let body = create_with(&app, &alices_client, &unused, input(1_000, "tok_visa")).await;
    refused(&body, "expired, by a client token");
    let again = create_with(&app, &alice, &used, input(1_500, "tok_visa")).await;
    assert_eq!(made(&again), (used_payment.clone(), true), "{again}");
    let again = create_with(&app, &alices_client, &used, input(1_500, "tok_visa")).await;
    assert_eq!(made(&again), (used_payment.clone(), true), "{again}");
    let other = create_with(&app, &alice, &used, input(1_501, "tok_visa")).await;
    assert_eq!(
        first_error_code(&other),
        "IDEMPOTENCY_KEY_REUSED",
        "{other}"
    );

    assert_eq!(payments_of(&app, &alice).await.len(), 1, "nothing created");
    assert_eq!(row_count(&app, "idempotency_keys").await, records);
    assert_eq!(charges(&app).await, 1);

    // Bob's token was not spent by Alice's attempts.
    let body = create_with(&app, &bob, &bobs, input(1_000, "tok_visa")).await;
    let (_, replayed) = made(&body);
    assert!(!replayed, "{body}");
    assert_eq!(payments_of(&app, &bob).await.len(), 1);
}

async fn thirty_concurrent_first_uses_make_one_payment(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let (_, key) = app.account("Acme").await;
    let client = client_token(&app, &key).await;
    let (token, _) = issue(&app, &key, None).await;

    let variables = json!({"input": input(2_500, "tok_visa"), "key": token});
    let answers = futures_util::future::join_all((0..30).map(|_| {
        post_on_new_connection(
            app.address.clone(),
            client.clone(),
            CREATE,
            variables.clone(),
        )
    }))
    .await;

    let mut ids = HashSet::new();
    let (mut fresh, mut replays, mut in_progress) = (0, 0, 0);
    for body in &answers {
        if body.get("errors").is_some() {
            assert_eq!(first_error_code(body), "REQUEST_IN_PROGRESS", "{body}");
            assert!(
                error_extension(body, "retryAfterSeconds")
                    .as_i64()
                    .is_some_and(|s| s >= 1),
                "{body}"
            );
            in_progress += 1;
        } else {
            let (id, replayed) = made(body);
            assert_eq!(create_payload(body)["payment"]["status"], "SUCCEEDED");
            ids.insert(id);
            if replayed {
                replays += 1;
            } else {
                fresh += 1;
            }
        }
    }
    assert_eq!(
        ids.len(),
        1,
        "one payment ({fresh} fresh, {replays} replayed, {in_progress} in progress)"
    );
    assert_eq!(
        fresh, 1,
        "one request ran, the others waited or replayed it"
    );
    let listed = payments_of(&app, &key).await;
    assert_eq!(listed.len(), 1, "{listed:?}");
    let id = ids.into_iter().next().unwrap();
    assert_eq!(listed[0]["id"], id.as_str());
    assert_eq!(charges(&app).await, 1, "one charge");

    // Once the dust has settled, the token replays that payment.
    let again = create_with(&app, &client, &token, input(2_500, "tok_visa")).await;
    assert_eq!(made(&again), (id, true), "{again}");
}

async fn required_mode_makes_client_tokens_send_submit_tokens(backend: Backend) {
    let app = TestApp::spawn_with(backend, |c| {
        c.submit_tokens.required_for_client_tokens = true;
    })
    .await;
    let (_, key) = app.account("Acme").await;
    let client = client_token(&app, &key).await;
    let pending = json!({"amount": 700, "currency": "USD", "source": "tok_visa", "confirm": false});
    let waiting = created_id(&app, &key, "secret-pending", pending.clone()).await;
    let records = row_count(&app, "idempotency_keys").await;

    // A client token with a key of its own choosing, or none: refused, nothing runs.
    let body = create_with(&app, &client, "order-42", input(1_000, "tok_visa")).await;
    assert_eq!(first_error_code(&body), "INVALID_IDEMPOTENCY_KEY", "{body}");
    assert!(create_payload(&body).is_null(), "{body}");
    let (_, body) = app
        .post(
            Some(&client),
            CONFIRM,
            json!({"id": waiting, "key": "confirm-42"}),
        )
        .await;
    assert_eq!(first_error_code(&body), "INVALID_IDEMPOTENCY_KEY", "{body}");
    let (_, body) = app
        .post(Some(&client), CANCEL, json!({"id": waiting}))
        .await;
    assert_eq!(first_error_code(&body), "INVALID_IDEMPOTENCY_KEY", "{body}");
    assert!(body["data"]["cancelPayment"].is_null(), "{body}");
    let (_, body) = app
        .post(
            Some(&client),
            CANCEL_WITH_KEY,
            json!({"id": waiting, "key": "cancel-42"}),
        )
        .await;
    assert_eq!(first_error_code(&body), "INVALID_IDEMPOTENCY_KEY", "{body}");
    let listed = payments_of(&app, &key).await;
    assert_eq!(listed.len(), 1, "nothing created: {listed:?}");
    assert_eq!(
        listed[0]["status"], "PENDING",
        "nothing confirmed or canceled"
    );
    assert_eq!(row_count(&app, "idempotency_keys").await, records);
    assert_eq!(charges(&app).await, 0);

    // With a submit token it works, for creating and for cancelling.
    let (token, _) = issue(&app, &key, None).await;
    let body = create_with(&app, &client, &token, input(1_000, "tok_visa")).await;
    let (created, replayed) = made(&body);
    assert!(!replayed, "{body}");
    assert_eq!(create_payload(&body)["payment"]["status"], "SUCCEEDED");
    let again = create_with(&app, &client, &token, input(1_000, "tok_visa")).await;
    assert_eq!(made(&again), (created, true), "{again}");
    let (cancel_token, _) = issue(&app, &key, None).await;
    let (_, body) = app
        .post(
            Some(&client),
            CANCEL_WITH_KEY,
            json!({"id": waiting, "key": cancel_token}),
        )
        .await;
    assert!(body.get("errors").is_none(), "{body}");
    assert_eq!(
        body["data"]["cancelPayment"]["payment"]["status"],
        "CANCELED"
    );

    // Secret keys are not bound by it.
    let body = create_with(&app, &key, "order-43", input(1_100, "tok_visa")).await;
    let (_, replayed) = made(&body);
    assert!(!replayed, "{body}");
    let other = created_id(&app, &key, "secret-pending-2", pending).await;
    let (_, body) = app.post(Some(&key), CANCEL, json!({"id": other})).await;
    assert!(body.get("errors").is_none(), "{body}");
    assert_eq!(
        body["data"]["cancelPayment"]["payment"]["status"],
        "CANCELED"
    );
    assert_eq!(payments_of(&app, &key).await.len(), 4);
}

/// Every table's rows that contain `needle`, as `(table, row)`.
async fn rows_containing(app: &TestApp, needle: &str) -> Vec<(String, String)> {
    let tables = match app.backend() {
        Backend::Sqlite => {
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
        }
        Backend::Postgres => {
            "SELECT table_name::text FROM information_schema.tables \
             WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'"
        }
    };
    let tables = app.db.query_text(tables).await.unwrap();
    assert!(
        tables.iter().any(|t| t[0] == "submit_tokens"),
        "the table list is this database's: {tables:?}"
    );
    let mut found = Vec::new();
    for table in tables {
        let table = &table[0];
        let rows = match app.backend() {
            // The whole row as text, whatever its columns' types.
            Backend::Postgres => format!("SELECT CAST(t AS TEXT) FROM \"{table}\" t"),
            Backend::Sqlite => format!("SELECT * FROM \"{table}\""),
        };
        for row in app.db.query_text(&rows).await.unwrap() {
            let row = row.join(" | ");
            if row.contains(needle) {
                found.push((table.clone(), row));
            }
        }
    }
    found
}

async fn tokens_are_stored_only_as_their_hash(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let (_, key) = app.account("Acme").await;
    let client = client_token(&app, &key).await;
    let (token, _) = issue(&app, &key, None).await;
    let body = create_with(&app, &client, &token, input(3_000, "tok_visa")).await;
    let (id, _) = made(&body);
    let hash = sha256_hex(&token);

    let stored = app
        .db
        .query_text("SELECT token_hash FROM submit_tokens")
        .await
        .unwrap();
    assert_eq!(
        stored,
        vec![vec![hash.clone()]],
        "the token's row is its hash"
    );
    let keys = app
        .db
        .query_text(&format!(
            "SELECT \"key\" FROM idempotency_keys WHERE payment_id = '{id}'"
        ))
        .await
        .unwrap();
    assert_eq!(
        keys,
        vec![vec![format!("sbt_{hash}")]],
        "the key it became is its hash"
    );

    // Neither the token nor its random part is anywhere in the database, in any table.
    let random = &token["sbt_".len()..];
    let leaked = rows_containing(&app, random).await;
    assert!(leaked.is_empty(), "the token was stored: {leaked:?}");
    // (The scan finds what is there: the hash, in both tables.)
    let tables: HashSet<_> = rows_containing(&app, &hash)
        .await
        .into_iter()
        .map(|(table, _)| table)
        .collect();
    assert!(
        tables.contains("submit_tokens") && tables.contains("idempotency_keys"),
        "{tables:?}"
    );
}

async fn the_record_of_a_token_shows_the_token(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let (_, key) = app.account("Acme").await;
    let (_, other) = app.account("Other").await;
    let client = client_token(&app, &key).await;
    let (token, _) = issue(&app, &key, None).await;

    // Issued, not used: no record yet.
    let data = app.query(&key, RECORD, json!({"key": token})).await;
    assert!(data["idempotencyRecord"].is_null(), "{data}");

    let body = create_with(&app, &client, &token, input(3_300, "tok_visa")).await;
    let (id, _) = made(&body);
    for credential in [&key, &client] {
        let data = app.query(credential, RECORD, json!({"key": token})).await;
        let record = &data["idempotencyRecord"];
        assert_eq!(
            record["key"],
            token.as_str(),
            "the key as it was sent: {data}"
        );
        assert_eq!(record["operation"], "createPayment", "{data}");
        assert_eq!(record["state"], "COMPLETED", "{data}");
        assert_eq!(record["payment"]["id"], id.as_str(), "{data}");
    }
    // Asked by its stored form, it is not found: that is no key a client sent.
    let stored = format!("sbt_{}", sha256_hex(&token));
    let data = app.query(&key, RECORD, json!({"key": stored})).await;
    assert!(data["idempotencyRecord"].is_null(), "{data}");

    // Another account's token, and one never issued: null, as for any unknown key.
    let data = app.query(&other, RECORD, json!({"key": token})).await;
    assert!(data["idempotencyRecord"].is_null(), "{data}");
    let unknown = format!("sbt_{}", "A".repeat(43));
    let data = app.query(&key, RECORD, json!({"key": unknown})).await;
    assert!(data["idempotencyRecord"].is_null(), "{data}");
}

/// A used token is known by its key's record: however short the idempotency retention, the
/// sweeper keeps that record while the token is kept, so the token is never used afresh; it is
/// swept with the token, once the token has expired and the retention has passed.
async fn no_token_outlives_the_record_of_its_use(backend: Backend) {
    let app = TestApp::spawn_with(backend, |c| {
        c.idempotency.retention = Duration::from_secs(1);
        c.sweep_interval = Duration::from_millis(200);
    })
    .await;
    let (_, key) = app.account("Acme").await;
    let (token, _) = issue(&app, &key, Some(600)).await;
    let (short, short_expiry) = issue(&app, &key, Some(1)).await;
    let first = create_with(&app, &key, &token, input(900, "tok_visa")).await;
    let (payment, replayed) = made(&first);
    assert!(!replayed, "{first}");
    let other = create_with(&app, &key, &short, input(901, "tok_visa")).await;
    assert!(!made(&other).1, "{other}");
    // Past the retention: the record of an unexpired token's use is kept, and replayed.
    tokio::time::sleep(Duration::from_millis(2_000)).await;
    let again = create_with(&app, &key, &token, input(900, "tok_visa")).await;
    assert_eq!(made(&again), (payment, true), "{again}");
    // The short token expired more than the retention ago: it and its record are gone, and
    // it is refused like any unknown token.
    sleep_past(short_expiry, Duration::from_millis(1_800)).await;
    let late = create_with(&app, &key, &short, input(901, "tok_visa")).await;
    assert_eq!(first_error_code(&late), "INVALID_IDEMPOTENCY_KEY", "{late}");
    assert_eq!(
        row_count(&app, "idempotency_keys").await,
        1,
        "the long token's"
    );
    assert_eq!(
        payments_of(&app, &key).await.len(),
        2,
        "one payment per token"
    );
}

on_both_backends_fn!(
    no_token_outlives_the_record_of_its_use,
    issuing_is_for_secret_keys_with_payments_write_and_bounded,
    a_token_moves_money_once_and_replays_after,
    unknown_foreign_and_expired_tokens_are_refused_but_used_ones_replay,
    thirty_concurrent_first_uses_make_one_payment,
    required_mode_makes_client_tokens_send_submit_tokens,
    tokens_are_stored_only_as_their_hash,
    the_record_of_a_token_shows_the_token,
);
