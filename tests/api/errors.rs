use serde_json::json;

use crate::helpers::{first_error_code, on_both_backends};

on_both_backends! {
    async fn syntax_errors_and_bad_bodies_are_parse_failures(app: TestApp) {
        let (_, key) = app.account("Alice").await;
        assert_eq!(app.error_code(&key, "{ viewer { id ", json!({})).await, "GRAPHQL_PARSE_FAILED");
        let response = app
            .http
            .post(format!("{}/graphql", app.address))
            .bearer_auth(&key)
            .body("this is not json")
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 400);
        let body: serde_json::Value = response.json().await.unwrap();
        assert_eq!(first_error_code(&body), "GRAPHQL_PARSE_FAILED");
    }

    async fn unknown_fields_are_validation_failures(app: TestApp) {
        let (_, key) = app.account("Alice").await;
        assert_eq!(app.error_code(&key, "{ viewer { nope } }", json!({})).await, "GRAPHQL_VALIDATION_FAILED");
        assert_eq!(app.error_code(&key, "{ payment(id: 5.5) { id } }", json!({})).await, "GRAPHQL_VALIDATION_FAILED");
    }

    async fn queries_that_nest_too_deep_are_refused(app: TestApp) {
        let (_, key) = app.account("Alice").await;
        let mut query = String::from("{ viewer { id } ");
        let mut inner = String::from("id");
        for _ in 0..10 {
            inner = format!("payment {{ refunds {{ {inner} }} }}");
        }
        query.push_str(&format!("r: node(id: \"re_01ARZ3NDEKTSV4RRFFQ69G5FAV\") {{ ... on Refund {{ {inner} }} }} }}"));
        assert_eq!(app.error_code(&key, &query, json!({})).await, "QUERY_TOO_COMPLEX");
    }

    async fn the_graphql_response_media_type_is_honoured(app: TestApp) {
        let (_, key) = app.account("Alice").await;
        let response = app
            .http
            .post(format!("{}/graphql", app.address))
            .bearer_auth(&key)
            .header("accept", "application/graphql-response+json")
            .json(&json!({"query": "{ viewer { id } }"}))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        assert_eq!(response.headers()["content-type"], "application/graphql-response+json");
    }
}
