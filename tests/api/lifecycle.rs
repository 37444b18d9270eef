//! The payment state machine at the GraphQL level: every transition of the table, refunds,
//! cancellation, processor webhooks, reconciliation, and batched loading.

use std::time::Duration;

use graphpay::config::Config;
use graphpay::domain::status::PaymentStatus;
use graphpay::domain::time::Timestamp;
use graphpay::persistence::payments;
use serde_json::json;

use crate::helpers::{
    Backend, CANCEL, CONFIRM, CREATE, REFUND, TestApp, assert_consistent, charge_event, charges,
    create, created_id, error_extension, first_error_code, input, on_both_backends_fn, refund,
    refund_event, refund_payload, status_of,
};

/// A payment of 1000 in `status`, made through the API (and signed webhooks where needed).
async fn payment_in(app: &TestApp, key: &str, status: PaymentStatus) -> String {
    let tag = format!("{status:?}-{}", ulid::Ulid::generate());
    let made = |source: &'static str, confirm: bool| {
        let tag = tag.clone();
        async move {
            let input =
                json!({"amount": 1000, "currency": "USD", "source": source, "confirm": confirm});
            created_id(app, key, &tag, input).await
        }
    };
    let id = match status {
        PaymentStatus::Pending => made("tok_visa", false).await,
        PaymentStatus::Processing => made("tok_async", true).await,
        PaymentStatus::Succeeded => made("tok_visa", true).await,
        PaymentStatus::RequiresCapture => {
            let input = json!({"amount": 1000, "currency": "USD", "source": "tok_visa",
                "captureMethod": "MANUAL"});
            created_id(app, key, &tag, input).await
        }
        PaymentStatus::RequiresAction => panic!("no sandbox source asks for customer action"),
        PaymentStatus::Failed => made("tok_chargeDeclined", true).await,
        PaymentStatus::Canceled => {
            let id = made("tok_visa", false).await;
            app.query(key, CANCEL, json!({"id": id})).await;
            id
        }
        PaymentStatus::Refunding => {
            // An asynchronous payment, approved by webhook, whose refund is then in flight.
            let id = made("tok_async", true).await;
            // The sandbox settles the charge and tells the gateway (done here without its delay).
            graphpay::persistence::sandbox::settle(&app.db, &id, "pending", "approved")
                .await
                .unwrap();
            let (status, _) = app
                .webhook(&charge_event(&format!("evt_{tag}"), &id, true), 0)
                .await;
            assert_eq!(status, 200);
            let (_, body) = refund(app, key, &format!("r-{tag}"), &id, Some(100)).await;
            assert_eq!(
                refund_payload(&body)["payment"]["status"],
                "REFUNDING",
                "{body}"
            );
            id
        }
        PaymentStatus::PartiallyRefunded => {
            let id = made("tok_visa", true).await;
            refund(app, key, &format!("r-{tag}"), &id, Some(100)).await;
            id
        }
        PaymentStatus::Refunded => {
            let id = made("tok_visa", true).await;
            refund(app, key, &format!("r-{tag}"), &id, None).await;
            id
        }
    };
    assert_eq!(
        status_of(app, key, &id).await["status"],
        status.as_str(),
        "set-up of {status:?}"
    );
    id
}

const ALL: [PaymentStatus; 9] = [
    PaymentStatus::Pending,
    PaymentStatus::Processing,
    PaymentStatus::RequiresCapture,
    PaymentStatus::Succeeded,
    PaymentStatus::Failed,
    PaymentStatus::Canceled,
    PaymentStatus::Refunding,
    PaymentStatus::PartiallyRefunded,
    PaymentStatus::Refunded,
];

async fn every_cell_of_the_transition_table(backend: Backend) {
    use PaymentStatus as S;
    let app = TestApp::quiet(backend).await;
    let (account, key) = app.account("Alice").await;
    for from in ALL {
        // confirmPayment: PENDING -> PROCESSING -> (sandbox approves) SUCCEEDED.
        let id = payment_in(&app, &key, from).await;
        let (_, body) = app
            .post(
                Some(&key),
                CONFIRM,
                json!({"id": id, "key": format!("c-{id}")}),
            )
            .await;
        if from == S::Pending {
            assert_eq!(
                body["data"]["confirmPayment"]["payment"]["status"], "SUCCEEDED",
                "{body}"
            );
        } else {
            assert_eq!(
                first_error_code(&body),
                "INVALID_STATE_TRANSITION",
                "confirm from {from:?}"
            );
            assert_eq!(error_extension(&body, "from"), from.as_str());
        }

        // cancelPayment: PENDING -> CANCELED; REQUIRES_CAPTURE -> (voided) CANCELED; CANCELED
        // stays; anything else refused.
        let id = payment_in(&app, &key, from).await;
        let (_, body) = app.post(Some(&key), CANCEL, json!({"id": id})).await;
        match from {
            S::Pending | S::Canceled | S::RequiresCapture => assert_eq!(
                body["data"]["cancelPayment"]["payment"]["status"], "CANCELED",
                "{body}"
            ),
            _ => {
                assert_eq!(
                    first_error_code(&body),
                    "INVALID_STATE_TRANSITION",
                    "cancel from {from:?}"
                );
                assert_eq!(error_extension(&body, "operation"), "cancel");
            }
        }

        // refundPayment: SUCCEEDED, PARTIALLY_REFUNDED -> REFUNDING -> PARTIALLY_REFUNDED.
        let id = payment_in(&app, &key, from).await;
        let (_, body) = refund(&app, &key, &format!("rf-{id}"), &id, Some(1)).await;
        match from {
            S::Succeeded | S::PartiallyRefunded => {
                assert_eq!(
                    refund_payload(&body)["payment"]["status"],
                    "PARTIALLY_REFUNDED",
                    "{body}"
                )
            }
            _ => assert_eq!(
                first_error_code(&body),
                "INVALID_STATE_TRANSITION",
                "refund from {from:?}"
            ),
        }

        // Processor outcomes by webhook: only a PROCESSING payment moves.
        for succeeded in [true, false] {
            let id = payment_in(&app, &key, from).await;
            let (status, body) = app
                .webhook(
                    &charge_event(&format!("evt_{}", ulid::Ulid::generate()), &id, succeeded),
                    0,
                )
                .await;
            assert_eq!(status, 200);
            let now = status_of(&app, &key, &id).await["status"].clone();
            if from == S::Processing {
                assert_eq!(body["status"], "applied");
                assert_eq!(now, if succeeded { "SUCCEEDED" } else { "FAILED" });
            } else {
                assert_eq!(body["status"], "ignored", "webhook on {from:?}: {body}");
                assert_eq!(now, from.as_str());
            }
        }

        // Refund outcomes by webhook: only the in-flight refund of a REFUNDING payment moves.
        if from == S::Refunding {
            let id = payment_in(&app, &key, from).await;
            let refund_id = status_of(&app, &key, &id).await["refunds"][0]["id"]
                .as_str()
                .unwrap()
                .to_string();
            let (_, body) = app
                .webhook(&refund_event("evt_rf_ok", &refund_id, true), 0)
                .await;
            assert_eq!(body["status"], "applied");
            assert_eq!(
                status_of(&app, &key, &id).await["status"],
                "PARTIALLY_REFUNDED"
            );
            let (_, body) = app
                .webhook(&refund_event("evt_rf_late_failure", &refund_id, false), 0)
                .await;
            assert_eq!(
                body["status"], "ignored",
                "a settled refund does not move again"
            );

            let id = payment_in(&app, &key, from).await;
            let refund_id = status_of(&app, &key, &id).await["refunds"][0]["id"]
                .as_str()
                .unwrap()
                .to_string();
            let (_, body) = app
                .webhook(&refund_event("evt_rf_fail", &refund_id, false), 0)
                .await;
            assert_eq!(body["status"], "applied");
            assert_eq!(
                status_of(&app, &key, &id).await["status"],
                "SUCCEEDED",
                "a failed refund goes back"
            );
        }
    }
    assert_consistent(&app, &account).await;
}

async fn refunds_partial_full_failed_and_replayed(backend: Backend) {
    let app = TestApp::quiet(backend).await;
    let (account, key) = app.account("Alice").await;
    let id = created_id(&app, &key, "p", input(1000, "tok_visa")).await;

    let (_, first) = refund(&app, &key, "r1", &id, Some(300)).await;
    let first = refund_payload(&first);
    assert_eq!(first["replayed"], false);
    assert_eq!(first["refund"]["amount"], 300);
    assert_eq!(first["refund"]["status"], "SUCCEEDED");
    assert_eq!(first["refund"]["currency"], "USD");
    assert_eq!(first["refund"]["payment"]["id"], id.as_str());
    assert_eq!(
        first["payment"],
        json!({"id": id, "status": "PARTIALLY_REFUNDED", "amount": 1000, "amountRefunded": 300, "amountRefundable": 700})
    );
    let (_, again) = refund(&app, &key, "r1", &id, Some(300)).await;
    assert_eq!(refund_payload(&again)["replayed"], true);
    assert_eq!(refund_payload(&again)["refund"], first["refund"]);

    let (_, body) = refund(&app, &key, "r-too-much", &id, Some(701)).await;
    assert_eq!(first_error_code(&body), "REFUND_EXCEEDS_AVAILABLE");
    let (_, body) = refund(&app, &key, "r1", &id, Some(200)).await;
    assert_eq!(first_error_code(&body), "IDEMPOTENCY_KEY_REUSED");
    let (_, body) = refund(&app, &key, "r-zero", &id, Some(0)).await;
    assert_eq!(first_error_code(&body), "INVALID_AMOUNT");

    let (_, rest) = refund(&app, &key, "r2", &id, None).await;
    assert_eq!(refund_payload(&rest)["refund"]["amount"], 700);
    assert_eq!(refund_payload(&rest)["payment"]["status"], "REFUNDED");
    assert_eq!(refund_payload(&rest)["payment"]["amountRefundable"], 0);
    let (_, body) = refund(&app, &key, "r3", &id, None).await;
    assert_eq!(first_error_code(&body), "INVALID_STATE_TRANSITION");

    let payment = status_of(&app, &key, &id).await;
    assert_eq!(
        payment["refunds"].as_array().unwrap().len(),
        2,
        "oldest first"
    );
    assert_eq!(payment["refunds"][0]["amount"], 300);
    let to: Vec<&str> = payment["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["toStatus"].as_str().unwrap())
        .collect();
    assert_eq!(
        to,
        [
            "PROCESSING",
            "SUCCEEDED",
            "REFUNDING",
            "PARTIALLY_REFUNDED",
            "REFUNDING",
            "REFUNDED"
        ]
    );

    // A refund the processor refuses: the refund FAILED, the payment back where it was.
    let failing = created_id(&app, &key, "pf", input(500, "tok_refundFail")).await;
    let (_, body) = refund(&app, &key, "rf", &failing, Some(100)).await;
    assert_eq!(refund_payload(&body)["refund"]["status"], "FAILED");
    assert_eq!(
        refund_payload(&body)["refund"]["failureCode"],
        "refund_failed"
    );
    assert_eq!(refund_payload(&body)["payment"]["status"], "SUCCEEDED");
    assert_eq!(refund_payload(&body)["payment"]["amountRefunded"], 0);

    let (_, bob) = app.account("Bob").await;
    let (_, body) = refund(&app, &bob, "steal", &id, Some(1)).await;
    assert_eq!(
        first_error_code(&body),
        "BAD_USER_INPUT",
        "another account's payment is not found"
    );
    assert_consistent(&app, &account).await;
}

async fn twenty_concurrent_partial_refunds_never_exceed_the_amount(backend: Backend) {
    let app = TestApp::quiet(backend).await;
    let (account, key) = app.account("Alice").await;
    let id = created_id(&app, &key, "p", input(100, "tok_visa")).await;
    let mut tasks = Vec::new();
    for i in 0..20 {
        tasks.push(tokio::spawn(crate::helpers::post_on_new_connection(
            app.address.clone(),
            key.clone(),
            REFUND,
            json!({"input": {"paymentId": id, "amount": 15}, "key": format!("r{i}")}),
        )));
    }
    let mut refunded = 0;
    for task in tasks {
        let body = task.await.unwrap();
        if body.get("errors").is_some() {
            let code = first_error_code(&body);
            assert!(
                [
                    "REFUND_EXCEEDS_AVAILABLE",
                    "INVALID_STATE_TRANSITION",
                    "REQUEST_IN_PROGRESS"
                ]
                .contains(&code.as_str()),
                "{body}"
            );
        } else {
            assert_eq!(refund_payload(&body)["refund"]["status"], "SUCCEEDED");
            refunded += 15;
        }
    }
    assert!(refunded > 0 && refunded <= 100, "refunded {refunded}");
    let payment = status_of(&app, &key, &id).await;
    assert_eq!(payment["amountRefunded"], refunded);
    assert_consistent(&app, &account).await;
}

async fn webhooks_are_verified_deduplicated_and_ordered(backend: Backend) {
    let app = TestApp::quiet(backend).await;
    let (account, key) = app.account("Alice").await;
    let id = created_id(&app, &key, "a", input(100, "tok_async")).await;
    let event = charge_event("evt_1", &id, true);
    let body = serde_json::to_vec(&event).unwrap();

    let (status, _) = app.raw_webhook(None, body.clone()).await;
    assert_eq!(status, 401, "missing signature");
    let now = Timestamp::now().micros() / 1_000_000;
    let forged = graphpay::domain::processor_event::sign(b"not the secret", now, &body);
    assert_eq!(
        app.raw_webhook(Some(&forged), body.clone()).await.0,
        401,
        "wrong secret"
    );
    let good = graphpay::domain::processor_event::sign(b"whsec_test", now, &body);
    let mut tampered = body.clone();
    tampered.push(b' ');
    assert_eq!(
        app.raw_webhook(Some(&good), tampered).await.0,
        401,
        "tampered body"
    );
    assert_eq!(
        app.raw_webhook(Some("t=abc"), body.clone()).await.0,
        400,
        "malformed header"
    );
    assert_eq!(app.webhook(&event, 301).await.0, 400, "too old");
    assert_eq!(app.webhook(&event, -301).await.0, 400, "from the future");
    assert_eq!(app.webhook(&json!({"id": "evt_x", "type": "charge.exploded", "created": now, "data": {"idempotencyKey": id, "reference": "r"}}), 0).await.0, 400);
    assert_eq!(
        status_of(&app, &key, &id).await["status"],
        "PROCESSING",
        "nothing changed"
    );
    assert!(
        graphpay::persistence::processor_events::recorded_events(&app.db)
            .await
            .unwrap()
            .is_empty()
    );

    let (status, first) = app.webhook(&event, 0).await;
    assert_eq!((status, first["status"].as_str()), (200, Some("applied")));
    let (status, again) = app.webhook(&event, 0).await;
    assert_eq!((status, again["status"].as_str()), (200, Some("duplicate")));
    // A decline arriving after the approval is out of order: recorded, not applied.
    let (status, late) = app.webhook(&charge_event("evt_2", &id, false), 0).await;
    assert_eq!((status, late["status"].as_str()), (200, Some("ignored")));
    assert_eq!(status_of(&app, &key, &id).await["status"], "SUCCEEDED");
    let (_, unknown) = app
        .webhook(
            &charge_event("evt_3", "pay_01ARZ3NDEKTSV4RRFFQ69G5FAV", true),
            0,
        )
        .await;
    assert_eq!(unknown["status"], "ignored");
    let recorded = graphpay::persistence::processor_events::recorded_events(&app.db)
        .await
        .unwrap();
    assert_eq!(recorded.len(), 3);
    assert_eq!(recorded[0], ("evt_1".to_string(), "applied".to_string()));
    assert!(recorded[1].1.starts_with("ignored"));
    assert_consistent(&app, &account).await;
}

async fn the_sandbox_settles_async_payments_and_refunds_by_webhook(backend: Backend) {
    let app = TestApp::spawn_with(backend, |c: &mut Config| {
        c.sandbox_webhook_delay = Duration::from_millis(100)
    })
    .await;
    let (account, key) = app.account("Alice").await;
    let id = created_id(&app, &key, "a", input(800, "tok_async")).await;
    wait_for(&app, &key, &id, "SUCCEEDED").await;
    let (_, body) = refund(&app, &key, "r", &id, Some(300)).await;
    assert_eq!(
        refund_payload(&body)["payment"]["status"],
        "REFUNDING",
        "{body}"
    );
    assert_eq!(refund_payload(&body)["refund"]["status"], "PENDING");
    wait_for(&app, &key, &id, "PARTIALLY_REFUNDED").await;
    assert_eq!(status_of(&app, &key, &id).await["amountRefunded"], 300);
    assert_consistent(&app, &account).await;
}

async fn wait_for(app: &TestApp, key: &str, id: &str, status: &str) {
    for _ in 0..100 {
        if status_of(app, key, id).await["status"] == status {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!(
        "{id} never reached {status}: {}",
        status_of(app, key, id).await
    );
}

async fn reconciliation_expires_and_resolves_stuck_payments(backend: Backend) {
    let app = TestApp::spawn_with(backend, |c: &mut Config| {
        c.sandbox_webhook_delay = Duration::from_secs(3600);
        c.sweep_interval = Duration::from_secs(3600);
        c.reconcile.pending_ttl = Duration::from_secs(3);
        c.reconcile.processing_deadline = Duration::from_secs(3);
        c.processor_limits.attempt_timeout = Duration::from_millis(200);
        c.processor_limits.deadline = Duration::from_millis(600);
        c.processor_limits.max_retries = 0;
    })
    .await;
    let (account, key) = app.account("Alice").await;
    let pending = created_id(
        &app,
        &key,
        "p",
        json!({"amount": 100, "currency": "USD", "source": "tok_visa", "confirm": false}),
    )
    .await;
    // Charged at the processor, but its answer never came back.
    let (_, body) = app
        .post(
            Some(&key),
            CREATE,
            json!({"input": input(200, "tok_timeout"), "key": "t"}),
        )
        .await;
    assert_eq!(first_error_code(&body), "PROCESSOR_UNAVAILABLE");
    let charged = app
        .query(
            &key,
            "{ idempotencyRecord(key: \"t\") { payment { id } } }",
            json!({}),
        )
        .await["idempotencyRecord"]["payment"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    // Never reached the processor at all (the gateway died before calling it).
    let lost = payments::insert(
        &app.db,
        payments::NewPayment {
            account_id: account.clone(),
            amount: graphpay::domain::money::MinorUnits::parse(300).expect("an amount"),
            currency: graphpay::domain::currency::Currency::parse("USD").expect("a currency"),
            source: "tok_visa".into(),
            description: None,
            reference: None,
            metadata: Default::default(),
            status: PaymentStatus::Processing,
            capture_method: Default::default(),
            return_url: None,
            created_at: Timestamp::now(),
        },
    )
    .await
    .unwrap();
    let fresh = create(
        &app,
        &key,
        "fresh",
        json!({"amount": 100, "currency": "USD", "source": "tok_visa", "confirm": false}),
    )
    .await;
    assert_eq!(fresh["payment"]["status"], "PENDING");
    let report = app.payments.reconcile(app.config.reconcile).await.unwrap();
    assert_eq!(
        (report.expired, report.resolved),
        (0, 0),
        "nothing is old enough yet"
    );

    tokio::time::sleep(Duration::from_millis(3100)).await;
    let report = app.payments.reconcile(app.config.reconcile).await.unwrap();
    assert_eq!(report.expired, 2, "{report:?}");
    assert_eq!(report.resolved, 2, "{report:?}");
    assert_eq!(status_of(&app, &key, &pending).await["status"], "CANCELED");
    assert_eq!(status_of(&app, &key, &charged).await["status"], "SUCCEEDED");
    assert_eq!(status_of(&app, &key, &lost.id).await["status"], "CANCELED");
    assert_eq!(charges(&app).await, 1);
    // The client retrying its timed-out request now learns the outcome, without a new charge.
    let retried = create(&app, &key, "t", input(200, "tok_timeout")).await;
    assert_eq!(retried["payment"]["status"], "SUCCEEDED");
    assert_eq!(charges(&app).await, 1);
    assert_consistent(&app, &account).await;
}

async fn a_page_with_refunds_and_events_costs_a_constant_number_of_queries(backend: Backend) {
    // The key is remembered for the whole test, so that only the page's own statements count.
    let app = TestApp::spawn_with(backend, |c| {
        c.sandbox_webhook_delay = Duration::from_secs(3600);
        c.live_key_ttl = Duration::from_secs(3600);
    })
    .await;
    let (account, key) = app.account("Alice").await;
    let query = "{ payments(first: 100) { nodes { id refunds { id payment { id } } events { toStatus } } } }";
    let mut costs = Vec::new();
    for n in [5, 100] {
        let have = app
            .db
            .query_text(&format!(
                "SELECT COUNT(*) FROM payments WHERE account_id = '{account}'"
            ))
            .await
            .unwrap()[0][0]
            .parse::<usize>()
            .unwrap();
        for i in have..n {
            let id = create(&app, &key, &format!("p{i}"), input(100, "tok_visa")).await["payment"]
                ["id"]
                .as_str()
                .unwrap()
                .to_string();
            refund(&app, &key, &format!("r{i}"), &id, Some(10)).await;
        }
        // Seeding a hundred payments may take longer than the minute after which a key's
        // use is recorded again: a page read just before makes that write, if it is due,
        // outside the count.
        app.query(&key, query, json!({})).await;
        app.statements_settled().await;
        let before = app.server_db.statements_run();
        let data = app.query(&key, query, json!({})).await;
        let cost = app.server_db.statements_run() - before;
        assert_eq!(data["payments"]["nodes"].as_array().unwrap().len(), n);
        assert!(
            data["payments"]["nodes"]
                .as_array()
                .unwrap()
                .iter()
                .all(|p| p["refunds"].as_array().unwrap().len() == 1)
        );
        costs.push(cost);
    }
    assert_eq!(
        costs[0], costs[1],
        "5 and 100 payments cost the same: {costs:?}"
    );
    assert_eq!(costs[1], 3, "the page, its refunds, its events: {costs:?}");
}

on_both_backends_fn!(
    every_cell_of_the_transition_table,
    refunds_partial_full_failed_and_replayed,
    twenty_concurrent_partial_refunds_never_exceed_the_amount,
    webhooks_are_verified_deduplicated_and_ordered,
    the_sandbox_settles_async_payments_and_refunds_by_webhook,
    reconciliation_expires_and_resolves_stuck_payments,
    a_page_with_refunds_and_events_costs_a_constant_number_of_queries,
);
