//! Client tokens: minted by a secret key, limited to their scopes, and dead once expired,
//! forged or orphaned by the revocation of their key.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use futures_util::SinkExt;
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;

use crate::helpers::{
    Backend, GatewayProcess, TestApp, connect, create, created_id, error_extension,
    first_error_code, input, next_message, on_both_backends_fn,
};

const MINT: &str = "mutation M($input: CreateClientTokenInput!) { \
    createClientToken(input: $input) { token scopes expiresAt } }";
const VIEWER: &str = "{ viewer { id } }";

async fn mint(app: &TestApp, key: &str, scopes: &[&str], ttl: Option<i64>) -> String {
    let mut input = json!({"scopes": scopes});
    if let Some(ttl) = ttl {
        input["ttlSeconds"] = json!(ttl);
    }
    let data = app.query(key, MINT, json!({"input": input})).await;
    data["createClientToken"]["token"]
        .as_str()
        .expect("a token")
        .to_string()
}

/// Every root field of the schema, with an operation that uses it. The table must name every
/// field the schema has (checked against introspection), so a field added later cannot slip
/// through unclassified.
pub(crate) fn operations(payment: &str) -> Vec<(&'static str, &'static str, String)> {
    let p = payment;
    vec![
        ("query", "viewer", "{ viewer { id } }".into()),
        (
            "query",
            "payment",
            format!("{{ payment(id: \"{p}\") {{ id }} }}"),
        ),
        (
            "query",
            "payments",
            "{ payments(first: 1) { nodes { id } } }".into(),
        ),
        ("query", "node", format!("{{ node(id: \"{p}\") {{ id }} }}")),
        (
            "query",
            "nodes",
            format!("{{ nodes(ids: [\"{p}\"]) {{ id }} }}"),
        ),
        (
            "query",
            "idempotencyRecord",
            "{ idempotencyRecord(key: \"nope\") { key } }".into(),
        ),
        (
            "query",
            "webhookEndpoints",
            "{ webhookEndpoints(first: 1) { nodes { id } } }".into(),
        ),
        (
            "mutation",
            "createPayment",
            "mutation { createPayment(idempotencyKey: \"t-create\", input: {amount: 100, \
             currency: \"USD\", source: \"tok_visa\", confirm: false}) { payment { id } } }"
                .into(),
        ),
        (
            "mutation",
            "capturePayment",
            "mutation { capturePayment(idempotencyKey: \"t-capture\", input: {paymentId: \
             \"pay_00000000000000000000000000\"}) { payment { id } } }"
                .into(),
        ),
        (
            "mutation",
            "confirmPayment",
            "mutation { confirmPayment(idempotencyKey: \"t-confirm\", paymentId: \
             \"pay_00000000000000000000000000\") { payment { id } } }"
                .into(),
        ),
        (
            "mutation",
            "cancelPayment",
            "mutation { cancelPayment(paymentId: \"pay_00000000000000000000000000\") \
             { payment { id } } }"
                .into(),
        ),
        (
            "mutation",
            "refundPayment",
            format!(
                "mutation {{ refundPayment(idempotencyKey: \"t-refund\", input: \
                 {{paymentId: \"{p}\", amount: 1}}) {{ refund {{ id }} }} }}"
            ),
        ),
        (
            "mutation",
            "createWebhookEndpoint",
            "mutation { createWebhookEndpoint(input: {url: \"https://merchant.example/hooks\"}) \
             { endpoint { id } } }"
                .into(),
        ),
        (
            "mutation",
            "updateWebhookEndpoint",
            "mutation { updateWebhookEndpoint(input: {id: \"we_00000000000000000000000000\", \
             description: \"x\"}) { endpoint { id } } }"
                .into(),
        ),
        (
            "mutation",
            "deleteWebhookEndpoint",
            "mutation { deleteWebhookEndpoint(id: \"we_00000000000000000000000000\") \
             { deletedId } }"
                .into(),
        ),
        (
            "mutation",
            "rollWebhookEndpointSecret",
            "mutation { rollWebhookEndpointSecret(input: {id: \"we_00000000000000000000000000\"}) \
             { secret } }"
                .into(),
        ),
        (
            "mutation",
            "redeliverWebhook",
            "mutation { redeliverWebhook(deliveryId: \"whd_00000000000000000000000000\") \
             { delivery { id } } }"
                .into(),
        ),
        ("query", "apiKeys", "{ apiKeys { id prefix } }".into()),
        (
            "mutation",
            "rollApiKey",
            "mutation { rollApiKey(input: {keyId: \"key_00000000000000000000000000\"}) \
             { apiKey } }"
                .into(),
        ),
        (
            "mutation",
            "createApiKey",
            "mutation { createApiKey(input: {name: \"table\", scopes: [PAYMENTS_READ]}) \
             { key { id } } }"
                .into(),
        ),
        (
            "mutation",
            "createSubmitToken",
            "mutation { createSubmitToken { token } }".into(),
        ),
        (
            "mutation",
            "createClientToken",
            "mutation { createClientToken(input: {scopes: [PAYMENTS_READ]}) { token } }".into(),
        ),
        (
            "subscription",
            "paymentUpdated",
            "subscription { paymentUpdated { id } }".into(),
        ),
        (
            "subscription",
            "events",
            "subscription { events { cursor } }".into(),
        ),
        (
            "query",
            "events",
            "{ events(first: 1) { nodes { id } } }".into(),
        ),
        (
            "mutation",
            "updatePayment",
            format!(
                "mutation {{ updatePayment(input: {{paymentId: \"{p}\", reference: \"r\"}}) \
                 {{ payment {{ id }} }} }}"
            ),
        ),
    ]
}

/// What each scope allows, as the contract lists it; anything else needs a secret key.
fn allowed_by(scope: &str) -> &'static [&'static str] {
    match scope {
        "PAYMENTS_READ" => &[
            "viewer",
            "payment",
            "payments",
            "node",
            "nodes",
            "idempotencyRecord",
            "paymentUpdated",
            "events",
        ],
        "PAYMENTS_WRITE" => &["createPayment", "confirmPayment", "cancelPayment"],
        "REFUNDS_WRITE" => &["refundPayment"],
        other => panic!("{other}"),
    }
}

/// The scope a token is told it lacks: the key scope of the field (`restricted_keys`),
/// which for some fields no client token can hold; none for what only an unrestricted key
/// may do.
fn required_scope(field: &str) -> Value {
    crate::restricted_keys::key_scope_of(field).map_or(Value::Null, Value::from)
}

/// Checks the errors of a request that a credential holding `scope` made with `field`: none
/// `FORBIDDEN` when `allowed`; else `FORBIDDEN` alone, naming the field's scope.
pub(crate) fn check_refusal(codes: &[Value], allowed: bool, scope: &str, field: &str) {
    let forbidden = codes.iter().find(|e| e["code"] == "FORBIDDEN");
    if allowed {
        assert!(forbidden.is_none(), "{scope} allows {field}: {codes:?}");
        return;
    }
    let forbidden =
        forbidden.unwrap_or_else(|| panic!("{scope} does not allow {field}, yet: {codes:?}"));
    assert_eq!(
        forbidden
            .get("requiredScope")
            .cloned()
            .unwrap_or(Value::Null),
        required_scope(field),
        "{scope}: {field}"
    );
    assert_eq!(codes.len(), 1, "nothing else ran: {codes:?}");
}

/// Runs `operation` with `credential`: the errors' codes, over HTTP or (subscriptions) over
/// the WebSocket.
pub(crate) async fn codes_of(
    app: &TestApp,
    credential: &str,
    kind: &str,
    operation: &str,
) -> Vec<Value> {
    if kind == "subscription" {
        let mut socket = connect(app, credential).await.expect("connected");
        let message = json!({"id": "1", "type": "subscribe", "payload": {"query": operation}});
        socket
            .send(Message::text(message.to_string()))
            .await
            .unwrap();
        // A refusal comes at once (as `error`, or as `next` with errors); an accepted
        // subscription stays silent until a payment changes.
        return match tokio::time::timeout(Duration::from_millis(1500), next_message(&mut socket))
            .await
        {
            Ok(Some(m)) if m["type"] == "error" => extensions(&m["payload"]),
            Ok(Some(m)) if m["type"] == "next" => extensions(&m["payload"]["errors"]),
            Ok(Some(m)) => panic!("unexpected {m}"),
            _ => Vec::new(),
        };
    }
    let (_, body) = app.post(Some(credential), operation, json!({})).await;
    extensions(&body["errors"])
}

fn extensions(errors: &Value) -> Vec<Value> {
    errors
        .as_array()
        .map(|errors| errors.iter().map(|e| e["extensions"].clone()).collect())
        .unwrap_or_default()
}

async fn each_scope_allows_exactly_its_operations(backend: Backend) {
    let app = TestApp::quiet(backend).await;
    let (_, key) = app.account("Acme").await;
    let payment = created_id(&app, &key, "paid", input(500, "tok_visa")).await;
    let ops = operations(&payment);

    // The table covers the whole schema.
    let schema = app
        .query(
            &key,
            "{ __schema { queryType { fields { name } } mutationType { fields { name } } \
             subscriptionType { fields { name } } } }",
            json!({}),
        )
        .await;
    let mut in_schema = BTreeSet::new();
    for (kind, root) in [
        ("query", "queryType"),
        ("mutation", "mutationType"),
        ("subscription", "subscriptionType"),
    ] {
        for field in schema["__schema"][root]["fields"].as_array().unwrap() {
            in_schema.insert((kind, field["name"].as_str().unwrap().to_string()));
        }
    }
    let in_table: BTreeSet<_> = ops.iter().map(|(k, f, _)| (*k, f.to_string())).collect();
    assert_eq!(in_table, in_schema, "the table names every root field");

    let mut outcomes = BTreeMap::new();
    for scope in ["PAYMENTS_READ", "PAYMENTS_WRITE", "REFUNDS_WRITE"] {
        let token = mint(&app, &key, &[scope], None).await;
        for (kind, field, operation) in &ops {
            let codes = codes_of(&app, &token, kind, operation).await;
            let allowed = allowed_by(scope).contains(field);
            check_refusal(&codes, allowed, scope, field);
            outcomes.insert((scope, *kind, *field), allowed);
        }
    }
    // And a secret key may use every field.
    for (kind, field, operation) in &ops {
        if *kind == "subscription" {
            continue;
        }
        let codes = codes_of(&app, &key, kind, operation).await;
        assert!(
            codes.iter().all(|e| e["code"] != "FORBIDDEN"),
            "a secret key may use {field}: {codes:?}"
        );
    }
    assert_eq!(outcomes.len(), 3 * ops.len());
}

/// A token works like a key for what it may do, over HTTP and the WebSocket; a refused field
/// in a document with allowed ones refuses the whole document, so nothing of it runs.
async fn a_token_reads_and_writes_its_own_account_only(backend: Backend) {
    let app = TestApp::quiet(backend).await;
    let (acme, key) = app.account("Acme").await;
    let (_, other_key) = app.account("Other").await;
    let theirs = created_id(&app, &other_key, "theirs", input(700, "tok_visa")).await;
    let token = mint(&app, &key, &["PAYMENTS_READ", "PAYMENTS_WRITE"], Some(600)).await;

    let data = app.query(&token, VIEWER, json!({})).await;
    assert_eq!(data["viewer"]["id"], acme.as_str());
    let mine = created_id(&app, &token, "mine", input(300, "tok_visa")).await;
    let data = app
        .query(
            &token,
            "query($a: ID!, $b: ID!) { a: payment(id: $a) { id } b: payment(id: $b) { id } }",
            json!({"a": mine, "b": theirs}),
        )
        .await;
    assert_eq!(data["a"]["id"], mine.as_str());
    assert!(
        data["b"].is_null(),
        "another account's payment is invisible"
    );

    let (status, body) = app
        .post(
            Some(&token),
            "mutation { createPayment(idempotencyKey: \"mixed\", input: {amount: 100, \
             currency: \"USD\", source: \"tok_visa\"}) { payment { id } } \
             refundPayment(idempotencyKey: \"r\", input: {paymentId: \"x\"}) { refund { id } } }",
            json!({}),
        )
        .await;
    assert_eq!(status, 200);
    assert_eq!(first_error_code(&body), "FORBIDDEN");
    assert_eq!(error_extension(&body, "requiredScope"), "REFUNDS_WRITE");
    assert!(body["data"].is_null());
    let count = app
        .query(&key, "{ payments(first: 100) { nodes { id } } }", json!({}))
        .await["payments"]["nodes"]
        .as_array()
        .unwrap()
        .len();
    assert_eq!(count, 1, "the refused document created nothing");

    // The subscription hears the account's changes through the token.
    let mut socket = connect(&app, &token).await.expect("connected with a token");
    let subscribe = json!({"id": "1", "type": "subscribe", "payload": {"query": "subscription { paymentUpdated { id amount } }"}});
    socket
        .send(Message::text(subscribe.to_string()))
        .await
        .unwrap();
    let mut heard = None;
    for attempt in 0..50 {
        create(
            &app,
            &key,
            &format!("live-{attempt}"),
            input(4242, "tok_visa"),
        )
        .await;
        // Changes made before the subscription started (the payment above) may arrive
        // first; the one looked for is a payment of 4242.
        while let Ok(Some(m)) =
            tokio::time::timeout(Duration::from_millis(300), next_message(&mut socket)).await
        {
            if m["payload"]["data"]["paymentUpdated"]["amount"] == 4242 {
                heard = Some(m);
                break;
            }
        }
        if heard.is_some() {
            break;
        }
    }
    let heard = heard.expect("a frame");
    assert_eq!(heard["payload"]["data"]["paymentUpdated"]["amount"], 4242);
}

async fn minting_is_for_secret_keys_and_bounded(backend: Backend) {
    let app = TestApp::quiet(backend).await;
    let (_, key) = app.account("Acme").await;
    let data = app
        .query(
            &key,
            MINT,
            json!({"input": {"scopes": ["REFUNDS_WRITE", "PAYMENTS_READ", "PAYMENTS_READ"]}}),
        )
        .await;
    let payload = &data["createClientToken"];
    assert!(payload["token"].as_str().unwrap().starts_with("gpct_"));
    assert_eq!(payload["scopes"], json!(["PAYMENTS_READ", "REFUNDS_WRITE"]));
    let expires =
        graphpay::domain::time::Timestamp::parse_rfc3339(payload["expiresAt"].as_str().unwrap())
            .unwrap();
    let hour = expires.micros() - graphpay::domain::time::Timestamp::now().micros();
    assert!(
        (3_500_000_000..=3_600_000_000).contains(&hour),
        "the default is one hour: {hour}"
    );

    for (input, field) in [
        (json!({"scopes": []}), "input.scopes"),
        (
            json!({"scopes": ["PAYMENTS_READ"], "ttlSeconds": 0}),
            "input.ttlSeconds",
        ),
        (
            json!({"scopes": ["PAYMENTS_READ"], "ttlSeconds": 86_401}),
            "input.ttlSeconds",
        ),
        (
            json!({"scopes": ["PAYMENTS_READ"], "ttlSeconds": -5}),
            "input.ttlSeconds",
        ),
    ] {
        let (_, body) = app.post(Some(&key), MINT, json!({"input": input})).await;
        assert_eq!(first_error_code(&body), "BAD_USER_INPUT", "{input}");
        assert_eq!(error_extension(&body, "field"), field, "{input}");
    }
    let day = mint(&app, &key, &["PAYMENTS_READ"], Some(86_400)).await;
    app.query(&day, VIEWER, json!({})).await;

    // A token, whatever its scopes, mints nothing.
    let all = mint(
        &app,
        &key,
        &["PAYMENTS_READ", "PAYMENTS_WRITE", "REFUNDS_WRITE"],
        None,
    )
    .await;
    let (_, body) = app
        .post(
            Some(&all),
            MINT,
            json!({"input": {"scopes": ["PAYMENTS_READ"]}}),
        )
        .await;
    assert_eq!(first_error_code(&body), "FORBIDDEN");
    // The scope is a key's: no token can hold it.
    assert_eq!(
        error_extension(&body, "requiredScope"),
        "CLIENT_TOKENS_CREATE"
    );
    let message = body["errors"][0]["message"].as_str().unwrap();
    assert!(message.contains("secret API key"), "{message}");
    assert!(body["data"].is_null());
}

async fn expired_forged_and_orphaned_tokens_are_unauthenticated(backend: Backend) {
    let app = TestApp::quiet(backend).await;
    let (account, key) = app.account("Acme").await;
    let short = mint(&app, &key, &["PAYMENTS_READ"], Some(1)).await;
    let token = mint(&app, &key, &["PAYMENTS_READ"], None).await;
    app.query(&token, VIEWER, json!({})).await;

    // Tampered: any character of the payload or the signature changed.
    let (payload, signature) = token.rsplit_once('.').unwrap();
    let flip = |c: char| if c == 'A' { 'B' } else { 'A' };
    let mut bad_signature = signature.to_string();
    let last = bad_signature.pop().unwrap();
    bad_signature.push(flip(last));
    let mut bad_payload = payload.to_string();
    let end = bad_payload.pop().unwrap();
    bad_payload.push(flip(end));
    // Signed by another gateway (its own secret): well formed, but not ours.
    let other = TestApp::quiet(backend).await;
    let (_, other_key) = other.account("Elsewhere").await;
    let foreign = mint(&other, &other_key, &["PAYMENTS_READ"], None).await;
    for forged in [
        format!("{payload}.{bad_signature}"),
        format!("{bad_payload}.{signature}"),
        format!("{payload}."),
        token.replace("gpct_", "gpk_"),
        foreign,
    ] {
        let (status, body) = app.post(Some(&forged), VIEWER, json!({})).await;
        assert_eq!(status, 401, "{forged}");
        assert_eq!(first_error_code(&body), "UNAUTHENTICATED");
    }

    tokio::time::sleep(Duration::from_millis(1100)).await;
    let (status, body) = app.post(Some(&short), VIEWER, json!({})).await;
    assert_eq!(status, 401, "expired");
    assert_eq!(first_error_code(&body), "UNAUTHENTICATED");

    // Revoking the minting key kills its tokens (within the second keys are remembered for),
    // and not those of the account's other keys.
    let (_, second_key) =
        graphpay::persistence::accounts::create_key(&app.db, &account, Default::default())
            .await
            .unwrap()
            .unwrap();
    let survivor = mint(&app, &second_key, &["PAYMENTS_READ"], None).await;
    graphpay::persistence::accounts::revoke_key(&app.db, &key[..12])
        .await
        .unwrap()
        .expect("revoked");
    tokio::time::sleep(Duration::from_secs(1)).await;
    let (status, body) = app.post(Some(&token), VIEWER, json!({})).await;
    assert_eq!(status, 401, "its key was revoked");
    assert_eq!(first_error_code(&body), "UNAUTHENTICATED");
    let mut refused = connect(&app, &token).await;
    assert!(refused.is_err(), "nor over the WebSocket");
    if let Ok(socket) = refused.as_mut() {
        let _ = socket.close(None).await;
    }
    app.query(&survivor, VIEWER, json!({})).await;
}

/// A subscription opened with a token ends, `UNAUTHENTICATED`, when the token expires.
async fn a_subscription_ends_when_its_token_expires(backend: Backend) {
    let app = TestApp::quiet(backend).await;
    let (_, key) = app.account("Acme").await;
    let token = mint(&app, &key, &["PAYMENTS_READ"], Some(2)).await;
    let mut socket = connect(&app, &token).await.expect("connected");
    subscribe(&mut socket).await;
    let errors = end_of_subscription(&mut socket).await;
    assert_eq!(
        errors[0]["extensions"]["code"], "UNAUTHENTICATED",
        "{errors}"
    );
}

/// The first message of subscription "1" that is not a payment change: how it ended.
async fn end_of_subscription(socket: &mut crate::helpers::Socket) -> Value {
    let ended = loop {
        let message = next_message(socket).await.expect("the subscription ends");
        if message["type"] != "next" || message["payload"]["errors"].is_array() {
            break message;
        }
    };
    if ended["type"] == "error" {
        ended["payload"].clone()
    } else {
        ended["payload"]["errors"].clone()
    }
}

async fn subscribe(socket: &mut crate::helpers::Socket) {
    let subscribe = json!({"id": "1", "type": "subscribe", "payload": {"query": "subscription { paymentUpdated { id amount } }"}});
    socket
        .send(Message::text(subscribe.to_string()))
        .await
        .unwrap();
}

/// Revoking a key ends the subscriptions open with it and with the tokens it minted (within
/// about a second and a half); those of the account's other keys go on.
async fn revoking_a_key_ends_its_open_subscriptions(backend: Backend) {
    let app = TestApp::quiet(backend).await;
    let (account, key) = app.account("Acme").await;
    let (_, other_key) =
        graphpay::persistence::accounts::create_key(&app.db, &account, Default::default())
            .await
            .unwrap()
            .unwrap();
    let token = mint(&app, &key, &["PAYMENTS_READ"], None).await;
    let mut with_key = connect(&app, &key).await.expect("connected");
    let mut with_token = connect(&app, &token).await.expect("connected");
    let mut with_other = connect(&app, &other_key).await.expect("connected");
    for socket in [&mut with_key, &mut with_token, &mut with_other] {
        subscribe(socket).await;
    }
    // All three hear a change before the revocation.
    let mut attempt = 0;
    for socket in [&mut with_key, &mut with_token, &mut with_other] {
        loop {
            attempt += 1;
            create(
                &app,
                &other_key,
                &format!("before-{attempt}"),
                input(100, "tok_visa"),
            )
            .await;
            if let Ok(Some(m)) =
                tokio::time::timeout(Duration::from_millis(300), next_message(socket)).await
            {
                assert_eq!(m["type"], "next", "{m}");
                break;
            }
            assert!(attempt < 50, "a subscription never started");
        }
    }
    graphpay::persistence::accounts::revoke_key(&app.db, &key[..12])
        .await
        .unwrap()
        .expect("revoked");
    for socket in [&mut with_key, &mut with_token] {
        let errors = end_of_subscription(socket).await;
        assert_eq!(
            errors[0]["extensions"]["code"], "UNAUTHENTICATED",
            "{errors}"
        );
    }
    // The other key's subscription still hears changes.
    create(&app, &other_key, "after", input(777, "tok_visa")).await;
    let heard = loop {
        let m = next_message(&mut with_other)
            .await
            .expect("still subscribed");
        if m["payload"]["data"]["paymentUpdated"]["amount"] == 777 {
            break m;
        }
    };
    assert_eq!(heard["type"], "next");
}

/// Tokens are credentials: the gateway's logs never show one, even at the most verbose level.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tokens_never_reach_the_logs() {
    let gateway = GatewayProcess::start(&[("RUST_LOG", "trace")]);
    let (_, body) = gateway
        .post(MINT, json!({"input": {"scopes": ["PAYMENTS_READ"]}}))
        .await;
    let token = body["data"]["createClientToken"]["token"]
        .as_str()
        .expect("a token")
        .to_string();
    let (status, _) = gateway.post_as(Some(&token), VIEWER, json!({})).await;
    assert_eq!(status, 200);
    let (status, _) = gateway
        .post_as(Some(&format!("{token}x")), VIEWER, json!({}))
        .await;
    assert_eq!(status, 401);
    tokio::time::sleep(Duration::from_millis(300)).await;
    let logs = gateway.logs();
    assert!(logs.contains("request"), "the gateway logged: {logs}");
    let (_, signature) = token.rsplit_once('.').unwrap();
    assert!(!logs.contains(signature), "a token's signature was logged");
    assert!(!logs.contains(&token[..40]), "a token was logged");
}

on_both_backends_fn!(
    each_scope_allows_exactly_its_operations,
    a_token_reads_and_writes_its_own_account_only,
    minting_is_for_secret_keys_and_bounded,
    expired_forged_and_orphaned_tokens_are_unauthenticated,
    a_subscription_ends_when_its_token_expires,
    revoking_a_key_ends_its_open_subscriptions,
);
