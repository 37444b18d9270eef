//! The checkout example (`examples/checkout`) in a real browser: its merchant server
//! (`server.mjs`, plain Node) renders each page with a client token and a submit token it
//! mints with the account's secret key, and Debian's Chromium, driven by
//! `tests/browser/checkout.mjs`, pays on it against the gateway with the sandbox's test cards:
//! approved however often Pay is pressed or its request resent (one payment), through 3-D
//! Secure and back to the checkout's return page, declined, and with a forged submit token. The
//! gateway runs the checkout's trusted documents only for client tokens, allows its origin
//! (CORS) and requires client tokens to pay with submit tokens. Runs on PostgreSQL when
//! `TEST_DATABASE_URL` is set, else on SQLite. Compiled as ignored when Chromium, Node, the
//! script's `node_modules` or a built checkout was missing at build time; fails when one is
//! missing at run time.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

use crate::helpers::prerequisites::CHROMIUM;
use crate::helpers::{TestApp, browser_backend, browser_root, free_port};

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[cfg_attr(
    not(browser_tests),
    ignore = "BROWSER test NOT run: `node`, /usr/bin/chromium, tests/browser/node_modules, \
              examples/dashboard/dist or examples/checkout/dist was missing when the tests were \
              built (see .ci/run)"
)]
async fn a_rendered_checkout_pays_once_through_3ds_and_shows_declines() {
    let root = browser_root();
    let backend = browser_backend();
    let port = free_port();
    let origin = format!("http://127.0.0.1:{port}");
    let manifest = root.join("examples/checkout/persisted-documents.json");
    let allowed = origin.clone();
    let app = TestApp::spawn_with(backend, |c| {
        c.cors_allowed_origins = vec![allowed];
        c.trusted_documents = Some(manifest.clone());
        c.client_tokens_trusted_documents_only = true;
        c.submit_tokens.required_for_client_tokens = true;
    })
    .await;
    let (_, key) = app.account("Checkout Shop").await;
    a_key_of_the_pages_own_is_refused(&app, &key, &manifest).await;

    let artifacts = root.join("target/browser-artifacts");
    std::fs::create_dir_all(&artifacts).expect("target/browser-artifacts is writable");
    for old in std::fs::read_dir(&artifacts).expect("target/browser-artifacts is readable") {
        let path = old.expect("a directory entry").path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if name.starts_with("checkout-") {
            let _ = std::fs::remove_file(&path);
        }
    }
    let server_log = artifacts.join("checkout-server.log");
    let _server = CheckoutServer::start(root, &app.address, &key, port, &server_log).await;

    let mut script = Command::new("node");
    script
        .arg("checkout.mjs")
        .current_dir(root.join("tests/browser"))
        .env("CHROMIUM", CHROMIUM)
        .env("CHECKOUT_URL", &origin)
        .env("GATEWAY_URL", &app.address)
        .env("SECRET_KEY", &key)
        .env("MANIFEST", &manifest)
        .env("ARTIFACTS", &artifacts)
        .stdin(Stdio::null())
        .kill_on_drop(true);
    let (status, stdout, stderr) =
        crate::helpers::run_driver(&mut script, Duration::from_secs(180)).await;
    assert!(
        status.success(),
        "the checkout's browser checks failed ({}):\n{stdout}\n{stderr}\nthe merchant server's \
         log:\n{}",
        status,
        std::fs::read_to_string(&server_log).unwrap_or_default()
    );
    println!("{stderr}");
    let scenarios: Vec<Value> = stdout
        .lines()
        .map(|line| serde_json::from_str(line).expect("a JSON line"))
        .collect();
    let names: Vec<&str> = scenarios
        .iter()
        .map(|s| s["scenario"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["paid", "threeDSecure", "declined", "forgedToken"],
        "{stdout}"
    );

    // What the merchant sees afterwards: one payment per rendered page that paid, each one the
    // use of its page's submit token, and nothing from the forged one.
    let listed = app
        .query(
            &key,
            "{ payments(first: 10) { totalCount nodes { id } } }",
            json!({}),
        )
        .await;
    assert_eq!(listed["payments"]["totalCount"], 3, "{listed}");
    for (scenario, statuses) in [
        (&scenarios[0], &["PROCESSING", "SUCCEEDED"][..]),
        (
            &scenarios[1],
            &["PROCESSING", "REQUIRES_ACTION", "PROCESSING", "SUCCEEDED"][..],
        ),
        (&scenarios[2], &["PROCESSING", "FAILED"][..]),
    ] {
        let id = scenario["paymentId"].as_str().unwrap();
        assert_eq!(events_of(&app, &key, id).await, statuses, "{scenario}");
        let record = app
            .query(
                &key,
                "query($key: String!) { idempotencyRecord(key: $key) { state payment { id } } }",
                json!({"key": scenario["submitToken"]}),
            )
            .await;
        assert_eq!(
            record["idempotencyRecord"],
            json!({"state": "COMPLETED", "payment": {"id": id}}),
            "{scenario}"
        );
    }
    let forged = app
        .query(
            &key,
            "query($key: String!) { idempotencyRecord(key: $key) { state } }",
            json!({"key": scenarios[3]["submitToken"]}),
        )
        .await;
    assert_eq!(forged["idempotencyRecord"], Value::Null, "{forged}");

    let screenshots = screenshots(&artifacts);
    for name in ["paid", "action", "returned", "declined", "forged-token"] {
        let file = format!("checkout-{name}.png");
        assert!(
            screenshots.iter().any(|s| s.ends_with(&file)),
            "no {file} in {}",
            artifacts.display()
        );
    }
    let _ = writeln!(
        std::io::stderr(),
        "checkout browser test ({backend:?}) passed ({} createPayment requests for one payment); \
         screenshots: {}",
        scenarios[0]["requests"],
        artifacts.join("checkout-*.png").display()
    );
}

/// The checkout's own document, sent with a client token but a key the page made up rather
/// than the merchant's submit token, is refused: a page cannot pay more than once by choosing
/// new keys.
async fn a_key_of_the_pages_own_is_refused(app: &TestApp, key: &str, manifest: &Path) {
    let documents: Value = serde_json::from_str(
        &std::fs::read_to_string(manifest).expect("the checkout's manifest is readable"),
    )
    .expect("the checkout's manifest is JSON");
    let pay = documents
        .as_object()
        .expect("the manifest is an object")
        .iter()
        .find(|(_, text)| text.as_str().unwrap().starts_with("mutation CheckoutPay("))
        .map(|(id, _)| id.clone())
        .expect("the manifest has CheckoutPay");
    let minted = app
        .query(
            key,
            "mutation { createClientToken(input: {scopes: [PAYMENTS_WRITE]}) { token } }",
            json!({}),
        )
        .await;
    let token = minted["createClientToken"]["token"].as_str().unwrap();
    let answer: Value = app
        .http
        .post(format!("{}/graphql", app.address))
        .bearer_auth(token)
        .json(&json!({"documentId": pay, "variables": {
            "input": {"amount": 1999, "currency": "USD", "source": "tok_visa"},
            "submitToken": "order-42-attempt-1",
        }}))
        .send()
        .await
        .expect("the gateway answers")
        .json()
        .await
        .expect("a JSON answer");
    assert_eq!(
        answer["errors"][0]["extensions"]["code"], "INVALID_IDEMPOTENCY_KEY",
        "{answer}"
    );
}

/// The statuses a payment went through, oldest first.
async fn events_of(app: &TestApp, key: &str, id: &str) -> Vec<String> {
    let data = app
        .query(
            key,
            "query($id: ID!) { payment(id: $id) { events { toStatus } } }",
            json!({"id": id}),
        )
        .await;
    data["payment"]["events"]
        .as_array()
        .expect("the payment's events")
        .iter()
        .map(|e| e["toStatus"].as_str().unwrap().to_string())
        .collect()
}

fn screenshots(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .expect("target/browser-artifacts is readable")
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "png"))
        .collect()
}

/// `node examples/checkout/server.mjs`, the merchant's server, for as long as this lives.
struct CheckoutServer {
    _child: Child,
}

impl CheckoutServer {
    /// Starts the server on `port` with the account's secret `key` and returns once it
    /// listens; what it logs goes to `log`.
    async fn start(root: &Path, gateway: &str, key: &str, port: u16, log: &Path) -> Self {
        let log_file = std::fs::File::create(log).expect("the merchant server's log is writable");
        let mut child = Command::new("node")
            .arg("server.mjs")
            .current_dir(root.join("examples/checkout"))
            .env("GRAPHPAY_URL", gateway)
            .env("GRAPHPAY_KEY", key)
            .env("HOST", "127.0.0.1")
            .env("PORT", port.to_string())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(log_file)
            .kill_on_drop(true)
            .spawn()
            .expect("node starts the checkout's server");
        let stdout = child.stdout.take().expect("the server's stdout");
        let mut lines = BufReader::new(stdout).lines();
        let listening = tokio::time::timeout(Duration::from_secs(20), async {
            while let Ok(Some(line)) = lines.next_line().await {
                if line.starts_with("checkout listening on ") {
                    return true;
                }
            }
            false
        })
        .await;
        assert!(
            matches!(listening, Ok(true)),
            "the checkout's server did not start: {}",
            std::fs::read_to_string(log).unwrap_or_default()
        );
        // Whatever else it prints is read, so that it never blocks on a full pipe.
        tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
        CheckoutServer { _child: child }
    }
}
