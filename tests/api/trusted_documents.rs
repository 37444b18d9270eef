//! Trusted documents: operations registered from a relay-compiler manifest, run by
//! `documentId` over `POST`, `GET` and the WebSocket; client tokens held to them when the
//! operator says so; manifests that cannot be used stop the start.

use std::path::{Path, PathBuf};
use std::time::Duration;

use futures_util::SinkExt;
use graphpay::config::Config;
use graphpay::graphql::trusted_documents::{DocumentSource, MAX_MANIFEST_BYTES, TrustedDocuments};
use graphpay::persistence::DbConfig;
use graphpay::startup::Application;
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;

use crate::helpers::{
    Backend, Socket, TestApp, connect, first_error_code, input, next_message, on_both_backends_fn,
};

/// The ids relay-compiler gave the operations of `tests/fixtures/relay/src`.
const CREATE: &str = "24f35700dd2a08a062425a60a4339f13";
const UPDATED: &str = "3d80fb2c51b63087c263d8e16e28c6fb";
const LIST: &str = "72010b78dd49c729b2ea0cacca7bc245";
const LIST_PAGE: &str = "af662d0ae587fe6c74058de5e17c7f84";
const DETAILS: &str = "d824599f990b8fff88b76867c36b2ba1";
const GRAPHQL_RESPONSE: &str = "application/graphql-response+json";

fn manifest() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/relay/persisted_queries.json")
}

async fn spawn(backend: Backend, client_tokens_only: bool) -> TestApp {
    TestApp::spawn_with(backend, |c: &mut Config| {
        c.trusted_documents = Some(manifest());
        c.client_tokens_trusted_documents_only = client_tokens_only;
    })
    .await
}

/// A client token with `scopes` (GraphQL enum values), minted with the secret `key`.
async fn client_token(app: &TestApp, key: &str, scopes: &str) -> String {
    let minted = app
        .query(
            key,
            &format!("mutation {{ createClientToken(input: {{scopes: [{scopes}]}}) {{ token }} }}"),
            json!({}),
        )
        .await;
    minted["createClientToken"]["token"]
        .as_str()
        .expect("a token")
        .to_string()
}

/// Posts `body` as JSON; returns the status and the JSON answer.
async fn post(app: &TestApp, key: &str, accept: Option<&str>, body: Value) -> (u16, Value) {
    let mut request = app
        .http
        .post(format!("{}/graphql", app.address))
        .bearer_auth(key)
        .json(&body);
    if let Some(accept) = accept {
        request = request.header("accept", accept);
    }
    let response = request.send().await.expect("request sent");
    (
        response.status().as_u16(),
        response.json().await.expect("a JSON body"),
    )
}

/// `GET /graphql` with `params`; returns the status, the `Allow` header and the JSON answer.
async fn get(
    app: &TestApp,
    key: &str,
    accept: Option<&str>,
    params: &[(&str, &str)],
) -> (u16, Option<String>, Value) {
    let url = reqwest::Url::parse_with_params(&format!("{}/graphql", app.address), params)
        .expect("a URL");
    let mut request = app.http.get(url).bearer_auth(key);
    if let Some(accept) = accept {
        request = request.header("accept", accept);
    }
    let response = request.send().await.expect("request sent");
    let allow = response
        .headers()
        .get("allow")
        .map(|v| v.to_str().unwrap().to_string());
    (
        response.status().as_u16(),
        allow,
        response.json().await.expect("a JSON body"),
    )
}

async fn trusted_documents_run_by_id_with_variables_over_post_and_get(backend: Backend) {
    let app = spawn(backend, false).await;
    let (_, key) = app.account("Alice").await;

    let (status, created) = post(
        &app,
        &key,
        None,
        json!({
            "documentId": CREATE,
            "variables": {"input": input(4200, "tok_visa"), "idempotencyKey": "by-id"},
        }),
    )
    .await;
    assert_eq!(status, 200, "{created}");
    let payment = &created["data"]["createPayment"]["payment"];
    assert_eq!(payment["amount"], 4200, "{created}");
    let id = payment["id"]
        .as_str()
        .expect("Relay asks for the id")
        .to_string();

    let variables = json!({"id": id});
    let (status, by_post) = post(
        &app,
        &key,
        None,
        json!({"documentId": DETAILS, "variables": variables}),
    )
    .await;
    assert_eq!(status, 200, "{by_post}");
    assert_eq!(by_post["data"]["payment"]["id"], id.as_str());
    assert_eq!(by_post["data"]["payment"]["amount"], 4200);
    assert_eq!(by_post["data"]["payment"]["refunds"], json!([]));
    // The same limits and budget as free text: the cost is taken and reported.
    assert!(
        by_post["extensions"]["cost"]["requestedQueryCost"]
            .as_u64()
            .unwrap()
            > 0
    );

    let variables = variables.to_string();
    let (status, _, by_get) = get(
        &app,
        &key,
        None,
        &[("documentId", DETAILS), ("variables", &variables)],
    )
    .await;
    assert_eq!(status, 200, "{by_get}");
    assert_eq!(by_get["data"], by_post["data"]);

    let (status, _, list) = get(
        &app,
        &key,
        Some(GRAPHQL_RESPONSE),
        &[("documentId", LIST), ("variables", r#"{"count":5}"#)],
    )
    .await;
    assert_eq!(status, 200, "{list}");
    assert_eq!(list["data"]["viewer"]["name"], "Alice");
    assert_eq!(list["data"]["payments"]["totalCount"], 1);
    assert_eq!(
        list["data"]["payments"]["edges"][0]["node"]["id"],
        id.as_str()
    );

    // A trusted mutation is still a mutation: not over GET.
    let create_again =
        json!({"input": input(1, "tok_visa"), "idempotencyKey": "by-get"}).to_string();
    let (status, allow, refused) = get(
        &app,
        &key,
        None,
        &[("documentId", CREATE), ("variables", &create_again)],
    )
    .await;
    assert_eq!(status, 405, "{refused}");
    assert_eq!(allow.as_deref(), Some("POST"));
    assert_eq!(first_error_code(&refused), "GRAPHQL_VALIDATION_FAILED");

    // In a batch, each operation stands on its own.
    let (status, batch) = post(
        &app,
        &key,
        None,
        json!([
            {"documentId": LIST_PAGE, "variables": {"count": 1, "cursor": null}},
            {"documentId": "0123456789abcdef0123456789abcdef"},
        ]),
    )
    .await;
    assert_eq!(status, 200, "{batch}");
    assert_eq!(batch[0]["data"]["payments"]["totalCount"], 1, "{batch}");
    assert_eq!(first_error_code(&batch[1]), "PERSISTED_QUERY_NOT_FOUND");
}

async fn an_unknown_document_id_is_persisted_query_not_found(backend: Backend) {
    let app = spawn(backend, false).await;
    let (_, key) = app.account("Alice").await;
    let unknown = json!({"documentId": "0123456789abcdef0123456789abcdef"});
    let (status, body) = post(&app, &key, None, unknown.clone()).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(first_error_code(&body), "PERSISTED_QUERY_NOT_FOUND");
    assert!(body.get("data").is_none(), "{body}");
    let (status, body) = post(&app, &key, Some(GRAPHQL_RESPONSE), unknown.clone()).await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(first_error_code(&body), "PERSISTED_QUERY_NOT_FOUND");
    let (status, _, body) = get(&app, &key, None, &[("documentId", "sha256:00")]).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(first_error_code(&body), "PERSISTED_QUERY_NOT_FOUND");

    // A gateway without a manifest knows no id either.
    let bare = TestApp::spawn(backend).await;
    let (_, key) = bare.account("Alice").await;
    let (status, body) = post(
        &bare,
        &key,
        None,
        json!({"documentId": DETAILS, "variables": {"id": "pay_x"}}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(first_error_code(&body), "PERSISTED_QUERY_NOT_FOUND");
}

async fn client_tokens_held_to_trusted_documents_may_not_send_free_text(backend: Backend) {
    let app = spawn(backend, true).await;
    let (account_id, key) = app.account("Alice").await;
    // Secret keys may always send free text (minting the token is free text).
    let token = client_token(&app, &key, "PAYMENTS_READ").await;

    let (status, body) = post(&app, &token, None, json!({"query": "{ viewer { id } }"})).await;
    assert_eq!(status, 403, "{body}");
    assert_eq!(first_error_code(&body), "PERSISTED_QUERY_REQUIRED");
    assert!(body.get("data").is_none(), "{body}");
    let (status, _, body) = get(&app, &token, None, &[("query", "{ viewer { id } }")]).await;
    assert_eq!(status, 403, "{body}");
    assert_eq!(first_error_code(&body), "PERSISTED_QUERY_REQUIRED");

    let (status, _, body) = get(&app, &token, None, &[("documentId", LIST)]).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["data"]["viewer"]["id"], account_id.as_str());
    let (status, body) = post(
        &app,
        &token,
        None,
        json!({"documentId": LIST_PAGE, "variables": {"count": 3}}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["data"]["payments"]["totalCount"], 0);
    // A trusted document is still held to the token's scopes.
    let (_, body) = post(
        &app,
        &token,
        None,
        json!({
            "documentId": CREATE,
            "variables": {"input": input(100, "tok_visa"), "idempotencyKey": "token"},
        }),
    )
    .await;
    assert_eq!(first_error_code(&body), "FORBIDDEN", "{body}");

    let (status, body) = post(&app, &key, None, json!({"query": "{ viewer { id } }"})).await;
    assert_eq!(status, 200, "{body}");
}

async fn client_tokens_may_send_free_text_unless_the_operator_requires_trusted_documents(
    backend: Backend,
) {
    let app = spawn(backend, false).await;
    let (account_id, key) = app.account("Alice").await;
    let token = client_token(&app, &key, "PAYMENTS_READ").await;
    let data = app.query(&token, "{ viewer { id } }", json!({})).await;
    assert_eq!(data["viewer"]["id"], account_id.as_str());
    let (status, _, body) = get(&app, &token, None, &[("query", "{ viewer { id } }")]).await;
    assert_eq!(status, 200, "{body}");
}

/// Sends a `subscribe` message.
async fn subscribe(socket: &mut Socket, id: &str, payload: Value) {
    let message = json!({"id": id, "type": "subscribe", "payload": payload});
    socket
        .send(Message::text(message.to_string()))
        .await
        .unwrap();
}

/// The next message of subscription `id`, skipping others' (`None` when nothing comes).
async fn next_of(socket: &mut Socket, id: &str) -> Option<Value> {
    loop {
        let message = next_message(socket).await?;
        if message["id"] == id {
            return Some(message);
        }
    }
}

async fn subscriptions_run_trusted_documents_and_client_tokens_are_held_to_them(backend: Backend) {
    let app = spawn(backend, true).await;
    let (_, key) = app.account("Alice").await;
    let token = client_token(&app, &key, "PAYMENTS_READ").await;
    let mut socket = connect(&app, &token).await.expect("the token is accepted");

    subscribe(
        &mut socket,
        "free",
        json!({"query": "subscription { paymentUpdated { id } }"}),
    )
    .await;
    let refused = next_of(&mut socket, "free").await.expect("an answer");
    assert_eq!(refused["type"], "next", "{refused}");
    assert_eq!(
        first_error_code(&refused["payload"]),
        "PERSISTED_QUERY_REQUIRED"
    );
    assert_eq!(
        next_of(&mut socket, "free").await.expect("the end")["type"],
        "complete"
    );

    subscribe(
        &mut socket,
        "unknown",
        json!({"documentId": "0123456789abcdef0123456789abcdef"}),
    )
    .await;
    let unknown = next_of(&mut socket, "unknown").await.expect("an answer");
    assert_eq!(
        first_error_code(&unknown["payload"]),
        "PERSISTED_QUERY_NOT_FOUND",
        "{unknown}"
    );

    // The trusted subscription hears the account's changes; until it has started, a change
    // may pass unheard, so changes are made until one is.
    subscribe(
        &mut socket,
        "doc",
        json!({"documentId": UPDATED, "variables": {"id": null}}),
    )
    .await;
    let mut heard = None;
    for attempt in 0..50 {
        app.query(
            &key,
            crate::helpers::CREATE,
            json!({"input": input(700, "tok_visa"), "key": format!("ws-{attempt}")}),
        )
        .await;
        if let Ok(Some(message)) =
            tokio::time::timeout(Duration::from_millis(300), next_of(&mut socket, "doc")).await
        {
            heard = Some(message);
            break;
        }
    }
    let heard = heard.expect("the trusted subscription hears a change");
    assert_eq!(heard["type"], "next", "{heard}");
    let update = &heard["payload"]["data"]["paymentUpdated"];
    assert_eq!(update["amount"], 700, "{heard}");
    assert_eq!(update["currency"], "USD");
    assert!(update["refunds"].is_array(), "{heard}");
}

on_both_backends_fn!(
    trusted_documents_run_by_id_with_variables_over_post_and_get,
    an_unknown_document_id_is_persisted_query_not_found,
    client_tokens_held_to_trusted_documents_may_not_send_free_text,
    client_tokens_may_send_free_text_unless_the_operator_requires_trusted_documents,
    subscriptions_run_trusted_documents_and_client_tokens_are_held_to_them,
);

#[test]
fn a_manifest_written_by_relay_compiler_is_read_as_is() {
    let documents = TrustedDocuments::load(&manifest()).expect("the manifest loads");
    assert_eq!(documents.len(), 5);
    let text = documents
        .resolve(DocumentSource::Id(DETAILS.into()), None)
        .unwrap();
    assert!(
        text.starts_with("query PaymentDetailsQuery(\n  $id: ID!\n)"),
        "{text}"
    );
    assert!(
        text.contains("fragment RefundRow_refund on Refund"),
        "{text}"
    );
}

/// A registered document is validated once, at start-up; run by id, only its variables are
/// checked, where it passes them as arguments. Each wrong value must be refused by id exactly
/// as the same document sent as text is (message, place, code), and nothing run.
async fn variables_of_a_registered_document_are_checked_as_in_free_text(backend: Backend) {
    let app = spawn(backend, false).await;
    let (_, key) = app.account("Alice").await;
    let manifest: serde_json::Map<String, Value> =
        serde_json::from_slice(&std::fs::read(manifest()).unwrap()).unwrap();
    let good = json!({"amount": 1000, "currency": "USD", "source": "tok_visa"});
    let with = |field: &str, value: Value| {
        let mut input = good.clone();
        input[field] = value;
        json!({"input": input, "idempotencyKey": "k"})
    };
    let mut missing = good.clone();
    missing.as_object_mut().unwrap().remove("source");
    let mut unknown = good.clone();
    unknown["colour"] = json!("red");
    let cases = [
        (CREATE, with("amount", json!("ten")), "INVALID_AMOUNT"),
        (CREATE, with("amount", json!(10.5)), "INVALID_AMOUNT"),
        (CREATE, with("currency", json!("XXX")), "INVALID_CURRENCY"),
        (
            CREATE,
            with("captureMethod", json!("SOMETIMES")),
            "GRAPHQL_VALIDATION_FAILED",
        ),
        (
            CREATE,
            json!({"input": missing, "idempotencyKey": "k"}),
            "GRAPHQL_VALIDATION_FAILED",
        ),
        (
            CREATE,
            json!({"input": unknown, "idempotencyKey": "k"}),
            "GRAPHQL_VALIDATION_FAILED",
        ),
        (
            CREATE,
            json!({"input": null, "idempotencyKey": "k"}),
            "GRAPHQL_VALIDATION_FAILED",
        ),
        (
            CREATE,
            json!({"input": good, "idempotencyKey": 7}),
            "GRAPHQL_VALIDATION_FAILED",
        ),
        (
            LIST_PAGE,
            json!({"count": "three"}),
            "GRAPHQL_VALIDATION_FAILED",
        ),
        (
            LIST_PAGE,
            json!({"count": 2, "cursor": ["a"]}),
            "GRAPHQL_VALIDATION_FAILED",
        ),
        (
            DETAILS,
            json!({"id": {"a": 1}}),
            "GRAPHQL_VALIDATION_FAILED",
        ),
    ];
    for (id, variables, code) in cases {
        let text = manifest[id].as_str().unwrap();
        let by_id = post(
            &app,
            &key,
            None,
            json!({"documentId": id, "variables": variables}),
        )
        .await;
        let as_text = post(
            &app,
            &key,
            None,
            json!({"query": text, "variables": variables}),
        )
        .await;
        assert_eq!(by_id.0, as_text.0, "{variables}");
        assert_eq!(by_id.1["errors"], as_text.1["errors"], "{variables}");
        assert_eq!(first_error_code(&by_id.1), code, "{variables}: {}", by_id.1);
        assert!(by_id.1["data"].is_null(), "{}", by_id.1);
    }
    assert_eq!(payments_made(&app).await, "0", "a refused document ran");
    // Right values run, by id as in text.
    let body = json!({"documentId": CREATE, "variables": with("amount", json!(1200))});
    let (status, answer) = post(&app, &key, None, body).await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(
        answer["data"]["createPayment"]["payment"]["amount"], 1200,
        "{answer}"
    );
}

on_both_backends_fn!(variables_of_a_registered_document_are_checked_as_in_free_text);

async fn payments_made(app: &TestApp) -> String {
    let counted = app
        .db
        .query_text("SELECT COUNT(*) FROM payments")
        .await
        .unwrap();
    counted[0][0].clone()
}

/// A document sent as text is validated until it passes once; sent again, only its variables
/// are checked, as a registered document's are. Each wrong value must be refused after as
/// before (message, place, code), and nothing run.
async fn a_text_that_passed_validation_refuses_wrong_values_as_before(backend: Backend) {
    let app = spawn(backend, false).await;
    let (_, key) = app.account("Alice").await;
    let manifest: serde_json::Map<String, Value> =
        serde_json::from_slice(&std::fs::read(manifest()).unwrap()).unwrap();
    let text = |id: &str| manifest[id].as_str().unwrap().to_string();
    let good = json!({"amount": 1000, "currency": "USD", "source": "tok_visa"});
    let create = |input: Value| json!({"input": input, "idempotencyKey": "k"});
    let mut bad_amount = good.clone();
    bad_amount["amount"] = json!("ten");
    let mut unknown = good.clone();
    unknown["colour"] = json!("red");
    let wrong = [
        (CREATE, create(bad_amount)),
        (CREATE, create(unknown)),
        (LIST_PAGE, json!({"count": "three"})),
        (LIST_PAGE, json!({"count": 2, "cursor": ["a"]})),
        (DETAILS, json!({"id": {"a": 1}})),
    ];
    let mut before = Vec::new();
    for (id, variables) in &wrong {
        let body = json!({"query": text(id), "variables": variables});
        before.push(post(&app, &key, None, body).await);
    }
    let right = [
        (CREATE, create(good.clone())),
        (LIST_PAGE, json!({"count": 2})),
        (DETAILS, json!({"id": "pay_01ARZ3NDEKTSV4RRFFQ69G5FAV"})),
    ];
    for (id, variables) in right {
        let body = json!({"query": text(id), "variables": variables});
        let (status, answer) = post(&app, &key, None, body).await;
        assert_eq!(status, 200, "{answer}");
        let refused = answer["errors"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|err| {
                err["extensions"]["code"] == "GRAPHQL_VALIDATION_FAILED" || err["path"].is_null()
            });
        assert!(!refused, "{id}: {answer}");
    }
    for ((id, variables), before) in wrong.iter().zip(before) {
        let body = json!({"query": text(id), "variables": variables});
        let after = post(&app, &key, None, body).await;
        assert_eq!(after.0, before.0, "{variables}");
        assert_eq!(after.1["errors"], before.1["errors"], "{variables}");
        assert!(after.1["data"].is_null(), "{}", after.1);
        assert!(!after.1["errors"][0]["message"].is_null(), "{}", after.1);
    }
    assert_eq!(payments_made(&app).await, "1", "only the right values ran");
}

on_both_backends_fn!(a_text_that_passed_validation_refuses_wrong_values_as_before);

/// What `graphpay serve` says when it cannot start with the manifest at `path`.
async fn start_failure(path: &Path) -> String {
    let dir = tempfile::tempdir().unwrap();
    let mut config = Config::with_database(DbConfig {
        url: format!(
            "sqlite://{}?mode=rwc",
            dir.path().join("graphpay.db").display()
        ),
        schema: None,
        max_connections: 1,
        busy_timeout: Duration::from_secs(5),
        acquire_timeout: Duration::from_secs(5),
    });
    config.trusted_documents = Some(path.to_path_buf());
    match Application::build(config).await {
        Ok(_) => panic!("the gateway started with {}", path.display()),
        Err(err) => err.to_string(),
    }
}

#[tokio::test]
async fn a_manifest_that_is_too_large_or_malformed_stops_the_start() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, content: &[u8]| {
        let path = dir.path().join(name);
        std::fs::write(&path, content).unwrap();
        path
    };
    let cases = [
        ("missing.json", None, "cannot read"),
        (
            "truncated.json",
            Some(&br#"{"a": "{ viewer { id } }""#[..]),
            "not a JSON object",
        ),
        (
            "array.json",
            Some(b"[\"{ viewer { id } }\"]"),
            "not a JSON object",
        ),
        ("number.json", Some(b"{\"a\": 1}"), "not a JSON object"),
        (
            "twice.json",
            Some(b"{\"a\": \"{ viewer { id } }\", \"a\": \"{ viewer { name } }\"}"),
            "appears twice",
        ),
        (
            "bad-id.json",
            Some(b"{\"a/b\": \"{ viewer { id } }\"}"),
            "document id",
        ),
        (
            "invalid.json",
            Some(b"{\"ok\": \"{ viewer { id } }\", \"bad\": \"{ viewer { nope } }\"}"),
            "\"bad\" of",
        ),
        (
            "unparsable.json",
            Some(b"{\"broken\": \"{ viewer { id }\"}"),
            "\"broken\" of",
        ),
    ];
    for (name, content, expected) in cases {
        let path = match content {
            Some(content) => write(name, content),
            None => dir.path().join(name),
        };
        let message = start_failure(&path).await;
        assert!(message.contains(expected), "{name}: {message}");
        assert!(
            message.contains(&path.display().to_string()),
            "{name}: {message}"
        );
    }

    // The size bound is exact: a manifest of the largest size loads, one byte more does not.
    let document = br#"{"a": "{ viewer { id } }"}"#;
    let mut fits = document.to_vec();
    fits.resize(MAX_MANIFEST_BYTES, b' ');
    let fits = write("fits.json", &fits);
    assert_eq!(TrustedDocuments::load(&fits).expect("it fits").len(), 1);
    let mut over = document.to_vec();
    over.resize(MAX_MANIFEST_BYTES + 1, b' ');
    let over = write("over.json", &over);
    let message = start_failure(&over).await;
    assert!(message.contains("larger than"), "{message}");
}
