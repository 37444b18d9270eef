//! Secrets sealed at rest under the operator's key: a dump of the database (`pg_dump`, the
//! SQLite files) holds no webhook or signing secret in the clear, deliveries still verify,
//! a gateway without the key refuses to start on sealed secrets, and re-encryption moves every
//! secret to a new key.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use graphpay::config::{Config, SecretText, SecretsKey};
use graphpay::domain::sealed::Sealer;
use graphpay::persistence::{sealing, signing_keys};
use graphpay::startup::Application;
use serde_json::json;

use crate::helpers::{Backend, Receiver, TestApp, on_both_backends_fn};
use crate::merchant_webhooks::fast;
use crate::webhook_secret_roll::delivered;

const CREATE: &str = "mutation($input: CreateWebhookEndpointInput!) {
  createWebhookEndpoint(input: $input) { secret endpoint { id } } }";
const ROLL: &str = "mutation($id: ID!) {
  rollWebhookEndpointSecret(input: {id: $id, expireOldInSeconds: 3600}) { secret } }";

fn with_key(key: &str) -> impl FnOnce(&mut Config) + '_ {
    move |c: &mut Config| {
        fast(c);
        c.secrets_key = SecretsKey::Text(SecretText(key.to_string()));
    }
}

/// Everything the database holds, as bytes: `pg_dump` of the test's schema, or the SQLite
/// database file with its write-ahead log.
fn dump(app: &TestApp) -> Vec<u8> {
    let url = &app.db_config.url;
    match app.backend() {
        Backend::Postgres => {
            let schema = app.db_config.schema.clone().expect("a test schema");
            let out = std::process::Command::new("pg_dump")
                .args(["--no-owner", "--schema", &schema, "--dbname"])
                .arg(url)
                .output()
                .expect("pg_dump runs");
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            assert!(out.stdout.len() > 1000, "a dump of the tables");
            out.stdout
        }
        Backend::Sqlite => {
            let path = url
                .trim_start_matches("sqlite://")
                .split('?')
                .next()
                .unwrap()
                .to_string();
            let mut bytes = std::fs::read(&path).expect("the database file");
            if let Ok(wal) = std::fs::read(format!("{path}-wal")) {
                bytes.extend(wal);
            }
            bytes
        }
    }
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// The forms a secret could be found in: its text, and for a `whsec_` secret the key bytes.
fn forms(secret: &str) -> Vec<Vec<u8>> {
    let mut forms = vec![secret.as_bytes().to_vec()];
    if let Some(encoded) = secret.strip_prefix("whsec_") {
        forms.push(encoded.as_bytes().to_vec());
        forms.push(STANDARD.decode(encoded).unwrap());
    }
    forms
}

async fn a_dump_holds_no_secret_in_the_clear_and_deliveries_still_verify(backend: Backend) {
    let key = Sealer::generate_key();
    let mut app = TestApp::spawn_with(backend, with_key(&key)).await;
    let ready: serde_json::Value = app.get("/readyz").await.json().await.unwrap();
    assert_eq!(ready["secretsAtRest"], "sealed", "{ready}");
    let (_, api_key) = app.account("Acme").await;
    let receiver = Receiver::accepting().await;
    let created = app
        .query(&api_key, CREATE, json!({"input": {"url": receiver.url}}))
        .await;
    let endpoint = created["createWebhookEndpoint"]["endpoint"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let first = created["createWebhookEndpoint"]["secret"]
        .as_str()
        .unwrap()
        .to_string();
    let second = app.query(&api_key, ROLL, json!({"id": endpoint})).await
        ["rollWebhookEndpointSecret"]["secret"]
        .as_str()
        .unwrap()
        .to_string();
    signing_keys::add(&app.server_db, || ulid::Ulid::generate().to_string())
        .await
        .unwrap();
    let mut secrets = vec![first.clone(), second.clone()];
    secrets.extend(
        signing_keys::all(&app.server_db)
            .await
            .unwrap()
            .into_iter()
            .map(|k| k.secret),
    );
    assert_eq!(secrets.len(), 4);

    // Deliveries are signed with the opened secrets: both verify during the overlap.
    let got = delivered(&app, &api_key, &receiver, "p1").await;
    assert!(got.verifies_with(&second) && got.verifies_with(&first));

    let bytes = dump(&app);
    for secret in &secrets {
        for form in forms(secret) {
            assert!(
                !contains(&bytes, &form),
                "a secret in the clear in the dump"
            );
        }
    }
    assert!(
        contains(&bytes, b"sealed:v1:"),
        "the sealed forms are there"
    );

    // Without the key, or with another one, the gateway refuses to start on these secrets.
    for other in [
        SecretsKey::None,
        SecretsKey::Text(SecretText(Sealer::generate_key())),
    ] {
        let mut config = app.config.clone();
        config.secrets_key = other;
        let refused = Application::build(config).await.err().expect("refused");
        assert!(refused.to_string().contains("secrets at rest"), "{refused}");
    }

    // Moved to a new key: a gateway with it starts and signs with the same secrets.
    let new_key = Sealer::generate_key();
    let old = Sealer::from_base64(&key).unwrap();
    let new = Sealer::from_base64(&new_key).unwrap();
    app.stop().await;
    let moved = sealing::reseal(&app.db, &old, &new, true).await.unwrap();
    assert!(
        moved >= 5,
        "endpoint secrets, signing secrets, the webhook setting: {moved}"
    );
    let renewed = app.another_instance_with(with_key(&new_key)).await;
    let delivered = delivered(&renewed, &api_key, &receiver, "p2").await;
    assert!(delivered.verifies_with(&second));
}

/// Without a key the secrets are stored as they are, and the gateway says so; when it next
/// starts with a key, it seals them.
async fn secrets_stored_without_a_key_are_sealed_when_a_key_arrives(backend: Backend) {
    let app = TestApp::spawn_with(backend, fast).await;
    let ready: serde_json::Value = app.get("/readyz").await.json().await.unwrap();
    assert_eq!(
        ready["secretsAtRest"],
        "in the clear: no secrets key is configured"
    );
    let (_, api_key) = app.account("Acme").await;
    let receiver = Receiver::accepting().await;
    let created = app
        .query(&api_key, CREATE, json!({"input": {"url": receiver.url}}))
        .await;
    let secret = created["createWebhookEndpoint"]["secret"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        contains(&dump(&app), secret.as_bytes()),
        "in the clear, as said"
    );
    let key = Sealer::generate_key();
    let _sealed = app.another_instance_with(with_key(&key)).await;
    let bytes = dump(&app);
    for form in forms(&secret) {
        assert!(!contains(&bytes, &form), "sealed at the start with a key");
    }
}

on_both_backends_fn!(
    a_dump_holds_no_secret_in_the_clear_and_deliveries_still_verify,
    secrets_stored_without_a_key_are_sealed_when_a_key_arrives,
);
