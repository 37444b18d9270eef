//! The webhook connections page as payments do: walks in both directions with exact
//! `pageInfo`, the same cursor and page-size errors, and the probe for the direction opposite
//! to paging made only when its flag is asked for.

use serde_json::{Value, json};

use crate::helpers::{Backend, TestApp, created_id, first_error_code, on_both_backends_fn};

const ENDPOINTS: &str = "query($first: Int, $after: String, $last: Int, $before: String) {
  webhookEndpoints(first: $first, after: $after, last: $last, before: $before) {
    edges { cursor node { id } } nodes { id }
    pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } }";

async fn gateway(backend: Backend) -> TestApp {
    TestApp::spawn_with(backend, |c| c.deliveries.policy.allow_private = true).await
}

/// Registers `count` endpoints; returns the key.
async fn with_endpoints(app: &TestApp, count: usize) -> String {
    let (_, key) = app.account("Alice").await;
    for i in 0..count {
        app.query(
            &key,
            "mutation($input: CreateWebhookEndpointInput!) {
               createWebhookEndpoint(input: $input) { endpoint { id } } }",
            json!({"input": {"url": format!("http://127.0.0.1:9/hook{i}")}}),
        )
        .await;
    }
    key
}

/// One page: its ids, and its `pageInfo` flags as `[hasNextPage, hasPreviousPage]`.
async fn endpoint_page(app: &TestApp, key: &str, variables: Value) -> (Vec<String>, Value) {
    let data = app.query(key, ENDPOINTS, variables).await;
    let page = &data["webhookEndpoints"];
    let edges = page["edges"].as_array().expect("edges");
    let ids: Vec<String> = edges
        .iter()
        .map(|e| e["node"]["id"].as_str().expect("an id").to_string())
        .collect();
    let nodes: Vec<&str> = page["nodes"]
        .as_array()
        .expect("nodes")
        .iter()
        .map(|n| n["id"].as_str().expect("an id"))
        .collect();
    assert_eq!(ids, nodes, "edges and nodes list the same endpoints");
    let info = &page["pageInfo"];
    assert_eq!(
        info["startCursor"],
        edges.first().map_or(Value::Null, |e| e["cursor"].clone())
    );
    assert_eq!(
        info["endCursor"],
        edges.last().map_or(Value::Null, |e| e["cursor"].clone())
    );
    (ids, page.clone())
}

fn flags(page: &Value) -> [bool; 2] {
    let info = &page["pageInfo"];
    [
        info["hasNextPage"].as_bool().expect("hasNextPage"),
        info["hasPreviousPage"].as_bool().expect("hasPreviousPage"),
    ]
}

async fn webhook_endpoints_walk_both_ways_with_exact_page_info(backend: Backend) {
    let app = gateway(backend).await;
    let key = with_endpoints(&app, 5).await;
    let (all, whole) = endpoint_page(&app, &key, json!({"first": 100})).await;
    assert_eq!(all.len(), 5);
    assert_eq!(flags(&whole), [false, false]);

    // Forward, two at a time: 2 + 2 + 1.
    let mut seen = Vec::new();
    let mut after = Value::Null;
    let mut pages = Vec::new();
    loop {
        let (ids, page) = endpoint_page(&app, &key, json!({"first": 2, "after": after})).await;
        seen.extend(ids);
        pages.push(flags(&page));
        if !page["pageInfo"]["hasNextPage"].as_bool().unwrap() {
            break;
        }
        after = page["pageInfo"]["endCursor"].clone();
    }
    assert_eq!(seen, all);
    assert_eq!(pages, [[true, false], [true, true], [false, true]]);

    // Backward, two at a time: the same endpoints, the flags mirrored.
    let mut seen = Vec::new();
    let mut before = Value::Null;
    let mut pages = Vec::new();
    loop {
        let (ids, page) = endpoint_page(&app, &key, json!({"last": 2, "before": before})).await;
        seen.splice(0..0, ids);
        pages.push(flags(&page));
        if !page["pageInfo"]["hasPreviousPage"].as_bool().unwrap() {
            break;
        }
        before = page["pageInfo"]["startCursor"].clone();
    }
    assert_eq!(seen, all);
    assert_eq!(pages, [[false, true], [true, true], [true, false]]);

    // Between two cursors.
    let (_, first) = endpoint_page(&app, &key, json!({"first": 1})).await;
    let (_, last) = endpoint_page(&app, &key, json!({"last": 1})).await;
    let between = json!({"first": 10, "after": first["pageInfo"]["endCursor"],
                         "before": last["pageInfo"]["startCursor"]});
    let (ids, page) = endpoint_page(&app, &key, between).await;
    assert_eq!(ids, all[1..4]);
    assert_eq!(flags(&page), [false, true]);
}

async fn webhook_cursors_and_page_sizes_are_refused_with_their_codes(backend: Backend) {
    let app = gateway(backend).await;
    let key = with_endpoints(&app, 2).await;
    let code = |variables: Value| {
        let (app, key) = (&app, &key);
        async move { first_error_code(&app.post(Some(key), ENDPOINTS, variables).await.1) }
    };
    assert_eq!(code(json!({"first": 101})).await, "PAGE_SIZE_OUT_OF_RANGE");
    assert_eq!(code(json!({"last": -1})).await, "PAGE_SIZE_OUT_OF_RANGE");
    assert_eq!(
        code(json!({"first": 1, "last": 1})).await,
        "PAGE_SIZE_OUT_OF_RANGE"
    );
    assert_eq!(
        code(json!({"after": "not-a-cursor"})).await,
        "INVALID_CURSOR"
    );

    let (_, page) = endpoint_page(&app, &key, json!({"first": 1})).await;
    let cursor = page["pageInfo"]["endCursor"].as_str().unwrap().to_string();
    let mut tampered = cursor.clone().into_bytes();
    tampered[5] = if tampered[5] == b'A' { b'B' } else { b'A' };
    let tampered = String::from_utf8(tampered).unwrap();
    assert_eq!(code(json!({"after": tampered})).await, "INVALID_CURSOR");

    // A cursor of another listing: a payment's, or an endpoint's given to its deliveries.
    created_id(
        &app,
        &key,
        "p1",
        json!({"amount": 100, "currency": "USD", "source": "tok_visa"}),
    )
    .await;
    let payments = app
        .query(
            &key,
            "{ payments(first: 1) { edges { cursor } } }",
            json!({}),
        )
        .await;
    let payment_cursor = payments["payments"]["edges"][0]["cursor"].clone();
    assert_eq!(
        code(json!({"after": payment_cursor})).await,
        "CURSOR_MISMATCH"
    );
    let endpoint = page["edges"][0]["node"]["id"].clone();
    let (_, answer) = app
        .post(
            Some(&key),
            "query($id: ID!, $after: String) { node(id: $id) { ... on WebhookEndpoint {
               deliveries(after: $after) { edges { cursor } } } } }",
            json!({"id": endpoint, "after": cursor}),
        )
        .await;
    assert_eq!(first_error_code(&answer), "CURSOR_MISMATCH");
}

/// The flag for the direction opposite to paging costs one `LIMIT 1` probe, and only when it
/// is selected and the page starts from a cursor; the other flag comes with the page.
async fn the_probe_for_the_other_direction_runs_only_when_its_flag_is_asked(backend: Backend) {
    let app = TestApp::spawn_with(backend, |c| {
        c.live_key_ttl = std::time::Duration::from_secs(3600)
    })
    .await;
    let (_, key) = app.account("Acme").await;
    for i in 0..5 {
        let input = json!({"amount": 100 + i, "currency": "USD", "source": "tok_visa"});
        created_id(&app, &key, &format!("p{i}"), input).await;
    }
    let statements = |document: String| {
        let (app, key) = (&app, &key);
        async move {
            app.query(key, &document, json!({})).await;
            app.statements_settled().await;
            let before = app.server_db.statements_run();
            let data = app.query(key, &document, json!({})).await;
            (app.server_db.statements_run() - before, data)
        }
    };
    let first = app
        .query(
            &key,
            "{ payments(first: 2) { pageInfo { startCursor endCursor } } }",
            json!({}),
        )
        .await;
    let (start, end) = (
        first["payments"]["pageInfo"]["startCursor"].clone(),
        first["payments"]["pageInfo"]["endCursor"].clone(),
    );
    let page = |arguments: String, flags: &str| {
        format!("{{ payments({arguments}) {{ nodes {{ id }} pageInfo {{ {flags} }} }} }}")
    };

    let forward = format!("first: 2, after: {end}");
    let (plain, _) = statements(page(forward.clone(), "endCursor")).await;
    let (next, data) = statements(page(forward.clone(), "hasNextPage")).await;
    assert_eq!(next, plain, "hasNextPage comes with a forward page");
    assert_eq!(data["payments"]["pageInfo"]["hasNextPage"], true);
    let (previous, data) = statements(page(forward, "hasPreviousPage")).await;
    assert_eq!(previous, plain + 1, "hasPreviousPage is one probe");
    assert_eq!(data["payments"]["pageInfo"]["hasPreviousPage"], true);
    let (at_start, data) = statements(page("first: 2".into(), "hasPreviousPage")).await;
    assert_eq!(
        at_start, plain,
        "no probe for a page that starts at the beginning"
    );
    assert_eq!(data["payments"]["pageInfo"]["hasPreviousPage"], false);

    let backward = format!("last: 1, before: {start}");
    let (plain, _) = statements(page(backward.clone(), "startCursor")).await;
    let (previous, data) = statements(page(backward.clone(), "hasPreviousPage")).await;
    assert_eq!(
        previous, plain,
        "hasPreviousPage comes with a backward page"
    );
    assert_eq!(data["payments"]["pageInfo"]["hasPreviousPage"], false);
    let through_a_fragment = format!(
        "{{ payments({backward}) {{ nodes {{ id }} pageInfo {{ ...Flags }} }} }} \
         fragment Flags on PageInfo {{ hasNextPage }}"
    );
    let (next, data) = statements(through_a_fragment).await;
    assert_eq!(
        next,
        plain + 1,
        "hasNextPage of a backward page is one probe"
    );
    assert_eq!(data["payments"]["pageInfo"]["hasNextPage"], true);
}

on_both_backends_fn!(
    webhook_endpoints_walk_both_ways_with_exact_page_info,
    webhook_cursors_and_page_sizes_are_refused_with_their_codes,
    the_probe_for_the_other_direction_runs_only_when_its_flag_is_asked,
);
