//! Restricted keys: secret keys limited to scopes, issued by `createApiKey` (unrestricted keys
//! only) or `graphpay key create --scopes`, checked by the same code as client tokens before
//! anything runs, bounding the client tokens they mint, and revoked and rolled like any key.

use std::collections::BTreeSet;
use std::time::Duration;

use serde_json::{Value, json};

use crate::client_tokens::{check_refusal, codes_of, operations};
use crate::helpers::{
    Backend, TestApp, created_id, error_extension, first_error_code, input, on_both_backends_fn,
};

const CREATE_KEY: &str = "mutation K($input: CreateApiKeyInput!) { \
    createApiKey(input: $input) { apiKey key { id prefix name scopes live } } }";

/// The key scope each root field needs, as the contract lists it; `None`: only an
/// unrestricted key may use it. Client tokens are told the same scope (some of which no token
/// can hold).
pub(crate) fn key_scope_of(field: &str) -> Option<&'static str> {
    Some(match field {
        "viewer" | "payment" | "payments" | "node" | "nodes" | "idempotencyRecord" | "events"
        | "paymentUpdated" => "PAYMENTS_READ",
        "createPayment" | "confirmPayment" | "cancelPayment" | "updatePayment"
        | "createSubmitToken" => "PAYMENTS_WRITE",
        "refundPayment" => "REFUNDS_WRITE",
        "capturePayment" => "PAYMENTS_CAPTURE",
        "webhookEndpoints"
        | "createWebhookEndpoint"
        | "updateWebhookEndpoint"
        | "deleteWebhookEndpoint"
        | "rollWebhookEndpointSecret"
        | "redeliverWebhook" => "WEBHOOKS_MANAGE",
        "createClientToken" => "CLIENT_TOKENS_CREATE",
        "apiKeys" | "rollApiKey" | "createApiKey" => return None,
        other => panic!("{other} is not classified: add it to this table"),
    })
}

const SCOPES: [&str; 6] = [
    "PAYMENTS_READ",
    "PAYMENTS_WRITE",
    "REFUNDS_WRITE",
    "PAYMENTS_CAPTURE",
    "WEBHOOKS_MANAGE",
    "CLIENT_TOKENS_CREATE",
];

/// A restricted key of the account `key` belongs to, named `name`, with `scopes`.
async fn restricted(app: &TestApp, key: &str, name: &str, scopes: &[&str]) -> String {
    let data = app
        .query(
            key,
            CREATE_KEY,
            json!({"input": {"name": name, "scopes": scopes}}),
        )
        .await;
    let payload = &data["createApiKey"];
    assert_eq!(payload["key"]["scopes"], json!(scopes), "{payload}");
    payload["apiKey"].as_str().expect("a key").to_string()
}

async fn each_key_scope_allows_exactly_its_fields(backend: Backend) {
    let app = TestApp::quiet(backend).await;
    let (_, key) = app.account("Acme").await;
    let payment = created_id(&app, &key, "paid", input(500, "tok_visa")).await;
    let ops = operations(&payment);
    // Every field of the table is classified here (the client token table checks that the
    // table names every root field of the schema).
    let classified: BTreeSet<_> = ops.iter().map(|(_, f, _)| key_scope_of(f)).collect();
    assert!(classified.contains(&None));

    for scope in SCOPES {
        let limited = restricted(&app, &key, &format!("only {scope}"), &[scope]).await;
        for (kind, field, operation) in &ops {
            let codes = codes_of(&app, &limited, kind, operation).await;
            if *field == "createClientToken" && scope == "CLIENT_TOKENS_CREATE" {
                // Let through to minting, which refuses a token scope the key lacks.
                let forbidden = codes.iter().find(|e| e["code"] == "FORBIDDEN");
                let forbidden = forbidden.expect("the table's token asks for PAYMENTS_READ");
                assert_eq!(forbidden["requiredScope"], "PAYMENTS_READ", "{codes:?}");
            } else {
                // Cancelling is PAYMENTS_WRITE's; voiding an authorization, PAYMENTS_CAPTURE's
                // (the table's payment is unknown: refused later, not for the scope).
                let voids = *field == "cancelPayment" && scope == "PAYMENTS_CAPTURE";
                let allowed = key_scope_of(field) == Some(scope) || voids;
                check_refusal(&codes, allowed, scope, field);
            }
        }
    }
}

async fn keys_are_created_by_unrestricted_keys_only_and_listed_without_secrets(backend: Backend) {
    let app = TestApp::quiet(backend).await;
    let (_, key) = app.account("Acme").await;
    let data = app
        .query(
            &key,
            CREATE_KEY,
            json!({"input": {"name": "  reporting job  ",
                "scopes": ["REFUNDS_WRITE", "PAYMENTS_READ", "PAYMENTS_READ"]}}),
        )
        .await;
    let payload = &data["createApiKey"];
    let secret = payload["apiKey"].as_str().unwrap();
    assert!(secret.starts_with("gpk_"));
    assert_eq!(payload["key"]["name"], "reporting job");
    assert_eq!(
        payload["key"]["scopes"],
        json!(["PAYMENTS_READ", "REFUNDS_WRITE"])
    );
    assert_eq!(payload["key"]["live"], true);
    assert!(secret.starts_with(payload["key"]["prefix"].as_str().unwrap()));

    let listed = app
        .query(&key, "{ apiKeys { id name scopes } }", json!({}))
        .await;
    let keys = listed["apiKeys"].as_array().unwrap();
    assert_eq!(keys.len(), 2);
    assert_eq!(
        keys[0]["scopes"],
        Value::Null,
        "the first key is unrestricted"
    );
    assert_eq!(keys[1]["name"], "reporting job");
    assert!(!listed.to_string().contains(secret), "never the secret");

    // The restricted key works within its scopes.
    app.query(secret, "{ viewer { id } }", json!({})).await;
    // Neither it nor a client token may issue or list keys.
    for query in [
        "{ apiKeys { id } }",
        "mutation { createApiKey(input: {name: \"x\", scopes: [PAYMENTS_READ]}) { apiKey } }",
    ] {
        let (_, body) = app.post(Some(secret), query, json!({})).await;
        assert_eq!(first_error_code(&body), "FORBIDDEN", "{body}");
        assert!(error_extension(&body, "requiredScope").is_null());
        let message = body["errors"][0]["message"].as_str().unwrap();
        assert!(message.contains("unrestricted"), "{message}");
        let budget = &body["extensions"]["cost"]["throttleStatus"]["currentlyAvailable"];
        assert!(budget.is_u64(), "a refusal reports the budget: {body}");
    }

    for (input, field) in [
        (json!({"name": "x", "scopes": []}), "input.scopes"),
        (
            json!({"name": "", "scopes": ["PAYMENTS_READ"]}),
            "input.name",
        ),
        (
            json!({"name": "   ", "scopes": ["PAYMENTS_READ"]}),
            "input.name",
        ),
        (
            json!({"name": "x".repeat(101), "scopes": ["PAYMENTS_READ"]}),
            "input.name",
        ),
        (
            json!({"name": "a\u{7}b", "scopes": ["PAYMENTS_READ"]}),
            "input.name",
        ),
    ] {
        let (_, body) = app
            .post(Some(&key), CREATE_KEY, json!({"input": input}))
            .await;
        assert_eq!(first_error_code(&body), "BAD_USER_INPUT", "{input}");
        assert_eq!(error_extension(&body, "field"), field, "{input}");
    }
    let (_, body) = app
        .post(
            Some(&key),
            CREATE_KEY,
            json!({"input": {"name": "x", "scopes": ["EVERYTHING"]}}),
        )
        .await;
    assert_eq!(
        first_error_code(&body),
        "GRAPHQL_VALIDATION_FAILED",
        "{body}"
    );
    let listed = app.query(&key, "{ apiKeys { id } }", json!({})).await;
    assert_eq!(
        listed["apiKeys"].as_array().unwrap().len(),
        2,
        "nothing refused was stored"
    );
}

async fn an_account_holds_a_bounded_number_of_live_keys(backend: Backend) {
    let app = TestApp::quiet(backend).await;
    let (account, key) = app.account("Acme").await;
    // The account's own key and 99 more: the bound of 100 live keys.
    for n in 0..99 {
        let grant = graphpay::persistence::accounts::KeyGrant {
            name: Some(format!("k{n}")),
            scopes: None,
        };
        graphpay::persistence::accounts::create_key(&app.db, &account, grant)
            .await
            .unwrap()
            .unwrap();
    }
    let create = json!({"input": {"name": "one too many", "scopes": ["PAYMENTS_READ"]}});
    let (_, body) = app.post(Some(&key), CREATE_KEY, create.clone()).await;
    assert_eq!(first_error_code(&body), "BAD_USER_INPUT", "{body}");
    assert_eq!(error_extension(&body, "field"), "input");
    // A revoked key frees its place.
    let listed = app.query(&key, "{ apiKeys { id } }", json!({})).await;
    let last = listed["apiKeys"][99]["id"].as_str().unwrap().to_string();
    graphpay::persistence::accounts::revoke_key(&app.db, &last)
        .await
        .unwrap()
        .unwrap();
    app.query(&key, CREATE_KEY, create).await;
}

async fn restricted_keys_mint_tokens_only_within_their_scopes(backend: Backend) {
    let app = TestApp::quiet(backend).await;
    let (_, key) = app.account("Acme").await;
    let mint = "mutation M($scopes: [ClientTokenScope!]!) { \
                createClientToken(input: {scopes: $scopes}) { token scopes } }";
    let minter = restricted(
        &app,
        &key,
        "checkout server",
        &["PAYMENTS_WRITE", "CLIENT_TOKENS_CREATE"],
    )
    .await;
    let data = app
        .query(&minter, mint, json!({"scopes": ["PAYMENTS_WRITE"]}))
        .await;
    let token = data["createClientToken"]["token"].as_str().unwrap();
    // The token does what its scope allows.
    let created = app
        .query(
            token,
            "mutation { createPayment(idempotencyKey: \"k1\", input: {amount: 100, \
             currency: \"USD\", source: \"tok_visa\"}) { payment { status } } }",
            json!({}),
        )
        .await;
    assert_eq!(created["createPayment"]["payment"]["status"], "SUCCEEDED");

    // Beyond the key's own scopes: refused, naming the first scope it lacks.
    let (_, body) = app
        .post(
            Some(&minter),
            mint,
            json!({"scopes": ["PAYMENTS_WRITE", "REFUNDS_WRITE"]}),
        )
        .await;
    assert_eq!(first_error_code(&body), "FORBIDDEN", "{body}");
    assert_eq!(error_extension(&body, "requiredScope"), "REFUNDS_WRITE");
    // Without CLIENT_TOKENS_CREATE, no token at all.
    let writer = restricted(&app, &key, "writer", &["PAYMENTS_WRITE"]).await;
    let (_, body) = app
        .post(Some(&writer), mint, json!({"scopes": ["PAYMENTS_WRITE"]}))
        .await;
    assert_eq!(first_error_code(&body), "FORBIDDEN", "{body}");
    assert_eq!(
        error_extension(&body, "requiredScope"),
        "CLIENT_TOKENS_CREATE"
    );
}

async fn restricted_keys_are_revoked_and_rolled_like_any_key(backend: Backend) {
    let app = TestApp::quiet(backend).await;
    let (_, key) = app.account("Acme").await;
    let reader = restricted(
        &app,
        &key,
        "reader",
        &["PAYMENTS_READ", "CLIENT_TOKENS_CREATE"],
    )
    .await;
    let token = app
        .query(
            &reader,
            "mutation { createClientToken(input: {scopes: [PAYMENTS_READ]}) { token } }",
            json!({}),
        )
        .await["createClientToken"]["token"]
        .as_str()
        .unwrap()
        .to_string();
    app.query(&token, "{ viewer { id } }", json!({})).await;

    // Rolled: the successor holds the same name and scopes.
    let listed = app.query(&key, "{ apiKeys { id name } }", json!({})).await;
    let reader_id = listed["apiKeys"]
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["name"] == "reader")
        .unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    let rolled = app
        .query(
            &key,
            "mutation R($id: ID!) { rollApiKey(input: {keyId: $id, expireOldInSeconds: 60}) \
             { apiKey key { name scopes } } }",
            json!({"id": reader_id}),
        )
        .await;
    let successor = rolled["rollApiKey"]["apiKey"].as_str().unwrap().to_string();
    assert_eq!(rolled["rollApiKey"]["key"]["name"], "reader");
    assert_eq!(
        rolled["rollApiKey"]["key"]["scopes"],
        json!(["PAYMENTS_READ", "CLIENT_TOKENS_CREATE"])
    );
    app.query(&successor, "{ viewer { id } }", json!({})).await;
    let (_, body) = app
        .post(
            Some(&successor),
            "mutation { createPayment(idempotencyKey: \"k\", input: {amount: 100, \
             currency: \"USD\", source: \"tok_visa\"}) { payment { id } } }",
            json!({}),
        )
        .await;
    assert_eq!(first_error_code(&body), "FORBIDDEN");
    assert_eq!(error_extension(&body, "requiredScope"), "PAYMENTS_WRITE");

    // Revoked: the key and the tokens it minted stop within a second.
    graphpay::persistence::accounts::revoke_key(&app.db, &reader_id)
        .await
        .unwrap()
        .unwrap();
    tokio::time::sleep(Duration::from_millis(1100)).await;
    for credential in [reader.as_str(), token.as_str()] {
        let (status, body) = app
            .post(Some(credential), "{ viewer { id } }", json!({}))
            .await;
        assert_eq!(status, 401);
        assert_eq!(first_error_code(&body), "UNAUTHENTICATED");
    }
    app.query(&successor, "{ viewer { id } }", json!({})).await;
}

async fn what_a_scope_does_not_cover_stays_out_of_sight(backend: Backend) {
    let app = TestApp::spawn_with(backend, |c| c.deliveries.policy.allow_private = true).await;
    let (_, key) = app.account("Acme").await;
    // A webhook endpoint exists only for keys that manage webhooks.
    let endpoint = app
        .query(
            &key,
            "mutation { createWebhookEndpoint(input: {url: \"http://127.0.0.1:9/hook\"}) \
             { endpoint { id } } }",
            json!({}),
        )
        .await["createWebhookEndpoint"]["endpoint"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let node = "query N($id: ID!) { node(id: $id) { id } }";
    let reader = restricted(&app, &key, "reader", &["PAYMENTS_READ"]).await;
    let seen = app.query(&reader, node, json!({"id": endpoint})).await;
    assert_eq!(seen["node"], Value::Null);
    let manager = restricted(&app, &key, "manager", &["PAYMENTS_READ", "WEBHOOKS_MANAGE"]).await;
    let seen = app.query(&manager, node, json!({"id": endpoint})).await;
    assert_eq!(seen["node"]["id"], json!(endpoint));

    // Voiding an authorization is a capture scope's business.
    let mut manual = input(700, "tok_visa");
    manual["captureMethod"] = json!("MANUAL");
    let authorized = created_id(&app, &key, "auth", manual).await;
    let cancel = "mutation C($id: ID!) { cancelPayment(paymentId: $id) { payment { status } } }";
    let writer = restricted(&app, &key, "writer", &["PAYMENTS_WRITE"]).await;
    let (_, body) = app
        .post(Some(&writer), cancel, json!({"id": authorized}))
        .await;
    assert_eq!(first_error_code(&body), "FORBIDDEN", "{body}");
    assert_eq!(error_extension(&body, "requiredScope"), "PAYMENTS_CAPTURE");
    // A key that only captures may void, and cancel nothing else.
    let capturer = restricted(&app, &key, "capturer", &["PAYMENTS_CAPTURE"]).await;
    let mut pending = input(800, "tok_visa");
    pending["confirm"] = json!(false);
    let pending = created_id(&app, &key, "pending", pending).await;
    let (_, body) = app
        .post(Some(&capturer), cancel, json!({"id": pending}))
        .await;
    assert_eq!(first_error_code(&body), "FORBIDDEN", "{body}");
    assert_eq!(error_extension(&body, "requiredScope"), "PAYMENTS_WRITE");
    let voided = app
        .query(&capturer, cancel, json!({"id": authorized}))
        .await;
    assert_eq!(voided["cancelPayment"]["payment"]["status"], "CANCELED");
    let still = app
        .query(
            &key,
            "query P($id: ID!) { payment(id: $id) { status } }",
            json!({"id": pending}),
        )
        .await;
    assert_eq!(still["payment"]["status"], "PENDING");
}

on_both_backends_fn!(
    each_key_scope_allows_exactly_its_fields,
    keys_are_created_by_unrestricted_keys_only_and_listed_without_secrets,
    an_account_holds_a_bounded_number_of_live_keys,
    restricted_keys_mint_tokens_only_within_their_scopes,
    restricted_keys_are_revoked_and_rolled_like_any_key,
    what_a_scope_does_not_cover_stays_out_of_sight,
);
