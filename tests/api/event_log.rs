//! The event log: `Query.events` in feed order through the keyset paginator, refund event
//! types, event ids shared with `PaymentEvent.id` and webhooks, webhook endpoints choosing
//! event types, the retention (`CURSOR_EXPIRED`), and `Subscription.events` resumed from a
//! cursor on another instance and across a PostgreSQL restart.

use std::collections::HashSet;
use std::time::Duration;

use futures_util::SinkExt;
use graphpay::domain::status::PaymentStatus;
use graphpay::domain::time::Timestamp;
use graphpay::persistence::payments::NewPayment;
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;

use crate::feed::create_once_reachable;
use crate::helpers::{
    Answer, Backend, OwnCluster, Receiver, Socket, TestApp, connect, connect_to, create,
    created_id, first_error_code, input, next_message, on_both_backends, on_both_backends_fn,
    refund, usd_payment,
};

const EVENTS: &str =
    "query Events($first: Int, $after: String, $last: Int, $before: String, $filter: EventFilter) {
  events(first: $first, after: $after, last: $last, before: $before, filter: $filter) {
    edges { cursor node { id type payment { id status version: updatedAt } } }
    pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
  }
}";

const SUBSCRIBE: &str = "subscription Events($after: String, $filter: EventFilter) {
  events(after: $after, filter: $filter) { cursor node { id type payment { id status } } }
}";

/// One page of events: the edges and the page info.
async fn events_page(app: &TestApp, key: &str, variables: Value) -> (Vec<Value>, Value) {
    let data = app.query(key, EVENTS, variables).await;
    let events = &data["events"];
    (
        events["edges"].as_array().unwrap().clone(),
        events["pageInfo"].clone(),
    )
}

fn ids(edges: &[Value]) -> Vec<String> {
    edges
        .iter()
        .map(|e| e["node"]["id"].as_str().unwrap().to_string())
        .collect()
}

/// Every event of the account (with `filter`), walked forward in pages of 100.
async fn all_events(app: &TestApp, key: &str, filter: Value) -> Vec<Value> {
    let (mut all, mut after) = (Vec::new(), Value::Null);
    loop {
        let (edges, info) = events_page(
            app,
            key,
            json!({"first": 100, "after": after, "filter": filter}),
        )
        .await;
        all.extend(edges);
        if info["hasNextPage"] != true {
            return all;
        }
        after = info["endCursor"].clone();
    }
}

/// The account's events with `filter` once there are `n` of them (on PostgreSQL an event
/// becomes readable once every older transaction of the server has ended, which other tests'
/// transactions may briefly delay).
pub(crate) async fn until_events(app: &TestApp, key: &str, filter: Value, n: usize) -> Vec<Value> {
    for _ in 0..200 {
        let all = all_events(app, key, filter.clone()).await;
        if all.len() >= n {
            assert_eq!(all.len(), n, "more events than expected: {all:?}");
            return all;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("fewer than {n} events appeared");
}

fn stored(account_id: &str, i: i64) -> NewPayment {
    usd_payment(
        account_id,
        100 + i,
        PaymentStatus::Succeeded,
        Timestamp::now(),
    )
}

/// Starts `events` on `socket` as subscription `id`.
async fn subscribe(socket: &mut Socket, id: &str, after: Value, filter: Value) {
    let message = json!({"id": id, "type": "subscribe",
        "payload": {"query": SUBSCRIBE, "variables": {"after": after, "filter": filter}}});
    socket
        .send(Message::text(message.to_string()))
        .await
        .unwrap();
}

/// The next `n` event edges of subscription `id`.
async fn next_edges(socket: &mut Socket, id: &str, n: usize) -> Vec<Value> {
    let mut edges = Vec::new();
    while edges.len() < n {
        let message = next_message(socket)
            .await
            .unwrap_or_else(|| panic!("only {} of {n} events arrived: {edges:?}", edges.len()));
        assert_eq!(message["id"], id, "{message}");
        assert_eq!(message["type"], "next", "{message}");
        edges.push(message["payload"]["data"]["events"].clone());
    }
    edges
}

/// Nothing more arrives on `socket` for a while.
async fn nothing_more(socket: &mut Socket) {
    let more = tokio::time::timeout(Duration::from_millis(700), next_message(socket)).await;
    assert!(more.is_err(), "an event arrived twice or unasked: {more:?}");
}

on_both_backends! {
    async fn events_page_both_ways_over_thousands_with_writes_in_between(app: TestApp) {
        let (account, key) = app.account("Shop").await;
        let (other_account, _) = app.account("Other").await;
        app.insert_payments((0..2_000).map(|i| stored(&account, i)).collect()).await;
        app.insert_payments((0..300).map(|i| stored(&other_account, i)).collect()).await;

        // Forward, with a write between every two pages: what is written lands ahead.
        let (mut walked, mut after, mut writes) = (Vec::new(), Value::Null, 0);
        loop {
            let (edges, info) =
                events_page(&app, &key, json!({"first": 100, "after": after})).await;
            walked.extend(ids(&edges));
            if writes < 8 {
                create(&app, &key, &format!("w{writes}"), input(100, "tok_visa")).await;
                writes += 1;
            } else if info["hasNextPage"] != true && walked.len() >= 2_000 + 8 * 2 {
                break;
            }
            if !edges.is_empty() {
                after = info["endCursor"].clone();
            }
        }
        let everything = ids(&until_events(&app, &key, Value::Null, 2_000 + 8 * 2).await);
        assert_eq!(walked, everything, "every event once, in feed order");
        assert_eq!(walked.iter().collect::<HashSet<_>>().len(), walked.len());

        // Backward from the end, with writes in between, which land behind the walk.
        let (mut back, mut before) = (Vec::new(), Value::Null);
        loop {
            let (edges, info) =
                events_page(&app, &key, json!({"last": 100, "before": before})).await;
            let mut page = ids(&edges);
            page.append(&mut back);
            back = page;
            if writes < 12 {
                create(&app, &key, &format!("w{writes}"), input(100, "tok_visa")).await;
                writes += 1;
            }
            if info["hasPreviousPage"] != true {
                break;
            }
            before = info["startCursor"].clone();
        }
        assert_eq!(back, everything, "the same events, walked from the other end");

        // Each payment's events in the log follow its versions.
        let all = until_events(&app, &key, Value::Null, 2_000 + 12 * 2).await;
        let mut last_seen: std::collections::HashMap<String, String> = Default::default();
        for edge in &all {
            let payment = edge["node"]["payment"]["id"].as_str().unwrap().to_string();
            let at = edge["node"]["payment"]["version"].as_str().unwrap().to_string();
            if let Some(before) = last_seen.insert(payment, at.clone()) {
                assert!(before <= at, "a payment's events out of order");
            }
        }
    }

    async fn another_accounts_events_are_never_seen(app: TestApp) {
        let (_, key) = app.account("Shop").await;
        let (_, other_key) = app.account("Other").await;
        let id = created_id(&app, &key, "p", input(1_000, "tok_visa")).await;
        created_id(&app, &other_key, "p", input(7, "tok_visa")).await;
        let own = until_events(&app, &key, Value::Null, 2).await;
        let theirs = until_events(&app, &other_key, Value::Null, 2).await;
        let (own_ids, their_ids) = (ids(&own), ids(&theirs));
        assert!(own_ids.iter().all(|id| !their_ids.contains(id)));
        for event in &own_ids {
            let found = app
                .query(&other_key, "query($id: ID!) { node(id: $id) { id } }", json!({"id": event}))
                .await;
            assert_eq!(found["node"], Value::Null, "another account's event by id");
        }
        let (edges, _) = events_page(&app, &other_key, json!({"first": 50, "filter": {"paymentId": id}})).await;
        assert!(edges.is_empty(), "another account's payment's events");
        // A cursor from one account's log is not a way into another's.
        let cursor = own.last().unwrap()["cursor"].clone();
        let (edges, _) = events_page(&app, &other_key, json!({"first": 50, "after": cursor})).await;
        assert!(edges.iter().all(|e| their_ids.contains(&e["node"]["id"].as_str().unwrap().to_string())));
    }

    async fn a_long_list_of_types_is_answered_like_a_short_one(app: TestApp) {
        let (_, key) = app.account("Shop").await;
        created_id(&app, &key, "p", input(1_000, "tok_visa")).await;
        until_events(&app, &key, Value::Null, 2).await;
        // As many entries as the request body allows: they are checked one by one against
        // the known types and counted once each.
        let types: Vec<&str> = ["payment.succeeded", "payment.processing"].repeat(5_000);
        let (edges, _) = events_page(&app, &key, json!({"first": 50, "filter": {"types": types}})).await;
        assert_eq!(edges.len(), 2);
        let mut unknown = types.clone();
        unknown.push("payment.exploded");
        let (_, body) = app.post(Some(&key), EVENTS, json!({"filter": {"types": unknown}})).await;
        assert_eq!(first_error_code(&body), "BAD_USER_INPUT");
        assert_eq!(body["errors"][0]["extensions"]["field"], "filter.types[10000]");
        // Past the body limit the request is refused before anything is parsed.
        let too_many: Vec<&str> = ["payment.succeeded"].repeat(20_000);
        let response = app
            .http
            .post(format!("{}/graphql", app.address))
            .bearer_auth(&key)
            .json(&json!({"query": EVENTS, "variables": {"filter": {"types": too_many}}}))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 413);
    }

    async fn refunds_have_events_and_every_event_id_is_shared(app: TestApp) {
        let (_, key) = app.account("Shop").await;
        let id = created_id(&app, &key, "p", input(1_000, "tok_visa")).await;
        let (_, body) = refund(&app, &key, "r1", &id, Some(400)).await;
        assert!(body.get("errors").is_none(), "{body}");
        let refund_id = body["data"]["refundPayment"]["refund"]["id"].as_str().unwrap().to_string();

        until_events(&app, &key, Value::Null, 6).await;
        let log = app
            .query(
                &key,
                "{ events(first: 50) { nodes { id type payment { status amountRefunded } refund { id status amount } } } }",
                json!({}),
            )
            .await;
        let nodes = log["events"]["nodes"].as_array().unwrap().clone();
        let types: Vec<&str> = nodes.iter().map(|n| n["type"].as_str().unwrap()).collect();
        assert_eq!(
            types,
            [
                "payment.processing",
                "payment.succeeded",
                "payment.refunding",
                "refund.created",
                "payment.partially_refunded",
                "refund.succeeded",
            ]
        );
        assert_eq!(nodes[3]["refund"], json!({"id": refund_id, "status": "PENDING", "amount": 400}));
        assert_eq!(nodes[5]["refund"]["status"], "SUCCEEDED");
        assert_eq!(nodes[5]["payment"], json!({"status": "PARTIALLY_REFUNDED", "amountRefunded": 400}));
        assert_eq!(nodes[0]["refund"], Value::Null);

        // A payment's own events are its status changes, with the log's ids.
        let own = app
            .query(&key, "query($id: ID!) { payment(id: $id) { events { id toStatus } } }", json!({"id": id}))
            .await;
        let own_ids: Vec<&Value> = own["payment"]["events"].as_array().unwrap().iter().map(|e| &e["id"]).collect();
        let status_ids: Vec<&Value> = nodes
            .iter()
            .filter(|n| n["type"].as_str().unwrap().starts_with("payment."))
            .map(|n| &n["id"])
            .collect();
        assert_eq!(own_ids, status_ids);
        // `node` finds an event by its id.
        let found = app
            .query(&key, "query($id: ID!) { node(id: $id) { ... on Event { id type } } }", json!({"id": nodes[3]["id"]}))
            .await;
        assert_eq!(found["node"], json!({"id": nodes[3]["id"], "type": "refund.created"}));

        // Filters: by type, by payment; unknown types are refused with their field.
        let refunds = until_events(&app, &key, json!({"types": ["refund.succeeded", "refund.created"]}), 2).await;
        let other = created_id(&app, &key, "q", input(5, "tok_visa")).await;
        until_events(&app, &key, json!({"paymentId": other}), 2).await;
        let (_, body) = app.post(Some(&key), EVENTS, json!({"filter": {"types": ["payment.succeeded", "payment.exploded"]}})).await;
        assert_eq!(first_error_code(&body), "BAD_USER_INPUT");
        assert_eq!(body["errors"][0]["extensions"]["field"], "filter.types[1]");
        // A cursor of one filter is refused under another.
        let cursor = refunds[0]["cursor"].clone();
        let code = app.error_code(&key, EVENTS, json!({"after": cursor})).await;
        assert_eq!(code, "CURSOR_MISMATCH");
    }
}

async fn an_endpoint_receives_the_event_types_it_chose(backend: Backend) {
    let app = TestApp::spawn_with(backend, crate::merchant_webhooks::fast).await;
    let (_, key) = app.account("Shop").await;
    let receiver = Receiver::start(|_, _| Answer::Status(200)).await;
    let created = app
        .query(
            &key,
            "mutation($input: CreateWebhookEndpointInput!) { createWebhookEndpoint(input: $input) { endpoint { id eventTypes statuses } } }",
            json!({"input": {"url": receiver.url, "eventTypes": ["refund.created", "payment.updated", "refund.created"]}}),
        )
        .await;
    assert_eq!(
        created["createWebhookEndpoint"]["endpoint"]["eventTypes"],
        json!(["refund.created", "payment.updated"])
    );
    let (_, body) = app
        .post(
            Some(&key),
            "mutation($input: CreateWebhookEndpointInput!) { createWebhookEndpoint(input: $input) { endpoint { id } } }",
            json!({"input": {"url": receiver.url, "eventTypes": ["payment.nope"]}}),
        )
        .await;
    assert_eq!(
        body["errors"][0]["extensions"]["field"],
        "input.eventTypes[0]"
    );

    let made = app
        .query(
            &key,
            crate::helpers::CREATE,
            json!({"input": {"amount": 800, "currency": "USD", "source": "tok_visa", "reference": "order 8812",
                "metadata": [{"key": "order", "value": "8812"}]}, "key": "p"}),
        )
        .await;
    let id = made["createPayment"]["payment"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    refund(&app, &key, "r", &id, Some(300)).await;
    app.query(
        &key,
        "mutation($id: ID!) { updatePayment(input: {paymentId: $id, description: \"gift\"}) { payment { id } } }",
        json!({"id": id}),
    )
    .await;
    let received = receiver.until(|r| r.len() >= 2).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let received = if receiver.received().len() > received.len() {
        receiver.received()
    } else {
        received
    };
    let types: Vec<String> = received
        .iter()
        .map(|r| r.json()["type"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        types,
        ["refund.created", "payment.updated"],
        "only the chosen types"
    );
    let refund_body = received[0].json();
    assert_eq!(refund_body["data"]["refund"]["status"], "PENDING");
    assert_eq!(refund_body["data"]["payment"]["reference"], "order 8812");
    assert_eq!(
        refund_body["data"]["payment"]["metadata"],
        json!([{"key": "order", "value": "8812"}])
    );
    // The webhook-id is the event's id in the log.
    let log = until_events(
        &app,
        &key,
        json!({"types": ["refund.created", "payment.updated"]}),
        2,
    )
    .await;
    let log_ids = ids(&log);
    let webhook_ids: Vec<String> = received.iter().map(|r| r.id.clone()).collect();
    assert_eq!(webhook_ids, log_ids);
}

async fn a_cursor_past_the_retention_is_expired(backend: Backend) {
    let app = TestApp::spawn_with(backend, |c| c.feed.retention = Duration::from_secs(1)).await;
    let (_, key) = app.account("Shop").await;
    create(&app, &key, "p", input(100, "tok_visa")).await;
    let (edges, _) = events_page(&app, &key, json!({"first": 1})).await;
    let cursor = edges[0]["cursor"].clone();
    let (fresh, _) = events_page(&app, &key, json!({"first": 1, "after": cursor})).await;
    assert_eq!(fresh.len(), 1, "a cursor within the retention works");
    tokio::time::sleep(Duration::from_millis(1_200)).await;
    assert_eq!(
        app.error_code(&key, EVENTS, json!({"first": 1, "after": cursor}))
            .await,
        "CURSOR_EXPIRED"
    );
    let (gone, _) = events_page(&app, &key, json!({"first": 10})).await;
    assert!(
        gone.is_empty(),
        "events older than the retention are not listed"
    );
    let mut socket = connect(&app, &key).await.unwrap();
    subscribe(&mut socket, "old", cursor, Value::Null).await;
    let answer = next_message(&mut socket).await.unwrap();
    assert_eq!(
        answer["payload"]["errors"][0]["extensions"]["code"], "CURSOR_EXPIRED",
        "{answer}"
    );
    assert_eq!(answer["payload"]["data"], Value::Null, "{answer}");
}

/// A payment that makes exactly one event (`payment.pending`).
fn pending(amount: i64) -> Value {
    json!({"amount": amount, "currency": "USD", "source": "tok_visa", "confirm": false})
}

/// Subscribes to `events` from now on (as subscription `id`), and makes sure the server has
/// taken the subscription in: pending payments are made until one is heard, and the events
/// that come are drained. Returns the cursor of the last one heard.
async fn subscribe_from_now(app: &TestApp, key: &str, socket: &mut Socket, id: &str) -> Value {
    subscribe(socket, id, Value::Null, Value::Null).await;
    for attempt in 0..50 {
        create(app, key, &format!("probe-{id}-{attempt}"), pending(1)).await;
        let mut last = None;
        while let Ok(Some(message)) =
            tokio::time::timeout(Duration::from_millis(300), next_message(socket)).await
        {
            assert_eq!(message["type"], "next", "{message}");
            last = Some(message["payload"]["data"]["events"]["cursor"].clone());
        }
        if let Some(cursor) = last {
            return cursor;
        }
    }
    panic!("the subscription never started");
}

/// A subscriber that sees some events, goes away while another instance makes changes, and
/// comes back with the last cursor it saw gets exactly the missed events, then live ones.
async fn a_resumed_subscription_gets_what_it_missed_then_live_events(backend: Backend) {
    let one = TestApp::spawn(backend).await;
    let two = one.another_instance().await;
    let (_, key) = one.account("Shop").await;
    let (_, other) = one.account("Other").await;
    let mut socket = connect(&one, &key).await.unwrap();
    let heard = subscribe_from_now(&one, &key, &mut socket, "1").await;
    // Live: one event per change, in order, nothing between.
    let first = created_id(&one, &key, "first", pending(100)).await;
    let seen = next_edges(&mut socket, "1", 1).await;
    assert_eq!(seen[0]["node"]["payment"]["id"], first.as_str());
    let (after_heard, _) = events_page(&one, &key, json!({"first": 10, "after": heard})).await;
    assert_eq!(ids(&after_heard), ids(&seen), "no event between the two");
    let last_cursor = seen[0]["cursor"].clone();
    drop(socket);
    // The log so far: the probes that started the subscription (one, or more on a busy
    // machine) and the first payment's event, all readable since that event was heard.
    let before = all_events(&one, &key, Value::Null).await.len();
    assert_eq!(
        all_events(&one, &key, Value::Null).await.last().unwrap()["node"]["id"],
        seen[0]["node"]["id"]
    );

    // Away: changes through the other instance, and another account's.
    let mut missed = Vec::new();
    for i in 0..4 {
        missed.push(created_id(&two, &key, &format!("away-{i}"), input(200 + i, "tok_visa")).await);
        create(&two, &other, &format!("theirs-{i}"), input(5, "tok_visa")).await;
    }
    // Each away payment made two events (PROCESSING, SUCCEEDED).
    let everything = until_events(&two, &key, Value::Null, before + 8).await;
    let expected = ids(&everything[before..]);

    let mut socket = connect_to(&two.address, &key).await.unwrap();
    subscribe(&mut socket, "2", last_cursor, Value::Null).await;
    let replayed = next_edges(&mut socket, "2", 8).await;
    assert_eq!(
        ids(&replayed),
        expected,
        "exactly the missed events, in order"
    );
    let live = created_id(&one, &key, "live", pending(300)).await;
    let after = next_edges(&mut socket, "2", 1).await;
    assert_eq!(
        after[0]["node"]["payment"]["id"],
        live.as_str(),
        "{after:?}"
    );
    nothing_more(&mut socket).await;
}

on_both_backends_fn!(
    an_endpoint_receives_the_event_types_it_chose,
    a_cursor_past_the_retention_is_expired,
    a_resumed_subscription_gets_what_it_missed_then_live_events,
);

/// The same across a restart of PostgreSQL: the subscription stays open while the server is
/// down, and once it is back sends what was made before and after, once each.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[cfg_attr(
    not(pg_tests),
    ignore = "TEST_DATABASE_URL is not set: PostgreSQL test NOT run"
)]
async fn a_subscription_resumes_across_a_restart_of_postgresql_postgres() {
    let cluster = OwnCluster::start().await;
    let app = TestApp::spawn_on(cluster.url()).await;
    let key = graphpay::persistence::accounts::create(&app.server_db, "Shop")
        .await
        .unwrap()
        .api_key;
    let mut socket = connect(&app, &key).await.unwrap();
    let last_cursor = subscribe_from_now(&app, &key, &mut socket, "1").await;

    // One socket stays open through the restart; another comes back with its cursor after.
    cluster.restart().await;
    let made = create_once_reachable(&app, &key, "after-restart", pending(100)).await;
    let through = next_edges(&mut socket, "1", 1).await;
    assert!(
        through
            .iter()
            .all(|e| e["node"]["payment"]["id"] == made.as_str()),
        "{through:?}"
    );
    drop(socket);
    let mut again = connect(&app, &key).await.unwrap();
    subscribe(&mut again, "2", last_cursor, Value::Null).await;
    assert_eq!(ids(&next_edges(&mut again, "2", 1).await), ids(&through));
    nothing_more(&mut again).await;
}
