//! createPayment and confirmPayment: idempotency, replays, concurrency, crash recovery,
//! processor failures, key expiry and input validation, against the built-in sandbox.

use std::collections::HashSet;
use std::time::Duration;

use graphpay::config::Config;
use graphpay::domain::time::Timestamp;
use serde_json::json;

use crate::helpers::{
    Backend, CONFIRM, CREATE, TestApp, charges, create, create_payload, create_while_unavailable,
    error_extension, first_error_code, input, on_both_backends, on_both_backends_fn, row_count,
};

on_both_backends! {
    async fn an_approved_payment_replays_with_the_same_outcome_and_one_charge(app: TestApp) {
        let (_, key) = app.account("Alice").await;
        let first = create(&app, &key, "order-1", input(1999, "tok_visa")).await;
        assert_eq!(first["replayed"], false);
        assert_eq!(first["payment"]["status"], "SUCCEEDED");
        assert_eq!(first["payment"]["amountRefundable"], 1999);
        assert_eq!(first["payment"]["events"], json!([
            {"fromStatus": null, "toStatus": "PROCESSING"},
            {"fromStatus": "PROCESSING", "toStatus": "SUCCEEDED"},
        ]));
        for _ in 0..3 {
            let again = create(&app, &key, "order-1", input(1999, "tok_visa")).await;
            assert_eq!(again["replayed"], true);
            assert_eq!(again["payment"], first["payment"]);
        }
        assert_eq!(charges(&app).await, 1);
        assert_eq!(row_count(&app, "payments").await, 1);
    }

    async fn a_declined_payment_replays_as_the_same_decline(app: TestApp) {
        let (_, key) = app.account("Alice").await;
        for (source, code) in [("tok_chargeDeclined", "card_declined"), ("tok_insufficientFunds", "insufficient_funds")] {
            let first = create(&app, &key, source, input(500, source)).await;
            assert_eq!(first["payment"]["status"], "FAILED");
            assert_eq!(first["payment"]["failureCode"], code);
            assert!(first["payment"]["failureMessage"].is_string());
            let again = create(&app, &key, source, input(500, source)).await;
            assert_eq!(again["replayed"], true);
            assert_eq!(again["payment"], first["payment"]);
        }
        assert_eq!(charges(&app).await, 2);
    }

    async fn a_replay_selecting_other_fields_sees_the_first_outcome(app: TestApp) {
        let (_, key) = app.account("Alice").await;
        let first = create(&app, &key, "k", input(700, "tok_visa")).await;
        let data = app
            .query(&key, "mutation($i: CreatePaymentInput!) { createPayment(input: $i, idempotencyKey: \"k\") { replayed payment { id createdAt updatedAt status } } }", json!({"i": input(700, "tok_visa")}))
            .await;
        assert_eq!(data["createPayment"]["replayed"], true);
        assert_eq!(data["createPayment"]["payment"]["id"], first["payment"]["id"]);
        assert_eq!(data["createPayment"]["payment"]["status"], "SUCCEEDED");
    }

    async fn a_key_reused_for_a_different_request_is_refused_and_nothing_is_written(app: TestApp) {
        let (_, key) = app.account("Alice").await;
        let first = create(&app, &key, "k", input(1000, "tok_visa")).await;
        let before = (row_count(&app, "payments").await, charges(&app).await, row_count(&app, "payment_events").await);
        let code = app.error_code(&key, CREATE, json!({"input": input(1001, "tok_visa"), "key": "k"})).await;
        assert_eq!(code, "IDEMPOTENCY_KEY_REUSED");
        let code = app.error_code(&key, CREATE, json!({"input": {"amount": 1000, "currency": "EUR", "source": "tok_visa"}, "key": "k"})).await;
        assert_eq!(code, "IDEMPOTENCY_KEY_REUSED");
        let id = first["payment"]["id"].as_str().unwrap();
        let code = app.error_code(&key, CONFIRM, json!({"id": id, "key": "k"})).await;
        assert_eq!(code, "IDEMPOTENCY_KEY_REUSED");
        assert_eq!(before, (row_count(&app, "payments").await, charges(&app).await, row_count(&app, "payment_events").await));
    }

    async fn fifty_concurrent_requests_with_one_key_charge_once(app: TestApp) {
        let (_, key) = app.account("Alice").await;
        let mut tasks = Vec::new();
        for _ in 0..50 {
            let (address, key) = (app.address.clone(), key.clone());
            tasks.push(tokio::spawn(crate::helpers::post_on_new_connection(address, key, CREATE, json!({"input": input(4200, "tok_visa"), "key": "same"}))));
        }
        let mut ids = HashSet::new();
        let mut in_progress = 0;
        for task in tasks {
            let body = task.await.unwrap();
            if body.get("errors").is_some() {
                assert_eq!(first_error_code(&body), "REQUEST_IN_PROGRESS", "{body}");
                assert!(error_extension(&body, "retryAfterSeconds").as_i64().unwrap() >= 1);
                in_progress += 1;
            } else {
                assert_eq!(create_payload(&body)["payment"]["status"], "SUCCEEDED");
                ids.insert(create_payload(&body)["payment"]["id"].as_str().unwrap().to_string());
            }
        }
        assert_eq!(ids.len(), 1, "one payment, whoever answered ({in_progress} were told to retry)");
        assert_eq!(row_count(&app, "payments").await, 1);
        assert_eq!(charges(&app).await, 1);
    }

    async fn two_hundred_concurrent_requests_with_distinct_keys_make_two_hundred_payments(app: TestApp) {
        let (_, key) = app.account("Alice").await;
        let mut tasks = Vec::new();
        for i in 0..200 {
            let (address, key) = (app.address.clone(), key.clone());
            tasks.push(tokio::spawn(crate::helpers::post_on_new_connection(address, key, CREATE, json!({"input": input(100 + i, "tok_visa"), "key": format!("k-{i}")}))));
        }
        let mut ids = HashSet::new();
        for task in tasks {
            let body = task.await.unwrap();
            assert!(body.get("errors").is_none(), "{body}");
            ids.insert(create_payload(&body)["payment"]["id"].as_str().unwrap().to_string());
        }
        assert_eq!(ids.len(), 200);
        assert_eq!(row_count(&app, "payments").await, 200);
        assert_eq!(charges(&app).await, 200);
    }

    async fn the_same_key_on_two_accounts_makes_two_independent_payments(app: TestApp) {
        let (_, alice) = app.account("Alice").await;
        let (_, bob) = app.account("Bob").await;
        let a = create(&app, &alice, "shared", input(100, "tok_visa")).await;
        let record = "query R($k: String!) { idempotencyRecord(key: $k) { state payment { id } } }";
        let seen_by_bob = app.query(&bob, record, json!({"k": "shared"})).await;
        assert!(seen_by_bob["idempotencyRecord"].is_null(), "Bob cannot see Alice's key");
        let b = create(&app, &bob, "shared", input(999, "tok_chargeDeclined")).await;
        assert_eq!(b["replayed"], false);
        assert_ne!(a["payment"]["id"], b["payment"]["id"]);
        assert_eq!(b["payment"]["status"], "FAILED");
        let seen_by_alice = app.query(&alice, record, json!({"k": "shared"})).await;
        assert_eq!(seen_by_alice["idempotencyRecord"]["payment"]["id"], a["payment"]["id"]);
        assert_eq!(charges(&app).await, 2);
    }

    async fn idempotency_record_tells_what_became_of_a_request(app: TestApp) {
        let (_, key) = app.account("Alice").await;
        let record = "query R($k: String!) { idempotencyRecord(key: $k) { key operation state createdAt expiresAt payment { id status } refund { id } } }";
        assert!(app.query(&key, record, json!({"k": "nope"})).await["idempotencyRecord"].is_null());
        let created = create(&app, &key, "k1", input(100, "tok_visa")).await;
        let data = app.query(&key, record, json!({"k": "k1"})).await;
        let r = &data["idempotencyRecord"];
        assert_eq!(r["key"], "k1");
        assert_eq!(r["operation"], "createPayment");
        assert_eq!(r["state"], "COMPLETED");
        assert_eq!(r["payment"]["id"], created["payment"]["id"]);
        assert!(r["refund"].is_null());
        let created_at = Timestamp::parse_rfc3339(r["createdAt"].as_str().unwrap()).unwrap();
        let expires_at = Timestamp::parse_rfc3339(r["expiresAt"].as_str().unwrap()).unwrap();
        assert_eq!(expires_at.micros() - created_at.micros(), 24 * 3600 * 1_000_000);
        let refund = "mutation($id: ID!) { refundPayment(input: {paymentId: $id, amount: 40}, idempotencyKey: \"r1\") { refund { id } } }";
        let refunded = app.query(&key, refund, json!({"id": created["payment"]["id"]})).await;
        let refund_id = &refunded["refundPayment"]["refund"]["id"];
        let record = "query R($k: String!) { idempotencyRecord(key: $k) { operation refund { id amount } payment { id amountRefunded refunds { id } events { toStatus } } } }";
        let data = app.query(&key, record, json!({"k": "r1"})).await;
        let r = &data["idempotencyRecord"];
        assert_eq!(r["operation"], "refundPayment");
        assert_eq!(r["refund"], json!({"id": refund_id, "amount": 40}));
        assert_eq!(r["payment"]["id"], created["payment"]["id"]);
        assert_eq!(r["payment"]["amountRefunded"], 40);
        assert_eq!(r["payment"]["refunds"], json!([{"id": refund_id}]));
        assert_eq!(r["payment"]["events"].as_array().unwrap().last().unwrap()["toStatus"], "PARTIALLY_REFUNDED");
        assert_eq!(app.error_code(&key, record, json!({"k": ""})).await, "INVALID_IDEMPOTENCY_KEY");
    }

    async fn confirm_charges_a_pending_payment_once(app: TestApp) {
        let (_, key) = app.account("Alice").await;
        let (_, other) = app.account("Mallory").await;
        let pending = create(&app, &key, "create", json!({"amount": 300, "currency": "JPY", "source": "tok_visa", "confirm": false})).await;
        assert_eq!(pending["payment"]["status"], "PENDING");
        assert_eq!(pending["payment"]["currency"], "JPY");
        assert_eq!(charges(&app).await, 0);
        let id = pending["payment"]["id"].as_str().unwrap().to_string();

        assert_eq!(app.error_code(&other, CONFIRM, json!({"id": id, "key": "c"})).await, "BAD_USER_INPUT", "another account's payment is not found");
        let confirmed = app.query(&key, CONFIRM, json!({"id": id, "key": "confirm"})).await;
        assert_eq!(confirmed["confirmPayment"], json!({"replayed": false, "payment": {"id": id, "status": "SUCCEEDED"}}));
        let again = app.query(&key, CONFIRM, json!({"id": id, "key": "confirm"})).await;
        assert_eq!(again["confirmPayment"]["replayed"], true);
        assert_eq!(charges(&app).await, 1);

        let (_, body) = app.post(Some(&key), CONFIRM, json!({"id": id, "key": "confirm-twice"})).await;
        assert_eq!(first_error_code(&body), "INVALID_STATE_TRANSITION");
        assert_eq!(error_extension(&body, "from"), "SUCCEEDED");
        assert_eq!(error_extension(&body, "operation"), "confirm");
        assert_eq!(app.error_code(&key, CONFIRM, json!({"id": "pay_01ARZ3NDEKTSV4RRFFQ69G5FAV", "key": "x"})).await, "BAD_USER_INPUT");
        assert_eq!(app.error_code(&key, CONFIRM, json!({"id": "nope", "key": "x"})).await, "BAD_USER_INPUT");
        let record = app.query(&key, "{ idempotencyRecord(key: \"confirm-twice\") { state } }", json!({})).await;
        assert!(record["idempotencyRecord"].is_null(), "a refused request leaves no key behind");
    }

    async fn an_async_payment_stays_processing_until_its_outcome_arrives(app: TestApp) {
        let (_, key) = app.account("Alice").await;
        let first = create(&app, &key, "a", input(100, "tok_async")).await;
        assert_eq!(first["payment"]["status"], "PROCESSING");
        let again = create(&app, &key, "a", input(100, "tok_async")).await;
        assert_eq!(again["replayed"], true);
        assert_eq!(charges(&app).await, 1);
    }

    async fn a_flaky_processor_is_retried_and_charges_once(app: TestApp) {
        let (_, key) = app.account("Alice").await;
        let paid = create(&app, &key, "f", input(100, "tok_flaky")).await;
        assert_eq!(paid["payment"]["status"], "SUCCEEDED");
        assert_eq!(charges(&app).await, 1);
    }

    async fn every_invalid_input_gets_its_code_and_writes_nothing(app: TestApp) {
        let (_, key) = app.account("Alice").await;
        let long = "x".repeat(256);
        let cases = [
            (input(0, "tok_visa"), "k", "INVALID_AMOUNT"),
            (input(-5, "tok_visa"), "k", "INVALID_AMOUNT"),
            (input(100_000_000, "tok_visa"), "k", "INVALID_AMOUNT"),
            (json!({"amount": 1.5, "currency": "USD", "source": "tok_visa"}), "k", "INVALID_AMOUNT"),
            (json!({"amount": 100, "currency": "usd", "source": "tok_visa"}), "k", "INVALID_CURRENCY"),
            (json!({"amount": 100, "currency": "XXX", "source": "tok_visa"}), "k", "INVALID_CURRENCY"),
            (json!({"amount": 100, "currency": "ABC", "source": "tok_visa"}), "k", "INVALID_CURRENCY"),
            (input(100, ""), "k", "BAD_USER_INPUT"),
            (input(100, "tok visa"), "k", "BAD_USER_INPUT"),
            (input(100, &long), "k", "BAD_USER_INPUT"),
            (json!({"amount": 100, "currency": "USD", "source": "tok_visa", "description": "d".repeat(1001)}), "k", "BAD_USER_INPUT"),
            (input(100, "tok_visa"), "", "INVALID_IDEMPOTENCY_KEY"),
            (input(100, "tok_visa"), long.as_str(), "INVALID_IDEMPOTENCY_KEY"),
            (input(100, "tok_visa"), "clé", "INVALID_IDEMPOTENCY_KEY"),
        ];
        for (input, idem, code) in cases {
            let (_, body) = app.post(Some(&key), CREATE, json!({"input": input, "key": idem})).await;
            assert_eq!(first_error_code(&body), code, "{input} {idem:?}: {body}");
        }
        // Inline literals get the same codes as variables.
        let inline = |amount: &str, currency: &str| format!(
            "mutation {{ createPayment(input: {{amount: {amount}, currency: {currency}, source: \"tok_visa\"}}, idempotencyKey: \"i\") {{ replayed }} }}"
        );
        assert_eq!(app.error_code(&key, &inline("100", "\"usd\""), json!({})).await, "INVALID_CURRENCY");
        assert_eq!(app.error_code(&key, &inline("0", "\"USD\""), json!({})).await, "INVALID_AMOUNT");
        assert_eq!(app.error_code(&key, &inline("1.5", "\"USD\""), json!({})).await, "INVALID_AMOUNT");
        for table in ["payments", "payment_events", "idempotency_keys", "sandbox_operations"] {
            assert_eq!(row_count(&app, table).await, 0, "{table} is untouched");
        }
    }
}

/// A gateway whose processor gives up fast, so failures are quick to provoke.
async fn impatient(backend: Backend, max_retries: usize) -> TestApp {
    TestApp::spawn_with(backend, |c: &mut Config| {
        c.processor_limits.attempt_timeout = Duration::from_millis(300);
        c.processor_limits.deadline = Duration::from_secs(2);
        c.processor_limits.max_retries = max_retries;
        c.processor_limits.backoff_base = Duration::from_millis(10);
    })
    .await
}

async fn processor_unavailable_then_retry_charges_once(backend: Backend) {
    let app = impatient(backend, 0).await;
    let (_, key) = app.account("Alice").await;
    // Without retries inside the gateway, each of tok_flaky's failures reaches the client.
    for _ in 0..2 {
        let record = create_while_unavailable(&app, &key, "f", "tok_flaky").await;
        assert_eq!(record["payment"]["status"], "PROCESSING");
    }
    let paid = create(&app, &key, "f", input(100, "tok_flaky")).await;
    assert_eq!(paid["replayed"], false);
    assert_eq!(paid["payment"]["status"], "SUCCEEDED");
    assert_eq!(
        row_count(&app, "payments").await,
        1,
        "the retry carried on with the same payment"
    );
    assert_eq!(charges(&app).await, 1);
}

async fn a_timeout_answers_processor_unavailable_and_releases_the_claim(backend: Backend) {
    let app = impatient(backend, 1).await;
    let (_, key) = app.account("Alice").await;
    for _ in 0..2 {
        let (_, body) = app
            .post(
                Some(&key),
                CREATE,
                json!({"input": input(100, "tok_timeout"), "key": "t"}),
            )
            .await;
        assert_eq!(first_error_code(&body), "PROCESSOR_UNAVAILABLE", "{body}");
    }
    assert_eq!(row_count(&app, "payments").await, 1);
    assert_eq!(
        charges(&app).await,
        1,
        "the processor charged once, however often it was asked"
    );
}

async fn an_abandoned_claim_is_taken_over_after_the_lock_timeout(backend: Backend) {
    let app = TestApp::spawn_with(backend, |c: &mut Config| {
        c.idempotency.lock_timeout = Duration::from_secs(3);
    })
    .await;
    let (account, key) = app.account("Alice").await;
    // A gateway that crashed after creating the payment and charging it, before recording the
    // outcome: the claim is `started`, the payment PROCESSING, the processor holds the charge.
    let input_value = input(2500, "tok_visa");
    let fingerprint = graphpay::domain::idempotency::fingerprint(
        "createPayment",
        &json!({"amount": 2500, "currency": "USD", "source": "tok_visa", "description": null, "confirm": true}),
    );
    let now = Timestamp::now();
    assert!(
        graphpay::persistence::idempotency_keys::claim(
            &app.db,
            &account,
            "crash",
            "createPayment",
            &fingerprint,
            now
        )
        .await
        .unwrap()
        .is_some()
    );
    let payment = graphpay::persistence::payment_writes::create_for_key(
        &app.db,
        graphpay::persistence::payments::NewPayment {
            account_id: account.clone(),
            amount: graphpay::domain::money::MinorUnits::parse(2500).expect("an amount"),
            currency: graphpay::domain::currency::Currency::parse("USD").expect("a currency"),
            source: "tok_visa".into(),
            description: None,
            reference: None,
            metadata: Default::default(),
            status: graphpay::domain::status::PaymentStatus::Processing,
            capture_method: Default::default(),
            return_url: None,
            created_at: now,
        },
        graphpay::persistence::payment_writes::KeyRef {
            account_id: &account,
            key: "crash",
        },
        None,
    )
    .await
    .unwrap();
    use graphpay::processor::Processor;
    let charged = graphpay::sandbox::Sandbox::new(app.db.clone(), None, app.address.clone())
        .charge(&graphpay::processor::ChargeRequest {
            idempotency_key: payment.processor_key.clone(),
            amount: 2500,
            currency: "USD".into(),
            source: "tok_visa".into(),
            return_url: None,
        })
        .await
        .unwrap();
    assert!(matches!(
        charged,
        graphpay::processor::ChargeOutcome::Approved { .. }
    ));

    let (_, body) = app
        .post(
            Some(&key),
            CREATE,
            json!({"input": input_value, "key": "crash"}),
        )
        .await;
    assert_eq!(
        first_error_code(&body),
        "REQUEST_IN_PROGRESS",
        "still locked: {body}"
    );
    tokio::time::sleep(Duration::from_millis(3100)).await;
    let done = create(&app, &key, "crash", input_value.clone()).await;
    assert_eq!(done["replayed"], false);
    assert_eq!(done["payment"]["id"], payment.id.as_str());
    assert_eq!(done["payment"]["status"], "SUCCEEDED");
    assert_eq!(charges(&app).await, 1);
    assert_eq!(row_count(&app, "payments").await, 1);
    let replay = create(&app, &key, "crash", input_value).await;
    assert_eq!(replay["replayed"], true);
}

async fn expired_keys_are_swept_and_then_mean_a_new_request(backend: Backend) {
    let app = TestApp::spawn_with(backend, |c: &mut Config| {
        c.idempotency.retention = Duration::from_secs(1);
        c.sweep_interval = Duration::from_millis(200);
    })
    .await;
    let (_, key) = app.account("Alice").await;
    let first = create(&app, &key, "old", input(100, "tok_visa")).await;
    let mut swept = false;
    for _ in 0..50 {
        tokio::time::sleep(Duration::from_millis(100)).await;
        if row_count(&app, "idempotency_keys").await == 0 {
            swept = true;
            break;
        }
    }
    assert!(swept, "the sweeper removed the expired key");
    let second = create(&app, &key, "old", input(100, "tok_visa")).await;
    assert_eq!(second["replayed"], false);
    assert_ne!(second["payment"]["id"], first["payment"]["id"]);
    assert_eq!(charges(&app).await, 2);
}

/// What a create and a replay cost in statements, counted by the gateway's own connection.
/// On PostgreSQL a fresh create is three statements: the claim with the payment and its
/// event, the sandbox's record of the charge, and the outcome with its event and the key's
/// completion; each write is all or nothing. The API key was checked by the first request and
/// is remembered (here for an hour, so that a slow machine cannot make the count vary).
async fn a_create_and_a_replay_cost_a_fixed_number_of_statements(backend: Backend) {
    let app = TestApp::spawn_with(backend, |c| {
        c.sandbox_webhook_delay = Duration::from_secs(3600);
        c.live_key_ttl = Duration::from_secs(3600);
    })
    .await;
    let (account, key) = app.account("Alice").await;
    let lean = "mutation($input: CreatePaymentInput!, $key: String!) { \
        createPayment(input: $input, idempotencyKey: $key) { replayed payment { id status } } }";
    let mut costs = Vec::new();
    // The first request also opens pooled connections (SQLite sets them up with statements).
    for idem in ["k0", "k1", "k2", "k1", "k2"] {
        app.statements_settled().await;
        let before = app.server_db.statements_run();
        let data = app
            .query(
                &key,
                lean,
                json!({"input": input(500, "tok_visa"), "key": idem}),
            )
            .await;
        costs.push(app.server_db.statements_run() - before);
        assert_eq!(data["createPayment"]["payment"]["status"], "SUCCEEDED");
    }
    let (create, replay) = match backend {
        // The claim, the transaction with the payment, its event and the key's link, the
        // sandbox's record, the transaction with the outcome, its event and the key.
        Backend::Sqlite => (8, 2),
        // The same in one statement each, and the read of the log position after the commit
        // that the answer's consistency token holds (a replay's too).
        Backend::Postgres => (4, 3),
    };
    assert_eq!(costs[1..], [create, create, replay, replay], "{backend:?}");
    // Every write landed whole: three payments, each with both events, all keys done.
    assert_eq!(row_count(&app, "payments").await, 3);
    assert_eq!(row_count(&app, "payment_events").await, 6);
    let done = app
        .db
        .query_text(&format!(
            "SELECT COUNT(*) FROM idempotency_keys WHERE account_id = '{account}' \
             AND state = 'done' AND payment_id IS NOT NULL AND outcome IS NOT NULL"
        ))
        .await
        .unwrap()[0][0]
        .clone();
    assert_eq!(done, "3");
    assert_eq!(charges(&app).await, 3);
}

on_both_backends_fn!(
    a_create_and_a_replay_cost_a_fixed_number_of_statements,
    processor_unavailable_then_retry_charges_once,
    a_timeout_answers_processor_unavailable_and_releases_the_claim,
    an_abandoned_claim_is_taken_over_after_the_lock_timeout,
    expired_keys_are_swept_and_then_mean_a_new_request,
);
