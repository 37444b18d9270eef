use graphpay::domain::time::Timestamp;
use serde_json::json;

use crate::helpers::{error_extension, first_error_code, on_both_backends};

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
