use std::time::Duration;

use graphpay::domain::time::Timestamp;
use serde_json::json;

use crate::helpers::{
    Backend, TestApp, error_extension, first_error_code, on_both_backends, on_both_backends_fn,
};

const NODE: &str = "query N($id: ID!) { node(id: $id) { id ... on Payment { amount status } ... on Account { name } } }";

on_both_backends! {
    async fn payments_are_visible_to_their_account_only(app: TestApp) {
        let (alice, alice_key) = app.account("Alice").await;
        let (_bob, bob_key) = app.account("Bob").await;
        let payment = app.insert_payment(&alice, 1234, Timestamp::now()).await;
        let id = json!({"id": payment.id});

        let data = app.query(&alice_key, NODE, id.clone()).await;
        assert_eq!(data["node"]["id"], payment.id.as_str());
        assert_eq!(data["node"]["amount"], 1234);
        assert_eq!(data["node"]["status"], "SUCCEEDED");
        let data = app.query(&alice_key, "query P($id: ID!) { payment(id: $id) { id events { fromStatus toStatus } } }", id.clone()).await;
        assert_eq!(data["payment"]["id"], payment.id.as_str());
        assert_eq!(data["payment"]["events"], json!([{"fromStatus": null, "toStatus": "SUCCEEDED"}]));

        let data = app.query(&bob_key, NODE, id.clone()).await;
        assert!(data["node"].is_null());
        let data = app.query(&bob_key, "query P($id: ID!) { payment(id: $id) { id } }", id).await;
        assert!(data["payment"].is_null());
        let data = app
            .query(&bob_key, "query N($ids: [ID!]!) { nodes(ids: $ids) { id } }", json!({"ids": [payment.id, alice]}))
            .await;
        assert_eq!(data["nodes"], json!([null, null]));
    }

    async fn nodes_resolve_in_order_with_nulls_for_unknown_ids(app: TestApp) {
        let (alice, key) = app.account("Alice").await;
        let first = app.insert_payment(&alice, 1, Timestamp::now()).await;
        let second = app.insert_payment(&alice, 2, Timestamp::now()).await;
        let ids = json!({"ids": [second.id, "pay_01ARZ3NDEKTSV4RRFFQ69G5FAV", alice, "garbage", first.id]});
        let data = app.query(&key, "query N($ids: [ID!]!) { nodes(ids: $ids) { id } }", ids).await;
        assert_eq!(
            data["nodes"],
            json!([{"id": second.id}, null, {"id": alice}, null, {"id": first.id}])
        );
    }

    async fn more_than_a_hundred_nodes_is_bad_input(app: TestApp) {
        let (_, key) = app.account("Alice").await;
        let ids: Vec<String> = (0..101).map(|_| "pay_01ARZ3NDEKTSV4RRFFQ69G5FAV".to_string()).collect();
        let (_, body) = app.post(Some(&key), "query N($ids: [ID!]!) { nodes(ids: $ids) { id } }", json!({"ids": ids})).await;
        assert_eq!(first_error_code(&body), "BAD_USER_INPUT");
        assert_eq!(error_extension(&body, "field"), "ids");
    }

    async fn ids_are_prefixed_unique_and_time_ordered(app: TestApp) {
        let (alice, key) = app.account("Alice").await;
        assert!(alice.starts_with("acct_"));
        let mut ids = Vec::new();
        for amount in 1..=20 {
            ids.push(app.insert_payment(&alice, amount, Timestamp::now()).await.id);
            tokio::time::sleep(std::time::Duration::from_millis(1)).await;
        }
        assert!(ids.iter().all(|id| id.starts_with("pay_") && id.len() == 30));
        let mut sorted = ids.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted, ids, "ids made later sort later and never repeat");
        let data = app.query(&key, "{ viewer { id createdAt } }", json!({})).await;
        let created = data["viewer"]["createdAt"].as_str().unwrap();
        assert_eq!(created.len(), "2026-11-30T04:01:48.000120Z".len(), "microsecond precision: {created}");
    }

    async fn a_malformed_payment_id_is_bad_input(app: TestApp) {
        let (_, key) = app.account("Alice").await;
        let code = app.error_code(&key, "{ payment(id: \"acct_1\") { id } }", json!({})).await;
        assert_eq!(code, "BAD_USER_INPUT");
    }
}

/// Payments with their refunds and events, as each is shown by `payment(id)`.
const SHOWN: &str =
    "id amount status refunds { id amount status } events { fromStatus toStatus reason }";

/// `nodes` reads the payments and refunds it is given by kind, each kind with one statement,
/// and their refunds and events together: the answer is each object's own, in order, with
/// nulls for ids the viewer cannot see and an id given twice answered twice, and the number
/// of statements does not grow with the number of ids.
async fn nodes_are_read_together_and_answer_as_each_alone(backend: Backend) {
    let app = TestApp::spawn_with(backend, |c| c.live_key_ttl = Duration::from_secs(3600)).await;
    let (alice, key) = app.account("Alice").await;
    let (_, bob_key) = app.account("Bob").await;
    let create = "mutation($input: CreatePaymentInput!, $key: String!) { \
        createPayment(input: $input, idempotencyKey: $key) { payment { id } } }";
    let refund = "mutation($id: ID!, $key: String!) { \
        refundPayment(input: {paymentId: $id, amount: 100}, idempotencyKey: $key) { refund { id } } }";
    let mut payments = Vec::new();
    let mut refunds = Vec::new();
    for n in 0..12 {
        let source = if n % 4 == 3 {
            "tok_chargeDeclined"
        } else {
            "tok_visa"
        };
        let input = json!({"amount": 1000 + n, "currency": "USD", "source": source});
        let data = app
            .query(
                &key,
                create,
                json!({"input": input, "key": format!("p{n}")}),
            )
            .await;
        let id = data["createPayment"]["payment"]["id"]
            .as_str()
            .unwrap()
            .to_string();
        for r in 0..(n % 3) {
            if n % 4 == 3 {
                break;
            }
            let data = app
                .query(&key, refund, json!({"id": id, "key": format!("r{n}-{r}")}))
                .await;
            refunds.push(
                data["refundPayment"]["refund"]["id"]
                    .as_str()
                    .unwrap()
                    .to_string(),
            );
        }
        payments.push(id);
    }
    let data = app
        .query(
            &bob_key,
            create,
            json!({"input": {"amount": 5, "currency": "USD", "source": "tok_visa"}, "key": "b"}),
        )
        .await;
    let bobs = data["createPayment"]["payment"]["id"]
        .as_str()
        .unwrap()
        .to_string();

    let nodes = format!(
        "query N($ids: [ID!]!) {{ nodes(ids: $ids) {{ id ... on Payment {{ {SHOWN} }} \
         ... on Refund {{ amount payment {{ id }} }} ... on Account {{ name }} }} }}"
    );
    let one = format!("query P($id: ID!) {{ payment(id: $id) {{ {SHOWN} }} }}");
    let mut statements = Vec::new();
    for count in [3, 12] {
        let mut ids: Vec<String> = payments[..count].to_vec();
        ids.insert(1, bobs.clone());
        ids.push(payments[0].clone());
        ids.push(refunds[0].clone());
        ids.push(alice.clone());
        ids.push("pay_01ARZ3NDEKTSV4RRFFQ69G5FAV".to_string());
        app.statements_settled().await;
        let before = app.server_db.statements_run();
        let data = app.query(&key, &nodes, json!({"ids": ids})).await;
        statements.push(app.server_db.statements_run() - before);
        let answered = data["nodes"].as_array().unwrap();
        assert_eq!(answered.len(), ids.len());
        for (id, node) in ids.iter().zip(answered) {
            if id == &bobs || id.starts_with("pay_01ARZ3") {
                assert!(node.is_null(), "{id}: {node}");
            } else if id.starts_with("pay_") {
                let alone = app.query(&key, &one, json!({"id": id})).await;
                assert_eq!(node, &alone["payment"], "{id}");
            } else if id.starts_with("re_") {
                assert_eq!(node["payment"]["id"], payments[1].as_str(), "{node}");
                assert_eq!(node["amount"], 100);
            } else {
                assert_eq!(node["name"], "Alice");
            }
        }
    }
    let refunded: usize = (0..12).filter(|n| n % 4 != 3).map(|n| n % 3).sum();
    assert_eq!(refunds.len(), refunded);
    assert_eq!(
        statements[0], statements[1],
        "{backend:?}: statements for 3 and for 12 payments"
    );
}

on_both_backends_fn!(nodes_are_read_together_and_answer_as_each_alone);
