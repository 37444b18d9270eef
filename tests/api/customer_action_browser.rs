//! Customer action (3-D Secure) in a real browser: Debian's Chromium, driven by
//! `tests/browser/customer_action.mjs`, follows each payment's `nextAction.redirectUrl` to the
//! sandbox's page on the gateway, presses approve or decline, and lands back on the shop's
//! `returnUrl` (served by this test on its own origin), which shows the payment's status as the
//! gateway tells the shop. Runs on PostgreSQL when `TEST_DATABASE_URL` is set, else on SQLite.
//! Compiled as ignored when Chromium, Node or the script's `node_modules` was missing at build
//! time; fails when one is missing at run time.

use std::io::Write;
use std::process::Stdio;
use std::time::Duration;

use axum::extract::{Query, State};
use axum::response::Html;
use serde_json::{Value, json};

use crate::customer_action::needing_action;
use crate::helpers::prerequisites::CHROMIUM;
use crate::helpers::{Receiver, TestApp, browser_backend, browser_root};

/// The shop: where the customer comes back to, showing what the gateway says of the payment.
#[derive(Clone)]
struct Shop {
    gateway: String,
    key: String,
}

async fn done(
    State(shop): State<Shop>,
    Query(query): Query<Vec<(String, String)>>,
) -> Html<String> {
    let id = query
        .iter()
        .find(|(name, _)| name == "payment_id")
        .map(|(_, value)| value.clone())
        .unwrap_or_default();
    let answer: Value = reqwest::Client::new()
        .post(format!("{}/graphql", shop.gateway))
        .bearer_auth(&shop.key)
        .json(
            &json!({"query": "query($id: ID!) { payment(id: $id) { status } }",
            "variables": {"id": id}}),
        )
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let status = answer["data"]["payment"]["status"]
        .as_str()
        .unwrap_or("unknown");
    Html(format!(
        "<!doctype html><title>Shop</title><p id=\"shop\">{status}</p>"
    ))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[cfg_attr(
    not(browser_tests),
    ignore = "BROWSER test NOT run: `node`, /usr/bin/chromium, tests/browser/node_modules or \
              examples/dashboard/dist was missing when the tests were built (see .ci/run)"
)]
async fn a_shopper_approves_or_declines_on_the_action_page_and_lands_back_at_the_shop() {
    let root = browser_root();
    let backend = browser_backend();
    let app = TestApp::spawn_with(backend, |c| {
        c.deliveries.policy.allow_private = true;
    })
    .await;
    let (_, key) = app.account("Checkout Shop").await;
    let receiver = Receiver::accepting().await;
    app.query(
        &key,
        "mutation($url: String!) { createWebhookEndpoint(input: {url: $url}) { secret } }",
        json!({"url": receiver.url}),
    )
    .await;

    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let shop_origin = format!("http://{}", listener.local_addr().unwrap());
    let router = axum::Router::new()
        .route("/done", axum::routing::get(done))
        .with_state(Shop {
            gateway: app.address.clone(),
            key: key.clone(),
        });
    let shop = tokio::spawn(async move {
        let _ = axum::serve(listener, router).await;
    });
    let return_url = format!("{shop_origin}/done?order=8812");

    let mut actions = Vec::new();
    let mut expected = Vec::new();
    for (idem, manual, button, outcome) in [
        ("approve", false, "approve", "SUCCEEDED"),
        ("manual", true, "approve", "REQUIRES_CAPTURE"),
        ("decline", false, "decline", "FAILED"),
    ] {
        let (id, url) = needing_action(&app, &key, idem, &return_url, manual).await;
        actions.push(json!({"paymentId": id, "url": url, "button": button, "amount": "12.34 USD"}));
        expected.push((id, outcome));
    }

    let artifacts = root.join("target/browser-artifacts");
    std::fs::create_dir_all(&artifacts).expect("target/browser-artifacts is writable");
    let screenshot = artifacts.join("customer-action.png");
    let _ = std::fs::remove_file(&screenshot);
    let mut script = tokio::process::Command::new("node");
    script
        .arg("customer_action.mjs")
        .current_dir(root.join("tests/browser"))
        .env("CHROMIUM", CHROMIUM)
        .env("ACTIONS", Value::from(actions).to_string())
        .env("SHOP_ORIGIN", &shop_origin)
        .env("SCREENSHOT", &screenshot)
        .stdin(Stdio::null())
        .kill_on_drop(true);
    let (status, stdout, stderr) =
        crate::helpers::run_driver(&mut script, Duration::from_secs(180)).await;
    assert!(
        status.success(),
        "the customer-action browser checks failed ({}):\n{stdout}\n{stderr}",
        status
    );
    let landed: Vec<Value> = stdout
        .lines()
        .map(|line| serde_json::from_str(line).expect("a JSON line"))
        .collect();
    assert_eq!(landed.len(), expected.len(), "{stdout}");
    for ((id, outcome), seen) in expected.iter().zip(&landed) {
        assert_eq!(seen["paymentId"], id.as_str());
        assert!(
            seen["landedOn"]
                .as_str()
                .unwrap()
                .starts_with(&format!("{return_url}&payment_id={id}")),
            "{seen}"
        );
        assert_eq!(
            seen["shopSaid"], *outcome,
            "the shop read the outcome: {seen}"
        );
        let events = app
            .query(
                &key,
                "query($id: ID!) { payment(id: $id) { events { toStatus } } }",
                json!({"id": id}),
            )
            .await;
        let statuses: Vec<_> = events["payment"]["events"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["toStatus"].as_str().unwrap().to_string())
            .collect();
        assert_eq!(
            statuses,
            ["PROCESSING", "REQUIRES_ACTION", "PROCESSING", *outcome],
            "{id}"
        );
    }
    // Every change reached the merchant's endpoint: four per payment.
    let got = receiver.until(|r| r.len() >= 4 * expected.len()).await;
    for (id, outcome) in &expected {
        let types: Vec<_> = got
            .iter()
            .map(|r| r.json())
            .filter(|body| body["data"]["payment"]["id"] == id.as_str())
            .map(|body| body["type"].as_str().unwrap().to_string())
            .collect();
        let last = format!("payment.{}", outcome.to_lowercase());
        assert_eq!(
            types,
            [
                "payment.processing",
                "payment.requires_action",
                "payment.processing",
                last.as_str()
            ],
            "{id}"
        );
    }
    shop.abort();
    assert!(
        screenshot.is_file(),
        "no screenshot at {}",
        screenshot.display()
    );
    let _ = writeln!(
        std::io::stderr(),
        "customer action browser test ({backend:?}) passed; screenshot: {}",
        screenshot.display()
    );
}
