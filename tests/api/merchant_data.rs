//! The merchant's own data on payments: `reference` and `metadata` with the contract's
//! limits, in the fingerprint, as filters bound into cursors, and changed by `updatePayment`
//! (version-checked, with a `payment.updated` event).

use serde_json::{Value, json};

use crate::helpers::{
    CANCEL, TestApp, create, error_extension, first_error_code, on_both_backends, row_count,
};

const CREATE_WITH_DATA: &str = "mutation Create($input: CreatePaymentInput!, $key: String!) {
  createPayment(input: $input, idempotencyKey: $key) {
    replayed
    payment { id status reference metadata { key value } }
  }
}";

const UPDATE: &str = "mutation Update($input: UpdatePaymentInput!) {
  updatePayment(input: $input) { replayed payment { id status description reference metadata { key value } } }
}";

const LIST: &str = "query List($filter: PaymentFilter, $first: Int, $after: String, $last: Int, $before: String, $order: PaymentOrder) {
  payments(first: $first, after: $after, last: $last, before: $before, filter: $filter, orderBy: $order) {
    totalCount
    edges { cursor node { id reference metadata { key value } } }
    pageInfo { hasNextPage endCursor hasPreviousPage startCursor }
  }
}";

fn entries(pairs: &[(&str, &str)]) -> Value {
    pairs
        .iter()
        .map(|(key, value)| json!({"key": key, "value": value}))
        .collect()
}

fn with_data(amount: i64, reference: Option<&str>, metadata: Value) -> Value {
    json!({"amount": amount, "currency": "USD", "source": "tok_visa",
        "reference": reference, "metadata": metadata})
}

/// Sends a create that must be refused with `BAD_USER_INPUT` on `field`.
async fn refused(app: &TestApp, key: &str, input: Value, field: &str) {
    let (_, body) = app
        .post(
            Some(key),
            CREATE_WITH_DATA,
            json!({"input": input, "key": format!("refused-{field}")}),
        )
        .await;
    assert_eq!(first_error_code(&body), "BAD_USER_INPUT", "{body}");
    assert_eq!(
        error_extension(&body, "field").clone(),
        json!(field),
        "{body}"
    );
}

/// The ids of the payments `filter` lists in `order`, walked backward from the end in pages
/// of 2.
async fn listed_backward(app: &TestApp, key: &str, filter: Value, order: Value) -> Vec<String> {
    let (mut ids, mut before) = (Vec::new(), Value::Null);
    loop {
        let data = app
            .query(
                key,
                LIST,
                json!({"filter": filter, "last": 2, "before": before, "order": order}),
            )
            .await;
        let page = &data["payments"];
        let mut got: Vec<String> = page["edges"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["node"]["id"].as_str().unwrap().to_string())
            .collect();
        got.append(&mut ids);
        ids = got;
        if page["pageInfo"]["hasPreviousPage"] != true {
            return ids;
        }
        before = page["pageInfo"]["startCursor"].clone();
    }
}

/// The ids of the payments `filter` lists, every page walked.
async fn listed(app: &TestApp, key: &str, filter: Value) -> (Vec<String>, i64) {
    let (mut ids, mut after) = (Vec::new(), Value::Null);
    loop {
        let data = app
            .query(
                key,
                LIST,
                json!({"filter": filter, "first": 3, "after": after}),
            )
            .await;
        let page = &data["payments"];
        let total = page["totalCount"].as_i64().unwrap();
        for edge in page["edges"].as_array().unwrap() {
            ids.push(edge["node"]["id"].as_str().unwrap().to_string());
        }
        if page["pageInfo"]["hasNextPage"] != true {
            return (ids, total);
        }
        after = page["pageInfo"]["endCursor"].clone();
    }
}

on_both_backends! {
    async fn each_limit_holds_at_its_bound_and_refuses_one_past_it(app: TestApp) {
        let (_, key) = app.account("Shop").await;
        let key40 = "k".repeat(40);
        let value500 = "v".repeat(500);
        let fifty: Vec<(String, String)> = (0..50).map(|i| (format!("k{i:02}"), i.to_string())).collect();
        let fifty_json: Value = fifty.iter().map(|(k, v)| json!({"key": k, "value": v})).collect();
        let reference255 = "R".repeat(255);
        let at_bounds = [
            with_data(100, Some(&reference255), entries(&[(&key40, &value500)])),
            with_data(100, Some("order 8812"), fifty_json.clone()),
            with_data(100, None, entries(&[("a.b-c_D9", "")])),
        ];
        for (i, input) in at_bounds.into_iter().enumerate() {
            let made = app
                .query(&key, CREATE_WITH_DATA, json!({"input": input, "key": format!("ok-{i}")}))
                .await;
            assert_eq!(made["createPayment"]["replayed"], false);
        }
        let before = row_count(&app, "payments").await;
        let mut fifty_one = fifty_json.as_array().unwrap().clone();
        fifty_one.push(json!({"key": "one.more", "value": "x"}));
        refused(&app, &key, with_data(1, None, Value::Array(fifty_one)), "input.metadata").await;
        let key41 = "k".repeat(41);
        refused(&app, &key, with_data(1, None, entries(&[("a", "1"), (&key41, "v")])), "input.metadata[1].key").await;
        let value501 = "v".repeat(501);
        refused(&app, &key, with_data(1, None, entries(&[(&key40, &value501)])), "input.metadata[0].value").await;
        refused(&app, &key, with_data(1, Some(&"R".repeat(256)), Value::Null), "input.reference").await;
        refused(&app, &key, with_data(1, Some(""), Value::Null), "input.reference").await;
        refused(&app, &key, with_data(1, Some("two\nlines"), Value::Null), "input.reference").await;
        refused(&app, &key, with_data(1, None, entries(&[("", "v")])), "input.metadata[0].key").await;
        refused(&app, &key, with_data(1, None, entries(&[("has space", "v")])), "input.metadata[0].key").await;
        refused(&app, &key, with_data(1, None, entries(&[("a", "1"), ("b", "2"), ("a", "3")])), "input.metadata[2].key").await;
        refused(&app, &key, with_data(1, None, entries(&[("a", "tab\there")])), "input.metadata[0].value").await;
        assert_eq!(row_count(&app, "payments").await, before, "a refused create stores nothing");
        assert_eq!(
            row_count(&app, "payment_metadata").await,
            1 + 50 + 1,
            "one row per stored entry, none for refused ones"
        );
    }

    async fn metadata_comes_back_sorted_and_is_part_of_the_fingerprint(app: TestApp) {
        let (_, key) = app.account("Shop").await;
        let input = with_data(500, Some("order 1"), entries(&[("order", "1"), ("cart", "c9")]));
        let made = app.query(&key, CREATE_WITH_DATA, json!({"input": input, "key": "k1"})).await;
        let payment = &made["createPayment"]["payment"];
        assert_eq!(payment["reference"], "order 1");
        assert_eq!(payment["metadata"], entries(&[("cart", "c9"), ("order", "1")]), "sorted by key");

        // The same entries in another order are the same request: a replay.
        let reordered = with_data(500, Some("order 1"), entries(&[("cart", "c9"), ("order", "1")]));
        let again = app.query(&key, CREATE_WITH_DATA, json!({"input": reordered, "key": "k1"})).await;
        assert_eq!(again["createPayment"]["replayed"], true);
        assert_eq!(again["createPayment"]["payment"]["id"], payment["id"]);

        for changed in [
            with_data(500, Some("order 2"), entries(&[("order", "1"), ("cart", "c9")])),
            with_data(500, None, entries(&[("order", "1"), ("cart", "c9")])),
            with_data(500, Some("order 1"), entries(&[("order", "2"), ("cart", "c9")])),
            with_data(500, Some("order 1"), entries(&[("order", "1")])),
        ] {
            let code = app
                .error_code(&key, CREATE_WITH_DATA, json!({"input": changed, "key": "k1"}))
                .await;
            assert_eq!(code, "IDEMPOTENCY_KEY_REUSED", "{changed}");
        }
    }

    async fn listings_filter_by_reference_and_by_every_metadata_entry_given(app: TestApp) {
        let (_, key) = app.account("Shop").await;
        let (_, other) = app.account("Other").await;
        let mut expected_blue = Vec::new();
        let mut expected_blue_eu = Vec::new();
        let mut order_7 = Vec::new();
        for i in 0..14 {
            let color = if i % 2 == 0 { "blue" } else { "red" };
            let region = if i % 3 == 0 { "eu" } else { "us" };
            let reference = format!("order {}", i % 5);
            let input = with_data(100 + i, Some(&reference), entries(&[("color", color), ("region", region)]));
            let made = app
                .query(&key, CREATE_WITH_DATA, json!({"input": input, "key": format!("p{i}")}))
                .await;
            let id = made["createPayment"]["payment"]["id"].as_str().unwrap().to_string();
            if color == "blue" {
                expected_blue.push(id.clone());
                if region == "eu" {
                    expected_blue_eu.push(id.clone());
                }
            }
            if i % 5 == 2 {
                order_7.push(id);
            }
        }
        // Another account's payment with the same data never shows.
        let foreign = with_data(100, Some("order 2"), entries(&[("color", "blue"), ("region", "eu")]));
        create(&app, &other, "foreign", foreign).await;
        // Newest first.
        for list in [&mut expected_blue, &mut expected_blue_eu, &mut order_7] {
            list.reverse();
        }
        let (blue, total) = listed(&app, &key, json!({"metadata": entries(&[("color", "blue")])})).await;
        assert_eq!((blue, total), (expected_blue.clone(), expected_blue.len() as i64));
        let (both, total) = listed(
            &app,
            &key,
            json!({"metadata": entries(&[("region", "eu"), ("color", "blue")])}),
        )
        .await;
        assert_eq!((both, total), (expected_blue_eu.clone(), expected_blue_eu.len() as i64));
        // The same walked backward, and oldest first; by amount (which no entry's rows hold in
        // order) the same payments.
        let backward = listed_backward(&app, &key, json!({"metadata": entries(&[("color", "blue")])}), Value::Null).await;
        assert_eq!(backward, expected_blue);
        let oldest_first = json!({"field": "CREATED_AT", "direction": "ASC"});
        let mut ascending = listed_backward(&app, &key, json!({"metadata": entries(&[("region", "eu"), ("color", "blue")])}), oldest_first).await;
        ascending.reverse();
        assert_eq!(ascending, expected_blue_eu);
        let by_amount = json!({"field": "AMOUNT", "direction": "DESC"});
        let mut amounts = listed_backward(&app, &key, json!({"metadata": entries(&[("color", "blue")])}), by_amount).await;
        amounts.sort();
        let mut blue_sorted = expected_blue.clone();
        blue_sorted.sort();
        assert_eq!(amounts, blue_sorted);
        let (by_reference, total) = listed(&app, &key, json!({"reference": "order 2"})).await;
        assert_eq!((by_reference, total), (order_7.clone(), order_7.len() as i64));
        let (none, total) = listed(&app, &key, json!({"metadata": entries(&[("color", "green")])})).await;
        assert_eq!((none, total), (Vec::<String>::new(), 0));
        // Filters are checked as inputs are.
        let (_, body) = app
            .post(Some(&key), LIST, json!({"filter": {"metadata": entries(&[("bad key", "x")])}}))
            .await;
        assert_eq!(first_error_code(&body), "BAD_USER_INPUT");
        assert_eq!(error_extension(&body, "field").clone(), json!("filter.metadata[0].key"));
    }

    async fn a_cursor_of_one_merchant_data_filter_is_refused_under_another(app: TestApp) {
        let (_, key) = app.account("Shop").await;
        for i in 0..4 {
            let input = with_data(100, Some("r"), entries(&[("color", "blue"), ("size", "m")]));
            create(&app, &key, &format!("p{i}"), input).await;
        }
        let blue = json!({"metadata": entries(&[("color", "blue")])});
        let page = app.query(&key, LIST, json!({"filter": blue, "first": 1})).await;
        let cursor = page["payments"]["pageInfo"]["endCursor"].clone();
        let next = app
            .query(&key, LIST, json!({"filter": blue, "first": 1, "after": cursor}))
            .await;
        assert_eq!(next["payments"]["edges"].as_array().unwrap().len(), 1, "the same filter goes on");
        for other in [
            json!({"metadata": entries(&[("size", "m")])}),
            json!({"metadata": entries(&[("color", "blue"), ("size", "m")])}),
            json!({"metadata": entries(&[("color", "red")])}),
            json!({"reference": "r"}),
            json!({"reference": "r", "metadata": entries(&[("color", "blue")])}),
            json!({}),
        ] {
            let code = app
                .error_code(&key, LIST, json!({"filter": other, "first": 1, "after": cursor}))
                .await;
            assert_eq!(code, "CURSOR_MISMATCH", "{other}");
        }
    }

    async fn update_payment_changes_the_merchant_data_and_records_it(app: TestApp) {
        let (_, key) = app.account("Shop").await;
        let (_, other) = app.account("Other").await;
        let input = with_data(900, Some("order 1"), entries(&[("a", "1"), ("b", "2")]));
        let made = app.query(&key, CREATE_WITH_DATA, json!({"input": input, "key": "k"})).await;
        let id = made["createPayment"]["payment"]["id"].as_str().unwrap().to_string();

        // Only what is given changes; given metadata replaces the whole set.
        let updated = app
            .query(&key, UPDATE, json!({"input": {"paymentId": id, "metadata": entries(&[("c", "3")])}}))
            .await;
        let payment = &updated["updatePayment"]["payment"];
        assert_eq!(payment["reference"], "order 1");
        assert_eq!(payment["metadata"], entries(&[("c", "3")]));
        assert_eq!(updated["updatePayment"]["replayed"], false);
        let (old_filter, _) = listed(&app, &key, json!({"metadata": entries(&[("a", "1")])})).await;
        assert!(old_filter.is_empty(), "replaced entries no longer match");
        let (new_filter, _) = listed(&app, &key, json!({"metadata": entries(&[("c", "3")])})).await;
        assert_eq!(new_filter, vec![id.clone()]);

        // `null` clears; the description can be set too.
        let cleared = app
            .query(&key, UPDATE, json!({"input": {"paymentId": id, "reference": null, "metadata": null, "description": "gift"}}))
            .await;
        let payment = &cleared["updatePayment"]["payment"];
        assert_eq!(payment["reference"], Value::Null);
        assert_eq!(payment["metadata"], json!([]));
        assert_eq!(payment["description"], "gift");

        // An update that changes nothing appends no event.
        app.query(&key, UPDATE, json!({"input": {"paymentId": id, "description": "gift"}})).await;
        let events = crate::event_log::until_events(&app, &key, json!({"paymentId": id}), 4).await;
        let types: Vec<&str> = events
            .iter()
            .map(|e| e["node"]["type"].as_str().unwrap())
            .collect();
        assert_eq!(
            types,
            ["payment.processing", "payment.succeeded", "payment.updated", "payment.updated"]
        );
        let last = &events[3]["node"]["id"];
        let shown = app
            .query(&key, "query($id: ID!) { node(id: $id) { ... on Event { payment { description reference } } } }", json!({"id": last}))
            .await;
        assert_eq!(shown["node"]["payment"], json!({"description": "gift", "reference": null}));

        // Another account's payment is not found; bad input is refused with its field.
        let (_, body) = app.post(Some(&other), UPDATE, json!({"input": {"paymentId": id, "reference": "x"}})).await;
        assert_eq!(first_error_code(&body), "BAD_USER_INPUT", "{body}");
        assert_eq!(error_extension(&body, "field").clone(), json!("paymentId"));
        let (_, body) = app
            .post(Some(&key), UPDATE, json!({"input": {"paymentId": id, "metadata": entries(&[("k", "1"), ("k", "2")])}}))
            .await;
        assert_eq!(error_extension(&body, "field").clone(), json!("input.metadata[1].key"), "{body}");
        let (_, body) = app.post(Some(&key), UPDATE, json!({"input": {"paymentId": "pay_nope"}})).await;
        assert_eq!(error_extension(&body, "field").clone(), json!("paymentId"), "{body}");
    }

    async fn updates_racing_a_status_change_are_all_kept_in_commit_order(app: TestApp) {
        let (_, key) = app.account("Shop").await;
        let pending = json!({"amount": 300, "currency": "USD", "source": "tok_visa", "confirm": false});
        let made = create(&app, &key, "pending", pending).await;
        let id = made["payment"]["id"].as_str().unwrap().to_string();
        let writers = 12;
        let mut tasks = Vec::new();
        for i in 0..writers {
            let (address, key, id) = (app.address.clone(), key.clone(), id.clone());
            tasks.push(tokio::spawn(async move {
                let variables = if i == writers / 2 {
                    json!({"id": id})
                } else {
                    json!({"input": {"paymentId": id, "reference": format!("r{i}")}})
                };
                let query = if i == writers / 2 { CANCEL } else { UPDATE };
                crate::helpers::post_on_new_connection(address, key, query, variables).await
            }));
        }
        let (mut updated, mut canceled) = (0, false);
        for (i, task) in tasks.into_iter().enumerate() {
            let body = task.await.unwrap();
            if body.get("errors").is_some() {
                // A writer that kept losing is told to retry; it wrote nothing.
                assert_eq!(first_error_code(&body), "REQUEST_IN_PROGRESS", "{body}");
            } else if i == writers / 2 {
                assert_eq!(body["data"]["cancelPayment"]["payment"]["status"], "CANCELED", "{body}");
                canceled = true;
            } else {
                updated += 1;
            }
        }
        if !canceled {
            // The cancel lost every race: it goes through now, so the order is still checked.
            app.query(&key, CANCEL, json!({"id": id})).await;
        }
        assert!(updated > 0);
        crate::event_log::until_events(&app, &key, json!({"paymentId": id}), 1 + updated + 1).await;
        let events = app
            .query(
                &key,
                "query($id: ID!) { events(first: 100, filter: {paymentId: $id}) { nodes { type payment { status reference } } } }",
                json!({"id": id}),
            )
            .await;
        let nodes = events["events"]["nodes"].as_array().unwrap().clone();
        let count = |t: &str| nodes.iter().filter(|n| n["type"] == t).count();
        assert_eq!(count("payment.updated"), updated, "every update kept: {nodes:?}");
        assert_eq!(count("payment.canceled"), 1, "{nodes:?}");
        // In commit order, each event shows the payment as its change left it: statuses
        // before the cancel are PENDING, after it CANCELED; references carry over.
        let canceled_at = nodes.iter().position(|n| n["type"] == "payment.canceled").unwrap();
        let mut reference = Value::Null;
        for (i, node) in nodes.iter().enumerate().skip(1) {
            let want = if i < canceled_at { "PENDING" } else { "CANCELED" };
            assert_eq!(node["payment"]["status"], want, "{nodes:?}");
            if node["type"] == "payment.updated" {
                assert_ne!(node["payment"]["reference"], reference, "each update changed it");
                reference = node["payment"]["reference"].clone();
            } else {
                assert_eq!(node["payment"]["reference"], reference, "{nodes:?}");
            }
        }
        let now = app
            .query(&key, "query($id: ID!) { payment(id: $id) { status reference } }", json!({"id": id}))
            .await;
        assert_eq!(now["payment"], json!({"status": "CANCELED", "reference": reference}));
    }
}
