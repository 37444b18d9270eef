//! Authorize now, capture later: `captureMethod: MANUAL`, `capturePayment` (in full, in part,
//! once), voids by `cancelPayment`, refunds bounded by what was captured, and the reconciler
//! settling lost captures and voiding authorizations past their deadline.

use std::time::Duration;

use graphpay::domain::time::Timestamp;
use graphpay::persistence::sandbox;
use serde_json::{Value, json};

use crate::helpers::{
    Backend, CREATE, SandboxProcess, TestApp, assert_consistent, create, error_extension,
    first_error_code, free_port, on_both_backends, on_both_backends_fn, refund, refund_payload,
    sandbox_db,
};
use crate::network::gateway;

const CAPTURE: &str = "mutation Capture($input: CapturePaymentInput!, $key: String!) {
  capturePayment(input: $input, idempotencyKey: $key) {
    replayed
    payment { id status amount amountCapturable amountCaptured amountRefundable captureBefore captureMethod }
  }
}";

const VOID: &str = "mutation Void($id: ID!, $key: String, $reason: CancellationReason) {
  cancelPayment(paymentId: $id, idempotencyKey: $key, reason: $reason) {
    replayed
    payment { id status amountCapturable amountCaptured cancellationReason }
  }
}";

const SHOW: &str = "query($id: ID!) { payment(id: $id) { status captureMethod amountCapturable amountCaptured amountRefunded amountRefundable captureBefore cancellationReason nextAction { type redirectUrl } events { fromStatus toStatus } } }";

/// An authorization of `amount` USD; returns the payment's id, which must be REQUIRES_CAPTURE.
async fn authorized(app: &TestApp, key: &str, idem: &str, amount: i64) -> String {
    let created = create(
        app,
        key,
        idem,
        json!({"amount": amount, "currency": "USD", "source": "tok_visa", "captureMethod": "MANUAL"}),
    )
    .await;
    assert_eq!(
        created["payment"]["status"], "REQUIRES_CAPTURE",
        "{created}"
    );
    created["payment"]["id"].as_str().unwrap().to_string()
}

async fn capture(app: &TestApp, key: &str, idem: &str, id: &str, amount: Option<i64>) -> Value {
    app.post(
        Some(key),
        CAPTURE,
        json!({"input": {"paymentId": id, "amount": amount}, "key": idem}),
    )
    .await
    .1
}

async fn show(app: &TestApp, key: &str, id: &str) -> Value {
    app.query(key, SHOW, json!({"id": id})).await["payment"].clone()
}

/// Captures the sandbox has recorded as taken, over all keys.
async fn captures_taken(app: &TestApp) -> usize {
    app.db
        .query_text("SELECT COUNT(*) FROM sandbox_operations WHERE kind = 'capture' AND status = 'approved'")
        .await
        .unwrap()[0][0]
        .parse()
        .unwrap()
}

on_both_backends! {
    async fn an_authorization_holds_the_amount_until_it_is_captured_in_full(app: TestApp) {
        let (account, key) = app.account("Alice").await;
        let before = Timestamp::now();
        let id = authorized(&app, &key, "a", 1000).await;
        let held = show(&app, &key, &id).await;
        assert_eq!(held["captureMethod"], "MANUAL");
        assert_eq!(held["amountCapturable"], 1000);
        assert_eq!(held["amountCaptured"], 0);
        assert_eq!(held["amountRefundable"], 0, "nothing is refundable before a capture");
        let deadline = Timestamp::parse_rfc3339(held["captureBefore"].as_str().unwrap()).unwrap();
        let week = 7 * 86_400 * 1_000_000;
        assert!(deadline.micros() >= before.micros() + week, "{held}");
        assert!(deadline.micros() <= Timestamp::now().micros() + week, "{held}");
        // Nothing can be refunded while only authorized.
        let (_, body) = refund(&app, &key, "r0", &id, None).await;
        assert_eq!(first_error_code(&body), "INVALID_STATE_TRANSITION", "{body}");

        let body = capture(&app, &key, "c", &id, None).await;
        let payment = &body["data"]["capturePayment"]["payment"];
        assert_eq!(payment["status"], "SUCCEEDED", "{body}");
        assert_eq!(payment["amountCaptured"], 1000);
        assert_eq!(payment["amountCapturable"], 0);
        assert_eq!(payment["amountRefundable"], 1000);
        assert_eq!(body["data"]["capturePayment"]["replayed"], false);
        let events: Vec<_> = show(&app, &key, &id).await["events"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["toStatus"].as_str().unwrap().to_string())
            .collect();
        assert_eq!(events, ["PROCESSING", "REQUIRES_CAPTURE", "SUCCEEDED"]);
        assert_eq!(captures_taken(&app).await, 1);
        assert_consistent(&app, &account).await;
    }

    async fn a_partial_capture_releases_the_rest_and_bounds_refunds(app: TestApp) {
        let (account, key) = app.account("Alice").await;
        let id = authorized(&app, &key, "a", 1000).await;
        let body = capture(&app, &key, "c", &id, Some(600)).await;
        let payment = &body["data"]["capturePayment"]["payment"];
        assert_eq!(payment["status"], "SUCCEEDED", "{body}");
        assert_eq!(payment["amountCaptured"], 600);
        assert_eq!(payment["amountCapturable"], 0, "the rest is released");
        assert_eq!(payment["amountRefundable"], 600);

        let (_, body) = refund(&app, &key, "r-too-much", &id, Some(601)).await;
        assert_eq!(first_error_code(&body), "REFUND_EXCEEDS_AVAILABLE", "{body}");
        let (_, body) = refund(&app, &key, "r1", &id, Some(200)).await;
        let refunded = &refund_payload(&body)["payment"];
        assert_eq!(refunded["status"], "PARTIALLY_REFUNDED", "{body}");
        assert_eq!(refunded["amountRefundable"], 400);
        let (_, body) = refund(&app, &key, "r2", &id, None).await;
        let refunded = &refund_payload(&body)["payment"];
        assert_eq!(refunded["status"], "REFUNDED", "{body}");
        assert_eq!(refunded["amountRefunded"], 600);
        assert_eq!(refunded["amountRefundable"], 0);
        assert_consistent(&app, &account).await;
    }

    async fn a_capture_beyond_what_is_capturable_or_a_second_capture_is_refused(app: TestApp) {
        let (account, key) = app.account("Alice").await;
        let id = authorized(&app, &key, "a", 1000).await;
        for amount in [1001, 0, -5, 100_000_000] {
            let body = capture(&app, &key, &format!("big-{amount}"), &id, Some(amount)).await;
            assert_eq!(first_error_code(&body), "INVALID_AMOUNT", "{amount}: {body}");
            assert!(body["data"]["capturePayment"].is_null(), "{body}");
        }
        assert_eq!(show(&app, &key, &id).await["status"], "REQUIRES_CAPTURE");
        let body = capture(&app, &key, "c1", &id, Some(1000)).await;
        assert_eq!(body["data"]["capturePayment"]["payment"]["status"], "SUCCEEDED", "{body}");
        let body = capture(&app, &key, "c2", &id, Some(10)).await;
        assert_eq!(first_error_code(&body), "INVALID_STATE_TRANSITION", "{body}");
        assert_eq!(error_extension(&body, "from"), "SUCCEEDED");
        assert_eq!(error_extension(&body, "operation"), "capture");
        // A charge captured at once cannot be captured again either.
        let charged = create(&app, &key, "auto", json!({"amount": 500, "currency": "USD", "source": "tok_visa"})).await;
        assert_eq!(charged["payment"]["status"], "SUCCEEDED");
        let auto = charged["payment"]["id"].as_str().unwrap();
        let body = capture(&app, &key, "c3", auto, None).await;
        assert_eq!(first_error_code(&body), "INVALID_STATE_TRANSITION", "{body}");
        assert_eq!(captures_taken(&app).await, 1);
        assert_consistent(&app, &account).await;
    }

    async fn a_refused_capture_leaves_its_key_free_and_the_payment_untouched(app: TestApp) {
        let (account, key) = app.account("Alice").await;
        let (_, bob) = app.account("Bob").await;
        let id = authorized(&app, &key, "a", 1000).await;
        let keys = |account: String| {
            let db = app.db.clone();
            async move {
                db.query_text(&format!(
                    "SELECT key FROM idempotency_keys WHERE account_id = '{account}' \
                     AND operation = 'capturePayment'"
                ))
                .await
                .unwrap()
                .len()
            }
        };
        // Another merchant's payment is unknown to Bob, and so is a made-up id.
        let unknown = "pay_00000000000000000000000000";
        for (who, payment, idem) in [(&bob, id.as_str(), "k1"), (&key, unknown, "k2")] {
            let body = capture(&app, who, idem, payment, None).await;
            assert_eq!(first_error_code(&body), "BAD_USER_INPUT", "{body}");
            assert_eq!(error_extension(&body, "field"), "paymentId", "{body}");
        }
        let body = capture(&app, &key, "k3", &id, Some(1001)).await;
        assert_eq!(first_error_code(&body), "INVALID_AMOUNT", "{body}");
        assert_eq!(keys(account.clone()).await, 0, "refused captures leave no key");
        let held = show(&app, &key, &id).await;
        assert_eq!(held["status"], "REQUIRES_CAPTURE");
        assert_eq!(held["amountCapturable"], 1000);
        // The refused keys are free: the same key now captures, with other arguments.
        for idem in ["k1", "k2", "k3"] {
            let id = authorized(&app, &key, &format!("a-{idem}"), 500).await;
            let body = capture(&app, &key, idem, &id, Some(400)).await;
            let payment = &body["data"]["capturePayment"]["payment"];
            assert_eq!(payment["status"], "SUCCEEDED", "{idem}: {body}");
            assert_eq!(payment["amountCaptured"], 400);
            assert_eq!(body["data"]["capturePayment"]["replayed"], false);
        }
        assert_eq!(show(&app, &key, &id).await["status"], "REQUIRES_CAPTURE");
        assert_eq!(captures_taken(&app).await, 3);
        assert_consistent(&app, &account).await;
    }

    async fn a_capture_replayed_by_its_key_calls_the_processor_once(app: TestApp) {
        let (account, key) = app.account("Alice").await;
        let id = authorized(&app, &key, "a", 1000).await;
        let first = capture(&app, &key, "c", &id, Some(700)).await;
        let again = capture(&app, &key, "c", &id, Some(700)).await;
        assert_eq!(again["data"]["capturePayment"]["replayed"], true, "{again}");
        assert_eq!(
            again["data"]["capturePayment"]["payment"],
            first["data"]["capturePayment"]["payment"]
        );
        let other = capture(&app, &key, "c", &id, Some(600)).await;
        assert_eq!(first_error_code(&other), "IDEMPOTENCY_KEY_REUSED", "{other}");
        assert_eq!(captures_taken(&app).await, 1);
        assert_consistent(&app, &account).await;
    }

    async fn thirty_concurrent_captures_with_thirty_keys_capture_once(app: TestApp) {
        let (account, key) = app.account("Alice").await;
        let id = authorized(&app, &key, "a", 1000).await;
        let answers = futures_util::future::join_all((0..30).map(|i| {
            let (app, key, id) = (&app, &key, &id);
            async move { capture(app, key, &format!("k{i}"), id, Some(100 + i)).await }
        }))
        .await;
        let captured: Vec<_> = answers
            .iter()
            .filter(|a| a["data"]["capturePayment"]["payment"]["status"] == "SUCCEEDED")
            .collect();
        assert_eq!(captured.len(), 1, "{answers:?}");
        for answer in answers.iter().filter(|a| a["errors"].is_array()) {
            assert_eq!(first_error_code(answer), "INVALID_STATE_TRANSITION", "{answer}");
        }
        let amount = captured[0]["data"]["capturePayment"]["payment"]["amountCaptured"].clone();
        assert_eq!(show(&app, &key, &id).await["amountCaptured"], amount);
        assert_eq!(captures_taken(&app).await, 1);
        assert_consistent(&app, &account).await;
    }

    async fn captures_and_voids_racing_leave_one_outcome_agreed_with_the_processor(app: TestApp) {
        let (account, key) = app.account("Alice").await;
        for round in 0..3 {
            let id = authorized(&app, &key, &format!("a{round}"), 1000).await;
            let answers = futures_util::future::join_all((0..16).map(|i| {
                let (app, key, id) = (&app, &key, &id);
                async move {
                    if i % 2 == 0 {
                        capture(app, key, &format!("c{round}-{i}"), id, None).await
                    } else {
                        app.post(Some(key), VOID, json!({"id": id, "key": format!("v{round}-{i}")}))
                            .await
                            .1
                    }
                }
            }))
            .await;
            for answer in answers.iter().filter(|a| a["errors"].is_array()) {
                let code = first_error_code(answer);
                assert!(
                    ["INVALID_STATE_TRANSITION", "REQUEST_IN_PROGRESS"].contains(&code.as_str()),
                    "{answer}"
                );
            }
            let payment = show(&app, &key, &id).await;
            let taken = |kind: &str| {
                let (app, id) = (&app, &id);
                let kind = kind.to_string();
                async move {
                    let rows = app
                        .db
                        .query_text(&format!(
                            "SELECT COUNT(*) FROM sandbox_operations WHERE idempotency_key = '{id}.{kind}' AND status = 'approved'"
                        ))
                        .await
                        .unwrap();
                    rows[0][0].parse::<u32>().unwrap()
                }
            };
            let (captured, voided) = (taken("capture").await, taken("void").await);
            match payment["status"].as_str().unwrap() {
                "SUCCEEDED" => {
                    assert_eq!((captured, voided), (1, 0), "{payment}");
                    assert_eq!(payment["amountCaptured"], 1000);
                }
                "CANCELED" => {
                    assert_eq!((captured, voided), (0, 1), "{payment}");
                    assert_eq!(payment["amountCaptured"], 0);
                }
                other => panic!("round {round}: {other}: {payment}"),
            }
        }
        assert_consistent(&app, &account).await;
    }

    async fn cancelling_an_authorization_voids_it_once_and_replays_by_key(app: TestApp) {
        let (account, key) = app.account("Alice").await;
        let id = authorized(&app, &key, "a", 1000).await;
        let vars = json!({"id": id, "key": "v", "reason": "REQUESTED_BY_CUSTOMER"});
        let first = app.query(&key, VOID, vars.clone()).await["cancelPayment"].clone();
        assert_eq!(first["payment"]["status"], "CANCELED", "{first}");
        assert_eq!(first["payment"]["cancellationReason"], "REQUESTED_BY_CUSTOMER");
        assert_eq!(first["payment"]["amountCapturable"], 0);
        assert_eq!(first["replayed"], false);
        let again = app.query(&key, VOID, vars).await["cancelPayment"].clone();
        assert_eq!(again["replayed"], true, "{again}");
        assert_eq!(again["payment"], first["payment"]);
        let other = app
            .post(Some(&key), VOID, json!({"id": id, "key": "v", "reason": "FRAUDULENT"}))
            .await
            .1;
        assert_eq!(first_error_code(&other), "IDEMPOTENCY_KEY_REUSED", "{other}");
        // The authorization is gone: it cannot be captured.
        let body = capture(&app, &key, "c", &id, None).await;
        assert_eq!(first_error_code(&body), "INVALID_STATE_TRANSITION", "{body}");
        let voids: usize = app
            .db
            .query_text("SELECT COUNT(*) FROM sandbox_operations WHERE kind = 'void' AND status = 'approved'")
            .await
            .unwrap()[0][0]
            .parse()
            .unwrap();
        assert_eq!(voids, 1);
        assert_consistent(&app, &account).await;
    }

    async fn a_client_token_may_neither_capture_nor_void(app: TestApp) {
        let (_, key) = app.account("Alice").await;
        let id = authorized(&app, &key, "a", 1000).await;
        let token = app
            .query(
                &key,
                "mutation { createClientToken(input: {scopes: [PAYMENTS_READ, PAYMENTS_WRITE, REFUNDS_WRITE]}) { token } }",
                json!({}),
            )
            .await["createClientToken"]["token"]
            .as_str()
            .unwrap()
            .to_string();
        let body = capture(&app, &token, "c", &id, None).await;
        assert_eq!(first_error_code(&body), "FORBIDDEN", "{body}");
        assert_eq!(error_extension(&body, "requiredScope"), "PAYMENTS_CAPTURE");
        let body = app.post(Some(&token), VOID, json!({"id": id})).await.1;
        assert_eq!(first_error_code(&body), "FORBIDDEN", "{body}");
        assert_eq!(error_extension(&body, "requiredScope"), "PAYMENTS_CAPTURE");
        assert_eq!(show(&app, &key, &id).await["status"], "REQUIRES_CAPTURE");
        // A PENDING payment is the token's to cancel.
        let pending = create(&app, &token, "p", json!({"amount": 100, "currency": "USD", "source": "tok_visa", "confirm": false})).await;
        let pending = pending["payment"]["id"].as_str().unwrap();
        let body = app.post(Some(&token), VOID, json!({"id": pending})).await.1;
        assert_eq!(body["data"]["cancelPayment"]["payment"]["status"], "CANCELED", "{body}");
    }

    async fn one_failed_mutation_leaves_the_answer_of_a_refund_beside_it(app: TestApp) {
        let (_, key) = app.account("Alice").await;
        let charged = create(&app, &key, "auto", json!({"amount": 500, "currency": "USD", "source": "tok_visa"})).await;
        let id = charged["payment"]["id"].as_str().unwrap();
        let (_, body) = app
            .post(
                Some(&key),
                "mutation($id: ID!) {
                  refundPayment(input: {paymentId: $id, amount: 100}, idempotencyKey: \"r\") { refund { amount status } }
                  capturePayment(input: {paymentId: $id}, idempotencyKey: \"c\") { payment { status } }
                }",
                json!({"id": id}),
            )
            .await;
        assert_eq!(body["data"]["refundPayment"]["refund"]["status"], "SUCCEEDED", "{body}");
        assert!(body["data"]["capturePayment"].is_null(), "{body}");
        assert_eq!(body["errors"].as_array().unwrap().len(), 1, "{body}");
        assert_eq!(first_error_code(&body), "INVALID_STATE_TRANSITION");
    }

    async fn return_urls_are_validated_and_part_of_the_fingerprint(app: TestApp) {
        let (_, key) = app.account("Alice").await;
        let long = format!("https://shop.example/{}", "a".repeat(2048));
        for bad in ["http://shop.example/done", "/done", "javascript:alert(1)", long.as_str()] {
            let (_, body) = app
                .post(
                    Some(&key),
                    CREATE,
                    json!({"input": {"amount": 100, "currency": "USD", "source": "tok_visa", "returnUrl": bad}, "key": format!("bad-{}", bad.len())}),
                )
                .await;
            assert_eq!(first_error_code(&body), "BAD_USER_INPUT", "{bad}: {body}");
            assert_eq!(error_extension(&body, "field"), "input.returnUrl");
        }
        let with = |url: &str| json!({"amount": 100, "currency": "USD", "source": "tok_visa", "returnUrl": url});
        create(&app, &key, "u", with("https://shop.example/a")).await;
        let (_, body) = app
            .post(Some(&key), CREATE, json!({"input": with("https://shop.example/b"), "key": "u"}))
            .await;
        assert_eq!(first_error_code(&body), "IDEMPOTENCY_KEY_REUSED", "{body}");
        let (_, body) = app
            .post(
                Some(&key),
                CREATE,
                json!({"input": {"amount": 100, "currency": "USD", "source": "tok_visa", "captureMethod": "MANUAL", "returnUrl": "https://shop.example/a"}, "key": "u"}),
            )
            .await;
        assert_eq!(first_error_code(&body), "IDEMPOTENCY_KEY_REUSED", "{body}");
    }
}

/// A capture whose processor call times out: the client learns `PROCESSOR_UNAVAILABLE`, a
/// retry with the key does not capture twice, and the reconciler settles what the processor
/// did.
async fn a_capture_whose_answer_is_lost_is_captured_once_and_reconciled(backend: Backend) {
    let app = TestApp::spawn_with(backend, |c| {
        c.reconcile.processing_deadline = Duration::ZERO;
    })
    .await;
    let (account, key) = app.account("Alice").await;
    let id = authorized(&app, &key, "a", 1000).await;
    // The processor takes the capture, but the answer never reaches the gateway: the capture
    // is recorded at the sandbox before the gateway hears of it.
    sandbox::record(
        &app.db,
        sandbox::NewOperation {
            idempotency_key: &format!("{}.capture", processor_key(&app, &id).await),
            kind: sandbox::OperationKind::Capture,
            reference: "cp_lost",
            source: "tok_visa",
            amount: 400,
            currency: "USD",
            status: sandbox::OperationStatus::Approved,
            failure_code: None,
            return_url: None,
        },
    )
    .await
    .unwrap();
    // Recorded by an earlier attempt of key "c" that lost the processor's answer.
    let payment = graphpay::persistence::payments::find_payment(&app.db, &account, &id)
        .await
        .unwrap()
        .unwrap();
    app.db
        .query_text(&format!(
            "UPDATE payments SET capture_amount = 400 WHERE id = '{}'",
            payment.id
        ))
        .await
        .unwrap();
    // Another key cannot capture while that capture is in flight.
    let body = capture(&app, &key, "other", &id, None).await;
    assert_eq!(
        first_error_code(&body),
        "INVALID_STATE_TRANSITION",
        "{body}"
    );
    assert_eq!(show(&app, &key, &id).await["status"], "REQUIRES_CAPTURE");
    let report = app.payments.reconcile(app.config.reconcile).await.unwrap();
    assert_eq!(report.captures, 1, "{report:?}");
    let settled = show(&app, &key, &id).await;
    assert_eq!(settled["status"], "SUCCEEDED", "{settled}");
    assert_eq!(settled["amountCaptured"], 400);
    assert_eq!(settled["amountRefundable"], 400);
    assert_consistent(&app, &account).await;
}

/// The processor key a payment's charge or authorization was made with.
async fn processor_key(app: &TestApp, id: &str) -> String {
    app.db
        .query_text(&format!(
            "SELECT processor_key FROM payments WHERE id = '{id}'"
        ))
        .await
        .unwrap()[0][0]
        .clone()
}

/// An authorization past its `captureBefore` is voided by the reconciler: CANCELED,
/// AUTHORIZATION_EXPIRED, and voided once at the processor.
async fn an_authorization_past_its_deadline_is_voided_by_the_reconciler(backend: Backend) {
    let app = TestApp::spawn_with(backend, |c| {
        c.lifecycle.authorization_ttl = Duration::ZERO;
    })
    .await;
    let (account, key) = app.account("Alice").await;
    let expired = authorized(&app, &key, "a", 1000).await;
    let report = app.payments.reconcile(app.config.reconcile).await.unwrap();
    assert_eq!(report.voided, 1, "{report:?}");
    let payment = show(&app, &key, &expired).await;
    assert_eq!(payment["status"], "CANCELED", "{payment}");
    assert_eq!(payment["cancellationReason"], "AUTHORIZATION_EXPIRED");
    assert_eq!(payment["amountCapturable"], 0);
    let body = capture(&app, &key, "c", &expired, None).await;
    assert_eq!(
        first_error_code(&body),
        "INVALID_STATE_TRANSITION",
        "{body}"
    );
    let report = app.payments.reconcile(app.config.reconcile).await.unwrap();
    assert_eq!(report.voided, 0, "voided once: {report:?}");
    assert_consistent(&app, &account).await;
}

on_both_backends_fn!(
    a_capture_whose_answer_is_lost_is_captured_once_and_reconciled,
    an_authorization_past_its_deadline_is_voided_by_the_reconciler,
);

/// Over HTTP to `graphpay sandbox` in a process of its own: an authorization, a capture whose
/// first answer is lost on the way back (the processor captured it) and is retried with the
/// same key, then a second payment voided. The processor captured once and voided once.
async fn authorize_capture_and_void_cross_the_network_and_survive_a_lost_answer(backend: Backend) {
    let dir = tempfile::tempdir().unwrap();
    let sandbox_db = sandbox_db(&dir);
    let processor = SandboxProcess::start(free_port(), &sandbox_db.url);
    let app = gateway(backend, &processor.url, |_| {}).await;
    let (account, key) = app.account("Alice").await;
    let id = authorized(&app, &key, "a", 1000).await;
    processor.faults(json!({"dropNextResponses": 1})).await;
    let body = capture(&app, &key, "c", &id, Some(900)).await;
    let payment = &body["data"]["capturePayment"]["payment"];
    assert_eq!(payment["status"], "SUCCEEDED", "{body}");
    assert_eq!(payment["amountCaptured"], 900);
    let voided = authorized(&app, &key, "b", 300).await;
    let body = app
        .post(Some(&key), VOID, json!({"id": voided, "key": "v"}))
        .await
        .1;
    assert_eq!(
        body["data"]["cancelPayment"]["payment"]["status"], "CANCELED",
        "{body}"
    );
    let processor_db = graphpay::persistence::Db::connect(&sandbox_db)
        .await
        .unwrap();
    let taken = processor_db
        .query_text("SELECT kind, status, amount FROM sandbox_operations WHERE kind IN ('capture', 'void') ORDER BY kind")
        .await
        .unwrap();
    assert_eq!(
        taken,
        [
            vec![
                "capture".to_string(),
                "approved".to_string(),
                "900".to_string()
            ],
            vec!["void".to_string(), "approved".to_string(), "0".to_string()],
        ]
    );
    assert_consistent(&app, &account).await;
}

on_both_backends_fn!(authorize_capture_and_void_cross_the_network_and_survive_a_lost_answer);
