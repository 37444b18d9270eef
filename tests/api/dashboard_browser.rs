//! The dashboard example (`examples/dashboard`) in a real browser: Debian's Chromium, driven by
//! `tests/browser/dashboard.mjs`, against a gateway that lets client tokens run the dashboard's
//! trusted documents only, with the built dashboard served from another origin. The payments
//! carry a reference and metadata, which the details show; the script also drops the page's
//! WebSocket, changes payments while it is down, and checks that the page hears every change
//! once when it reconnects. Runs on PostgreSQL when `TEST_DATABASE_URL` is set, else on SQLite.
//! Compiled as ignored when Chromium, Node, the script's `node_modules` or a built dashboard
//! was missing at build time; fails when one is missing at run time.

use std::io::Write;
use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use serde_json::{Value, json};
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

use crate::helpers::prerequisites::CHROMIUM;
use crate::helpers::{TestApp, browser_backend, browser_root};

const PAYMENTS: usize = 120;

const CREATE: &str = "mutation Create($input: CreatePaymentInput!, $key: String!) {
  createPayment(input: $input, idempotencyKey: $key) {
    payment { id status createdAt reference metadata { key value } }
  }
}";
const MINT: &str = "mutation Mint($scopes: [ClientTokenScope!]!) {
  createClientToken(input: {scopes: $scopes, ttlSeconds: 3600}) { token scopes }
}";

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[cfg_attr(
    not(browser_tests),
    ignore = "BROWSER test NOT run: `node`, /usr/bin/chromium, tests/browser/node_modules or \
              examples/dashboard/dist was missing when the tests were built (see .ci/run)"
)]
async fn the_dashboard_shows_each_payment_and_each_change_once_even_across_a_dropped_socket() {
    let root = browser_root();
    let backend = browser_backend();

    let dashboard = StaticSite::serve(root.join("examples/dashboard/dist")).await;
    let manifest = root.join("examples/dashboard/persisted-documents.json");
    let origin = dashboard.origin.clone();
    let app = TestApp::spawn_with(backend, |c| {
        c.cors_allowed_origins = vec![origin];
        c.trusted_documents = Some(manifest.clone());
        c.client_tokens_trusted_documents_only = true;
    })
    .await;
    let (_, key) = app.account("Dashboard Shop").await;

    let (newest_first, merchant_data) = create_payments(&app, &key).await;
    let token = mint(&app, &key, &["PAYMENTS_READ", "REFUNDS_WRITE"]).await;
    let read_only = mint(&app, &key, &["PAYMENTS_READ"]).await;
    assert_eq!(
        app.error_code(&token, "{ viewer { id } }", json!({})).await,
        "PERSISTED_QUERY_REQUIRED",
        "the gateway runs only the dashboard's documents for client tokens"
    );

    let artifacts = root.join("target/browser-artifacts");
    std::fs::create_dir_all(&artifacts).expect("target/browser-artifacts is writable");
    let screenshot = artifacts.join("dashboard.png");
    let _ = std::fs::remove_file(&screenshot);

    let mut script = tokio::process::Command::new("node");
    script
        .arg("dashboard.mjs")
        .current_dir(root.join("tests/browser"))
        .env("CHROMIUM", CHROMIUM)
        .env("DASHBOARD_URL", &dashboard.origin)
        .env("GATEWAY_URL", &app.address)
        .env("CLIENT_TOKEN", &token)
        .env("READ_ONLY_TOKEN", &read_only)
        .env("SECRET_KEY", &key)
        .env("EXPECTED_IDS", Value::from(newest_first).to_string())
        .env("EXPECTED_DATA", merchant_data.to_string())
        .env("MANIFEST", &manifest)
        .env("SCREENSHOT", &screenshot)
        .stdin(Stdio::null())
        .kill_on_drop(true);
    let (status, stdout, stderr) =
        crate::helpers::run_driver(&mut script, Duration::from_secs(240)).await;
    assert!(
        status.success(),
        "the dashboard's browser checks failed ({}):\n{stdout}\n{stderr}",
        status
    );
    println!("{stdout}");
    assert!(
        screenshot.is_file(),
        "no screenshot at {}",
        screenshot.display()
    );
    loud(&format!(
        "dashboard browser test ({backend:?}) passed; screenshot: {}",
        screenshot.display()
    ));
}

/// Writes past the test harness's output capture, so the line is in every log.
fn loud(line: &str) {
    let _ = writeln!(std::io::stderr(), "{line}");
}

/// Creates the payments one after another, each a little later than the one before, each with
/// a reference and metadata (given out of key order); returns their ids newest first, the
/// dashboard's order, and each one's reference and metadata as given, by id.
async fn create_payments(app: &TestApp, key: &str) -> (Vec<String>, Value) {
    let mut created: Vec<(OffsetDateTime, String)> = Vec::with_capacity(PAYMENTS);
    let mut merchant_data = serde_json::Map::new();
    for n in 1..=PAYMENTS {
        let reference = format!("ORD-{:05}", 40_000 + n * 7);
        let metadata = json!([
            {"key": "order_line", "value": format!("{n}")},
            {"key": "channel", "value": if n % 3 == 0 { "phone" } else { "web" }},
            {"key": "customer.segment", "value": format!("tier {}", n % 4)},
        ]);
        let input = json!({
            "amount": 1000 + n,
            "currency": "USD",
            "source": "tok_visa",
            "description": format!("Order {n}"),
            "reference": reference,
            "metadata": metadata,
        });
        let data = app
            .query(
                key,
                CREATE,
                json!({"input": input, "key": format!("order-{n}")}),
            )
            .await;
        let payment = &data["createPayment"]["payment"];
        assert_eq!(payment["status"], "SUCCEEDED", "{payment}");
        assert_eq!(payment["reference"], reference.as_str(), "{payment}");
        let keys: Vec<&str> = payment["metadata"]
            .as_array()
            .expect("metadata is a list")
            .iter()
            .map(|entry| entry["key"].as_str().unwrap())
            .collect();
        assert_eq!(
            keys,
            ["channel", "customer.segment", "order_line"],
            "{payment}"
        );
        let at = OffsetDateTime::parse(payment["createdAt"].as_str().unwrap(), &Rfc3339)
            .expect("createdAt is RFC 3339");
        if let Some((before, _)) = created.last() {
            assert!(
                at > *before,
                "payment {n} was not created after the one before it"
            );
        }
        let id = payment["id"].as_str().unwrap().to_string();
        merchant_data.insert(
            id.clone(),
            json!({"reference": reference, "metadata": metadata}),
        );
        created.push((at, id));
    }
    let newest_first = created.into_iter().rev().map(|(_, id)| id).collect();
    (newest_first, Value::Object(merchant_data))
}

async fn mint(app: &TestApp, key: &str, scopes: &[&str]) -> String {
    let data = app.query(key, MINT, json!({"scopes": scopes})).await;
    let token = data["createClientToken"]["token"].as_str().unwrap();
    assert!(token.starts_with("gpct_"), "{data}");
    token.to_string()
}

/// A directory served over HTTP on an ephemeral port: an origin of its own.
struct StaticSite {
    origin: String,
    server: tokio::task::JoinHandle<()>,
}

impl StaticSite {
    async fn serve(dir: PathBuf) -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("a port for the dashboard");
        let origin = format!("http://{}", listener.local_addr().unwrap());
        let router = axum::Router::new().fallback_service(tower_http::services::ServeDir::new(dir));
        let server = tokio::spawn(async move {
            let _ = axum::serve(listener, router).await;
        });
        StaticSite { origin, server }
    }
}

impl Drop for StaticSite {
    fn drop(&mut self) {
        self.server.abort();
    }
}
