//! Hostile documents and the query-cost budget: limits checked before the expensive work,
//! the contract's codes for each refusal, costs reported on every response, and accounts
//! throttled one by one with the test in control of time.

use std::sync::Arc;
use std::time::Duration;

use futures_util::SinkExt;
use graphpay::domain::time::Timestamp;
use graphpay::graphql::limits::budget::{ManualClock, ThrottleSettings};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;

use crate::helpers::{
    Backend, CREATE, TestApp, connect, cost, create, error_extension, first_error_code,
    first_error_message, input, next_message, on_both_backends, on_both_backends_fn, row_count,
    subscribe_as,
};

/// `fragment Fk on Query { ...F(k-1) ak: viewer { id } ...F(k-1) }`: a kilobyte that expands
/// to 2^levels selections.
fn fan_out(levels: usize) -> String {
    let mut text = String::from("fragment F0 on Query { viewer { id name } }\n");
    for k in 1..=levels {
        text.push_str(&format!(
            "fragment F{k} on Query {{ ...F{p} a{k}: viewer {{ id }} ...F{p} }}\n",
            p = k - 1
        ));
    }
    text.push_str(&format!("{{ ...F{levels} }}"));
    text
}

/// Stores `n` payments for the account, so that pages return real rows.
async fn seed(app: &TestApp, account: &str, n: usize) {
    for i in 0..n {
        app.insert_payment(account, 100 + i as i64, Timestamp::now())
            .await;
    }
}

on_both_backends! {
    async fn fragments_that_fan_out_are_refused_before_validation(app: TestApp) {
        let (_, key) = app.account("Alice").await;
        for levels in [18, 24, 28] {
            let (status, body) = app.post(Some(&key), &fan_out(levels), json!({})).await;
            assert_eq!(status, 200);
            assert_eq!(first_error_code(&body), "QUERY_TOO_COMPLEX", "{levels}: {body}");
            assert!(first_error_message(&body).contains("expanded"), "{body}");
        }
        // The gateway answers others meanwhile.
        let document = fan_out(26);
        let attack = (0..4).map(|_| app.post(Some(&key), &document, json!({})));
        let (health, _) = tokio::join!(app.get("/healthz"), futures_util::future::join_all(attack));
        assert_eq!(health.status(), 200);
    }

    async fn pages_are_counted_so_many_large_aliased_pages_are_refused_unrun(app: TestApp) {
        let (account, key) = app.account("Alice").await;
        seed(&app, &account, 3).await;
        let aliases = |n: usize| -> String {
            (0..n)
                .map(|i| format!("p{i}: payments(first: 100) {{ edges {{ node {{ id events {{ toStatus }} refunds {{ id }} }} }} }}\n"))
                .collect()
        };
        // Four such pages are already over the maximum cost.
        let (_, body) = app.post(Some(&key), &format!("{{ {} }}", aliases(4)), json!({})).await;
        assert_eq!(first_error_code(&body), "QUERY_TOO_COMPLEX", "{body}");
        assert_eq!(body["data"], Value::Null);
        assert_eq!(error_extension(&body, "cost"), 4 * (2 + 100 * 3));
        assert_eq!(cost(&body)["requestedQueryCost"], 4 * (2 + 100 * 3));
        assert_eq!(cost(&body)["actualQueryCost"], 0);
        // Six hundred (52 KB) do not even get as far as being parsed.
        let (_, body) = app.post(Some(&key), &format!("{{ {} }}", aliases(600)), json!({})).await;
        assert_eq!(first_error_code(&body), "QUERY_TOO_COMPLEX", "{body}");
        assert_eq!(body["data"], Value::Null);

        let ids: Vec<String> = (0..100).map(|i| format!("\"pay_{i}\"")).collect();
        let nodes = |n: usize| -> String {
            (0..n)
                .map(|i| format!("n{i}: nodes(ids: [{}]) {{ id }}\n", ids.join(",")))
                .collect()
        };
        let (_, body) = app.post(Some(&key), &format!("{{ {} }}", nodes(11)), json!({})).await;
        assert_eq!(first_error_code(&body), "QUERY_TOO_COMPLEX", "{body}");
        assert_eq!(error_extension(&body, "cost"), 11 * 100);
        let (_, body) = app.post(Some(&key), &format!("{{ {} }}", nodes(200)), json!({})).await;
        assert_eq!(first_error_code(&body), "QUERY_TOO_COMPLEX", "{body}");
    }

    async fn client_mistakes_get_their_contract_codes(app: TestApp) {
        let (_, key) = app.account("Alice").await;
        let two = "query A { viewer { id } } query B { viewer { name } }";
        assert_eq!(app.error_code(&key, two, json!({})).await, "GRAPHQL_VALIDATION_FAILED");
        let (_, body) = app.post(Some(&key), two, json!({})).await;
        assert!(first_error_message(&body).contains("operationName"), "{body}");

        let subscription = "subscription { paymentUpdated { id } }";
        assert_eq!(app.error_code(&key, subscription, json!({})).await, "GRAPHQL_VALIDATION_FAILED");

        let cycle = "fragment A on Query { viewer { id } ...B } fragment B on Query { ...A } { ...A }";
        assert_eq!(app.error_code(&key, cycle, json!({})).await, "GRAPHQL_VALIDATION_FAILED");

        let mut deep = String::from("id");
        for _ in 0..30 {
            deep = format!("payment {{ refunds {{ {deep} }} }}");
        }
        let deep = format!("{{ node(id: \"re_01ARZ3NDEKTSV4RRFFQ69G5FAV\") {{ ... on Refund {{ {deep} }} }} }}");
        assert_eq!(app.error_code(&key, &deep, json!({})).await, "QUERY_TOO_COMPLEX");
    }

    async fn oversized_documents_and_bodies_are_refused(app: TestApp) {
        let (_, key) = app.account("Alice").await;
        let padding = " ".repeat(70_000);
        let (_, body) = app.post(Some(&key), &format!("{{ viewer {{ id }} {padding} }}"), json!({})).await;
        assert_eq!(first_error_code(&body), "QUERY_TOO_COMPLEX", "{body}");

        let huge = json!({"query": "{ viewer { id } }", "variables": {"x": "y".repeat(300_000)}});
        let response = app
            .http
            .post(format!("{}/graphql", app.address))
            .bearer_auth(&key)
            .json(&huge)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 413);
        let body: Value = response.json().await.unwrap();
        assert_eq!(first_error_code(&body), "QUERY_TOO_COMPLEX");
    }

    async fn batches_run_each_operation_and_are_bounded(app: TestApp) {
        let (_, key) = app.account("Alice").await;
        let one = json!({"query": "{ viewer { id } }"});
        let send = |batch: Value| {
            app.http
                .post(format!("{}/graphql", app.address))
                .bearer_auth(&key)
                .json(&batch)
                .send()
        };
        let response = send(json!([one, {"query": "{ viewer { name } }"}])).await.unwrap();
        assert_eq!(response.status(), 200);
        let body: Value = response.json().await.unwrap();
        let answers = body.as_array().expect("an array of responses");
        assert_eq!(answers.len(), 2);
        assert!(answers[1]["data"]["viewer"]["name"].is_string(), "{body}");
        assert_eq!(cost(&answers[0])["requestedQueryCost"], 1);

        let response = send(Value::Array(vec![one; 11])).await.unwrap();
        assert_eq!(response.status(), 400);
        let body: Value = response.json().await.unwrap();
        assert_eq!(first_error_code(&body), "QUERY_TOO_COMPLEX");
    }
}

on_both_backends_fn!(every_response_reports_its_requested_and_actual_cost);

async fn every_response_reports_its_requested_and_actual_cost(backend: Backend) {
    let settings = ThrottleSettings {
        capacity: 1_000,
        restore_rate: 50,
        clock: Arc::new(ManualClock::default()),
    };
    let app = TestApp::spawn_with(backend, |config| config.throttle = settings).await;
    let (account, key) = app.account("Alice").await;
    seed(&app, &account, 3).await;
    let query = "{ payments(first: 10) { edges { node { id events { toStatus } } } } }";
    let (_, body) = app.post(Some(&key), query, json!({})).await;
    assert_eq!(
        body["data"]["payments"]["edges"].as_array().unwrap().len(),
        3
    );
    assert_eq!(
        *cost(&body),
        json!({
            "requestedQueryCost": 22,
            "actualQueryCost": 2 + 3 * 2,
            "throttleStatus": {"maximumAvailable": 1000, "currentlyAvailable": 1000 - 8, "restoreRate": 50}
        })
    );
    let (_, body) = app.post(Some(&key), "{ viewer { id } }", json!({})).await;
    assert_eq!(cost(&body)["requestedQueryCost"], 1);
    assert_eq!(cost(&body)["actualQueryCost"], 1);
}

on_both_backends_fn!(an_account_over_its_budget_is_throttled_and_others_are_not);

async fn an_account_over_its_budget_is_throttled_and_others_are_not(backend: Backend) {
    let clock = Arc::new(ManualClock::default());
    let settings = ThrottleSettings {
        capacity: 100,
        restore_rate: 10,
        clock: clock.clone(),
    };
    let app = TestApp::spawn_with(backend, |config| config.throttle = settings).await;
    let (alice, alice_key) = app.account("Alice").await;
    let (_, bob_key) = app.account("Bob").await;
    seed(&app, &alice, 10).await;
    // Ten rows come back, so the page costs what it asked for: 2 + 10.
    let page = "{ payments(first: 10) { nodes { id } } }";
    for spent in 1..=8 {
        let (status, body) = app.post(Some(&alice_key), page, json!({})).await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(
            cost(&body)["throttleStatus"]["currentlyAvailable"],
            100 - 12 * spent
        );
    }
    let response = app
        .http
        .post(format!("{}/graphql", app.address))
        .bearer_auth(&alice_key)
        .json(&json!({"query": page}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 429);
    assert_eq!(response.headers()["retry-after"], "1");
    let body: Value = response.json().await.unwrap();
    assert_eq!(first_error_code(&body), "THROTTLED");
    assert_eq!(error_extension(&body, "retryAfterSeconds"), 1);
    assert_eq!(body["data"], Value::Null);
    assert_eq!(cost(&body)["throttleStatus"]["currentlyAvailable"], 4);

    // Nothing runs while throttled: a mutation is refused before it creates anything.
    let before = row_count(&app, "payments").await;
    let (status, body) = app
        .post(
            Some(&alice_key),
            CREATE,
            json!({"input": input(100, "tok_visa"), "key": "t-1"}),
        )
        .await;
    assert_eq!(
        (status, first_error_code(&body).as_str()),
        (429, "THROTTLED")
    );
    assert_eq!(row_count(&app, "payments").await, before);

    // Bob's budget is his own.
    let (status, body) = app.post(Some(&bob_key), page, json!({})).await;
    assert_eq!(status, 200, "{body}");

    // A second later Alice has 14 points, enough for one more page.
    clock.advance(Duration::from_secs(1));
    let (status, body) = app.post(Some(&alice_key), page, json!({})).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(cost(&body)["throttleStatus"]["currentlyAvailable"], 2);
}

on_both_backends_fn!(an_account_may_hold_only_so_many_subscriptions);

async fn an_account_may_hold_only_so_many_subscriptions(backend: Backend) {
    let app = TestApp::spawn_with(backend, |config| config.max_subscriptions_per_account = 2).await;
    let (_, key) = app.account("Alice").await;
    let mut socket = connect(&app, &key).await.expect("connected");
    subscribe_as(&mut socket, "1", None).await;
    subscribe_as(&mut socket, "2", None).await;
    subscribe_as(&mut socket, "3", None).await;
    let refused = next_message(&mut socket).await.expect("an answer");
    assert_eq!(
        first_error_code(&refused["payload"]),
        "THROTTLED",
        "{refused}"
    );
    let refused_id = refused["id"].as_str().unwrap().to_string();

    // Ending one frees its slot for the next.
    let live = ["1", "2", "3"]
        .into_iter()
        .find(|id| *id != refused_id)
        .unwrap();
    let stop = json!({"id": live, "type": "complete"});
    socket.send(Message::text(stop.to_string())).await.unwrap();
    subscribe_as(&mut socket, "4", None).await;
    let mut heard_by_4 = false;
    for attempt in 0..50 {
        create(
            &app,
            &key,
            &format!("sub-limit-{attempt}"),
            input(100, "tok_visa"),
        )
        .await;
        while let Ok(Some(message)) =
            tokio::time::timeout(Duration::from_millis(200), next_message(&mut socket)).await
        {
            assert!(message["payload"].get("errors").is_none(), "{message}");
            heard_by_4 |= message["id"] == "4";
        }
        if heard_by_4 {
            break;
        }
    }
    assert!(heard_by_4, "the fourth subscription is live");
}

on_both_backends! {
    async fn fragments_that_only_spread_unknown_or_each_other_are_refused(app: TestApp) {
        let (_, key) = app.account("Alice").await;
        let mut text = String::from("fragment F0 on Query { ...Nope }\n");
        for k in 1..=30 {
            text.push_str(&format!("fragment F{k} on Query {{ ...F{p} ...F{p} }}\n", p = k - 1));
        }
        text.push_str("{ ...F30 }");
        assert_eq!(app.error_code(&key, &text, json!({})).await, "GRAPHQL_VALIDATION_FAILED");
        let text = text.replace("...Nope", "__typename");
        assert_eq!(app.error_code(&key, &text, json!({})).await, "QUERY_TOO_COMPLEX");
    }

    async fn variable_defaults_and_single_ids_are_costed_as_they_run(app: TestApp) {
        let (_, key) = app.account("Alice").await;
        let query = "query Q($n: Int = 100) { payments(first: $n) { nodes { id events { toStatus } refunds { id } } } }";
        let (_, body) = app.post(Some(&key), query, json!({})).await;
        assert_eq!(cost(&body)["requestedQueryCost"], 2 + 100 * 3, "{body}");
        let (_, body) = app.post(Some(&key), "{ nodes(ids: \"pay_x\") { id } }", json!({})).await;
        assert_eq!(cost(&body)["requestedQueryCost"], 1, "{body}");
    }

    async fn a_document_seen_before_is_still_held_to_each_requests_variables(app: TestApp) {
        let (_, key) = app.account("Alice").await;
        // The same text three times: parsed once, costed by each request's variables, and
        // each request's variables checked for depth.
        let query = "query Q($n: Int!, $x: [Int]) { payments(first: $n) { nodes { id } } }";
        let (_, body) = app.post(Some(&key), query, json!({"n": 5})).await;
        assert_eq!(cost(&body)["requestedQueryCost"], 2 + 5, "{body}");
        let (_, body) = app.post(Some(&key), query, json!({"n": 40})).await;
        assert_eq!(cost(&body)["requestedQueryCost"], 2 + 40, "{body}");
        let mut deep = json!(1);
        for _ in 0..40 {
            deep = json!([deep]);
        }
        let (_, body) = app.post(Some(&key), query, json!({"n": 1, "x": deep})).await;
        assert_eq!(first_error_code(&body), "QUERY_TOO_COMPLEX", "{body}");
        // A text refused before parsing is refused every time.
        let nested = format!("{{ viewer {{ id {}", "a { ".repeat(40));
        for _ in 0..2 {
            assert_eq!(app.error_code(&key, &nested, json!({})).await, "QUERY_TOO_COMPLEX");
        }
    }

    async fn a_document_sent_again_is_costed_for_its_operation_and_values(app: TestApp) {
        let (_, key) = app.account("Alice").await;
        // Its plan is kept with the document, for the operation and the values it read: a
        // page size, a filter. Another cursor or an unread variable changes nothing.
        let query = "query A($n: Int!, $f: PaymentFilter, $after: String, $x: Boolean = true) { \
                     payments(first: $n, filter: $f, after: $after) { totalCount nodes { id @include(if: $x) } } } \
                     query B($n: Int!) { payments(first: $n) { nodes { id refunds { id } } } }";
        let run = |name: &'static str, variables: Value| {
            let app = &app;
            let key = &key;
            async move {
                let (_, body) = app
                    .post_json(
                        Some(key),
                        json!({"query": query, "operationName": name, "variables": variables}),
                    )
                    .await;
                assert!(body.get("errors").is_none(), "{body}");
                cost(&body)["requestedQueryCost"].as_u64().expect("a cost")
            }
        };
        let amount = json!({"amountMin": 1});
        let cases = [
            ("A", json!({"n": 5}), 2 + 5 + 1),
            ("A", json!({"n": 5, "x": false, "after": null}), 2 + 5 + 1),
            ("A", json!({"n": 5, "f": amount}), 2 + 5 + 100),
            ("A", json!({"n": 5, "f": {"status": ["SUCCEEDED"]}}), 2 + 5 + 1),
            ("B", json!({"n": 5}), 2 + 5 * 2),
            ("A", json!({"n": 40}), 2 + 40 + 1),
            ("A", json!({"n": 5, "f": amount}), 2 + 5 + 100),
            ("A", json!({"n": 5}), 2 + 5 + 1),
            ("B", json!({"n": 40}), 2 + 40 * 2),
        ];
        for (name, variables, expected) in cases {
            assert_eq!(run(name, variables.clone()).await, expected, "{name} {variables}");
        }
    }

    async fn a_mutation_that_failed_is_still_paid_for(app: TestApp) {
        let (_, key) = app.account("Alice").await;
        let query = "mutation { cancelPayment(paymentId: \"pay_01ARZ3NDEKTSV4RRFFQ69G5FAV\") { payment { id } } }";
        let (_, body) = app.post(Some(&key), query, json!({})).await;
        assert!(body.get("errors").is_some(), "{body}");
        assert_eq!(cost(&body)["requestedQueryCost"], 11);
        assert_eq!(cost(&body)["actualQueryCost"], 10);
    }

    async fn operations_over_the_websocket_report_their_cost(app: TestApp) {
        let (_, key) = app.account("Alice").await;
        let mut socket = connect(&app, &key).await.expect("connected");
        let query = json!({"id": "q", "type": "subscribe", "payload": {"query": "{ viewer { id } }"}});
        socket.send(Message::text(query.to_string())).await.unwrap();
        let answer = next_message(&mut socket).await.expect("an answer");
        assert_eq!(cost(&answer["payload"])["requestedQueryCost"], 1, "{answer}");
        assert_eq!(cost(&answer["payload"])["actualQueryCost"], 1, "{answer}");
    }
}

on_both_backends_fn!(a_result_that_outgrows_its_cost_is_cut_at_the_field_limit);

async fn a_result_that_outgrows_its_cost_is_cut_at_the_field_limit(backend: Backend) {
    let app = TestApp::spawn_with(backend, |config| {
        if let Some(limits) = config.query_limits.as_mut() {
            limits.max_resolved_fields = 40;
        }
    })
    .await;
    let (account, key) = app.account("Alice").await;
    seed(&app, &account, 30).await;
    // A list of objects counts as one object in the cost, so the cost stays small while the
    // result does not.
    let query = "{ payments(first: 30) { nodes { id amount events { toStatus } } } }";
    let (status, body) = app.post(Some(&key), query, json!({})).await;
    assert_eq!(status, 200);
    assert_eq!(first_error_code(&body), "QUERY_TOO_COMPLEX", "{body}");
    assert!(first_error_message(&body).contains("40 fields"), "{body}");
    // Within the limit, the same query answers in full.
    let (_, body) = app
        .post(
            Some(&key),
            "{ payments(first: 5) { nodes { id } } }",
            json!({}),
        )
        .await;
    assert!(body.get("errors").is_none(), "{body}");
}

on_both_backends_fn!(a_batch_with_a_throttled_operation_answers_429);

async fn a_batch_with_a_throttled_operation_answers_429(backend: Backend) {
    let settings = ThrottleSettings {
        capacity: 5,
        restore_rate: 1,
        clock: Arc::new(ManualClock::default()),
    };
    let app = TestApp::spawn_with(backend, |config| config.throttle = settings).await;
    let (_, key) = app.account("Alice").await;
    let page = json!({"query": "{ payments(first: 3) { nodes { id } } }"});
    let response = app
        .http
        .post(format!("{}/graphql", app.address))
        .bearer_auth(&key)
        .json(&json!([page, page]))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 429);
    assert_eq!(response.headers()["retry-after"], "2");
    let body: Value = response.json().await.unwrap();
    assert!(body[0].get("errors").is_none(), "{body}");
    assert_eq!(first_error_code(&body[1]), "THROTTLED", "{body}");
}

on_both_backends_fn!(each_subscription_event_has_the_whole_field_limit);

async fn each_subscription_event_has_the_whole_field_limit(backend: Backend) {
    let app = TestApp::spawn_with(backend, |config| {
        if let Some(limits) = config.query_limits.as_mut() {
            limits.max_resolved_fields = 2;
        }
    })
    .await;
    let (_, key) = app.account("Alice").await;
    let mut socket = connect(&app, &key).await.expect("connected");
    // Two fields per event of the payment: a payment with one event fits, one with two does
    // not.
    let query = "subscription { paymentUpdated { amount events { fromStatus toStatus } } }";
    let subscribe = json!({"id": "s", "type": "subscribe", "payload": {"query": query}});
    socket
        .send(Message::text(subscribe.to_string()))
        .await
        .unwrap();
    let pending = |amount: i64| json!({"amount": amount, "currency": "USD", "source": "tok_visa", "confirm": false});
    // Payments that stay PENDING (one event each) until the subscription has heard one; the
    // subscription is taken in asynchronously.
    let mut heard = None;
    for attempt in 0..50 {
        create_small(&app, &key, &format!("sync-{attempt}"), pending(1)).await;
        if let Ok(Some(frame)) =
            tokio::time::timeout(Duration::from_millis(300), next_message(&mut socket)).await
        {
            heard = Some(frame);
            break;
        }
    }
    let heard = heard.expect("the subscription heard a change");
    assert!(heard["payload"].get("errors").is_none(), "{heard}");
    while let Ok(Some(_)) =
        tokio::time::timeout(Duration::from_millis(300), next_message(&mut socket)).await
    {}

    // Many events of two fields each: each has the whole limit, not what the ones before
    // it left.
    for n in 0..5 {
        create_small(&app, &key, &format!("pending-{n}"), pending(100 + n)).await;
        let frame = next_message(&mut socket).await.expect("a frame");
        assert_eq!(frame["type"], "next", "{frame}");
        assert!(frame["payload"].get("errors").is_none(), "{frame}");
        assert_eq!(
            frame["payload"]["data"]["paymentUpdated"]["amount"],
            100 + n
        );
    }

    // A payment confirmed at once: its second change shows two events, four fields.
    let confirmed = json!({"amount": 700, "currency": "USD", "source": "tok_visa"});
    create_small(&app, &key, "confirmed", confirmed).await;
    let first = next_message(&mut socket).await.expect("a frame");
    assert!(first["payload"].get("errors").is_none(), "{first}");
    let second = next_message(&mut socket).await.expect("a frame");
    assert_eq!(
        second["payload"]["errors"][0]["extensions"]["code"], "QUERY_TOO_COMPLEX",
        "{second}"
    );
    assert!(
        second["payload"]["errors"][0]["message"]
            .as_str()
            .is_some_and(|m| m.contains("2 fields")),
        "{second}"
    );
    // The subscription goes on, and the next event has the whole limit again.
    create_small(&app, &key, "after", pending(800)).await;
    let after = next_message(&mut socket).await.expect("a frame");
    assert!(after["payload"].get("errors").is_none(), "{after}");
    assert_eq!(after["payload"]["data"]["paymentUpdated"]["amount"], 800);
}

/// A create that selects one field, within any field limit.
async fn create_small(app: &TestApp, key: &str, idem: &str, input: Value) {
    let mutation = "mutation C($input: CreatePaymentInput!, $key: String!) { \
        createPayment(input: $input, idempotencyKey: $key) { payment { id } } }";
    app.query(key, mutation, json!({"input": input, "key": idem}))
        .await;
}
