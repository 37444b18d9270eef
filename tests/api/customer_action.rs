//! Customer action (3-D Secure): `tok_threeDSecure` answers "the customer must act"; the
//! payment waits in REQUIRES_ACTION with `nextAction`, on the sandbox's own page (the gateway's
//! listener for the in-process sandbox, the sandbox service's when it runs apart); the
//! customer's answer reaches the gateway as a signed processor webhook and the browser goes
//! back to `returnUrl` with `payment_id`. A second answer changes nothing; an abandoned action
//! expires to CANCELED, ACTION_EXPIRED; cancelling withdraws it at the processor first.

use std::time::Duration;

use serde_json::{Value, json};

use crate::helpers::{
    Backend, Receiver, SandboxProcess, TestApp, assert_consistent, create, free_port,
    on_both_backends_fn, sandbox_db,
};
use crate::network::gateway;

const RETURN_URL: &str = "https://shop.example/checkout/done?order=8812";

const SHOW: &str = "query($id: ID!) { payment(id: $id) { status captureMethod failureCode \
    amountCaptured amountCapturable cancellationReason nextAction { type redirectUrl } \
    events { fromStatus toStatus } } }";

/// A payment of 1234 USD from `tok_threeDSecure`, which must wait for its customer; returns
/// its id and the page the customer acts on.
pub(crate) async fn needing_action(
    app: &TestApp,
    key: &str,
    idem: &str,
    return_url: &str,
    manual: bool,
) -> (String, String) {
    let mut input = json!({"amount": 1234, "currency": "USD", "source": "tok_threeDSecure",
        "returnUrl": return_url});
    if manual {
        input["captureMethod"] = "MANUAL".into();
    }
    let created = create(app, key, idem, input).await;
    let payment = &created["payment"];
    assert_eq!(payment["status"], "REQUIRES_ACTION", "{created}");
    let shown = show(app, key, payment["id"].as_str().unwrap()).await;
    assert_eq!(shown["nextAction"]["type"], "REDIRECT_TO_URL", "{shown}");
    (
        payment["id"].as_str().unwrap().to_string(),
        shown["nextAction"]["redirectUrl"]
            .as_str()
            .unwrap()
            .to_string(),
    )
}

async fn show(app: &TestApp, key: &str, id: &str) -> Value {
    app.query(key, SHOW, json!({"id": id})).await["payment"].clone()
}

fn statuses(payment: &Value) -> Vec<String> {
    payment["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["toStatus"].as_str().unwrap().to_string())
        .collect()
}

/// A client that, like a browser told not to follow, shows where a redirect goes.
fn browser() -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
}

/// Presses a button of the action page; returns the status and where the browser is sent.
async fn press(page: &str, button: &str) -> (u16, Option<String>) {
    let answered = browser()
        .post(format!("{page}/{button}"))
        .send()
        .await
        .unwrap();
    let location = answered
        .headers()
        .get("location")
        .map(|l| l.to_str().unwrap().to_string());
    (answered.status().as_u16(), location)
}

async fn an_approved_action_succeeds_and_sends_the_customer_back(backend: Backend) {
    let app = TestApp::spawn_with(backend, |c| {
        crate::merchant_webhooks::fast(c);
        c.sandbox_webhook_delay = Duration::from_millis(10);
    })
    .await;
    let (account, key) = app.account("Alice").await;
    let receiver = Receiver::accepting().await;
    app.query(
        &key,
        "mutation($url: String!) { createWebhookEndpoint(input: {url: $url}) { secret } }",
        json!({"url": receiver.url}),
    )
    .await;
    let (id, page) = needing_action(&app, &key, "a", RETURN_URL, false).await;
    assert!(
        page.starts_with(&app.address),
        "served by the gateway: {page}"
    );

    // The page shows the amount and two buttons, and loads nothing from elsewhere.
    let shown = reqwest::get(&page).await.unwrap();
    let policy = shown.headers()["content-security-policy"]
        .to_str()
        .unwrap()
        .to_string();
    assert!(policy.contains("default-src 'none'"), "{policy}");
    let html = shown.text().await.unwrap();
    for needle in ["12.34 USD", "id=\"approve\"", "id=\"decline\""] {
        assert!(html.contains(needle), "{needle} in {html}");
    }
    assert!(!html.contains("<script"), "{html}");

    let (status, location) = press(&page, "approve").await;
    assert_eq!(status, 303);
    assert_eq!(
        location.as_deref(),
        Some(format!("{RETURN_URL}&payment_id={id}").as_str())
    );
    let payment = show(&app, &key, &id).await;
    assert_eq!(payment["status"], "SUCCEEDED", "{payment}");
    assert_eq!(payment["amountCaptured"], 1234);
    assert!(payment["nextAction"].is_null(), "{payment}");
    assert_eq!(
        statuses(&payment),
        ["PROCESSING", "REQUIRES_ACTION", "PROCESSING", "SUCCEEDED"]
    );

    // A second press, of either button, changes nothing, and still sends the customer back.
    let (status, location) = press(&page, "decline").await;
    assert_eq!(status, 303);
    assert!(location.unwrap().ends_with(&format!("payment_id={id}")));
    assert_eq!(show(&app, &key, &id).await["status"], "SUCCEEDED");
    let again = reqwest::get(&page).await.unwrap().text().await.unwrap();
    assert!(again.contains("needs no action"), "{again}");

    // The merchant hears every step, in order.
    let got = receiver.until(|r| r.len() >= 4).await;
    let types: Vec<_> = got
        .iter()
        .map(|r| r.json()["type"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        types,
        [
            "payment.processing",
            "payment.requires_action",
            "payment.processing",
            "payment.succeeded"
        ]
    );
    assert_consistent(&app, &account).await;
}

async fn a_declined_action_fails_and_a_manual_one_waits_for_capture(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let (account, key) = app.account("Alice").await;
    let (declined, page) = needing_action(&app, &key, "d", RETURN_URL, false).await;
    assert_eq!(press(&page, "decline").await.0, 303);
    let payment = show(&app, &key, &declined).await;
    assert_eq!(payment["status"], "FAILED", "{payment}");
    assert_eq!(payment["failureCode"], "authentication_failed");
    assert_eq!(
        statuses(&payment),
        ["PROCESSING", "REQUIRES_ACTION", "PROCESSING", "FAILED"]
    );
    assert_eq!(press(&page, "approve").await.0, 303);
    assert_eq!(show(&app, &key, &declined).await["status"], "FAILED");

    let (manual, page) = needing_action(&app, &key, "m", RETURN_URL, true).await;
    assert_eq!(press(&page, "approve").await.0, 303);
    let payment = show(&app, &key, &manual).await;
    assert_eq!(payment["status"], "REQUIRES_CAPTURE", "{payment}");
    assert_eq!(payment["amountCapturable"], 1234);
    assert_consistent(&app, &account).await;
}

async fn an_abandoned_action_expires_and_a_late_answer_changes_nothing(backend: Backend) {
    let app = TestApp::spawn_with(backend, |c| c.lifecycle.action_ttl = Duration::ZERO).await;
    let (account, key) = app.account("Alice").await;
    let (abandoned, page) = needing_action(&app, &key, "x", RETURN_URL, false).await;
    let report = app.payments.reconcile(app.config.reconcile).await.unwrap();
    assert_eq!(report.actions, 1, "{report:?}");
    let payment = show(&app, &key, &abandoned).await;
    assert_eq!(payment["status"], "CANCELED", "{payment}");
    assert_eq!(payment["cancellationReason"], "ACTION_EXPIRED");
    // The customer comes back too late: the processor withdrew the action, nothing is taken.
    assert_eq!(press(&page, "approve").await.0, 303);
    assert_eq!(show(&app, &key, &abandoned).await["status"], "CANCELED");
    let taken = app
        .db
        .query_text(&format!(
            "SELECT status FROM sandbox_operations WHERE idempotency_key = '{abandoned}'"
        ))
        .await
        .unwrap();
    assert_eq!(taken, [["expired"]]);
    assert_consistent(&app, &account).await;
}

async fn an_answer_whose_webhook_was_lost_is_found_by_the_reconciler(backend: Backend) {
    let app = TestApp::spawn_with(backend, |c| c.lifecycle.action_ttl = Duration::ZERO).await;
    let (account, key) = app.account("Alice").await;
    let (id, _) = needing_action(&app, &key, "l", RETURN_URL, false).await;
    // The customer approved at the processor, but its webhook never arrived.
    graphpay::persistence::sandbox::settle(&app.db, &id, "action_required", "approved")
        .await
        .unwrap();
    let report = app.payments.reconcile(app.config.reconcile).await.unwrap();
    assert_eq!(report.actions, 1, "{report:?}");
    let payment = show(&app, &key, &id).await;
    assert_eq!(payment["status"], "SUCCEEDED", "{payment}");
    assert_eq!(
        statuses(&payment),
        ["PROCESSING", "REQUIRES_ACTION", "PROCESSING", "SUCCEEDED"]
    );
    assert_consistent(&app, &account).await;
}

async fn a_client_token_cancels_an_action_which_the_processor_then_refuses(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let (account, key) = app.account("Alice").await;
    let token = app
        .query(
            &key,
            "mutation { createClientToken(input: {scopes: [PAYMENTS_WRITE]}) { token } }",
            json!({}),
        )
        .await["createClientToken"]["token"]
        .as_str()
        .unwrap()
        .to_string();
    let (id, page) = needing_action(&app, &key, "c", RETURN_URL, false).await;
    let body = app
        .post(
            Some(&token),
            "mutation($id: ID!) { cancelPayment(paymentId: $id, reason: ABANDONED) { payment { status cancellationReason } } }",
            json!({"id": id}),
        )
        .await
        .1;
    assert_eq!(
        body["data"]["cancelPayment"]["payment"]["status"], "CANCELED",
        "{body}"
    );
    assert_eq!(
        body["data"]["cancelPayment"]["payment"]["cancellationReason"],
        "ABANDONED"
    );
    assert_eq!(press(&page, "approve").await.0, 303);
    assert_eq!(show(&app, &key, &id).await["status"], "CANCELED");
    assert_consistent(&app, &account).await;
}

/// With the sandbox as its own service, the page is the service's, and the answer crosses the
/// network as a signed webhook to the gateway.
async fn the_sandbox_service_serves_its_own_action_page(backend: Backend) {
    let dir = tempfile::tempdir().unwrap();
    let db = sandbox_db(&dir);
    let port = free_port();
    // The service signs its webhooks with the gateway's secret and sends them to the gateway,
    // which listens on a port chosen first.
    let gateway_port = free_port();
    let processor = SandboxProcess::start_with_webhooks(
        port,
        &db.url,
        &format!("http://127.0.0.1:{gateway_port}/webhooks/processor"),
        "s3cret",
    );
    let app = gateway(backend, &processor.url, |c| {
        c.listen = std::net::SocketAddr::from(([127, 0, 0, 1], gateway_port));
        c.webhook_secret = Some("s3cret".into());
    })
    .await;
    let (account, key) = app.account("Alice").await;
    let (id, page) = needing_action(&app, &key, "s", RETURN_URL, false).await;
    assert!(
        page.starts_with(&processor.url),
        "served by the service: {page}"
    );
    let html = reqwest::get(&page).await.unwrap().text().await.unwrap();
    assert!(html.contains("12.34 USD"), "{html}");
    let (status, location) = press(&page, "approve").await;
    assert_eq!(status, 303);
    assert_eq!(
        location.as_deref(),
        Some(format!("{RETURN_URL}&payment_id={id}").as_str())
    );
    let payment = show(&app, &key, &id).await;
    assert_eq!(payment["status"], "SUCCEEDED", "{payment}");
    assert_consistent(&app, &account).await;
}

on_both_backends_fn!(
    an_approved_action_succeeds_and_sends_the_customer_back,
    a_declined_action_fails_and_a_manual_one_waits_for_capture,
    an_abandoned_action_expires_and_a_late_answer_changes_nothing,
    an_answer_whose_webhook_was_lost_is_found_by_the_reconciler,
    a_client_token_cancels_an_action_which_the_processor_then_refuses,
    the_sandbox_service_serves_its_own_action_page,
);
