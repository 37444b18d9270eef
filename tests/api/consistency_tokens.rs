//! Consistency tokens without replicas: on PostgreSQL every mutation's answer carries one (in
//! `extensions.consistency.token` and the `graphpay-consistency-token` header, the same); on
//! SQLite none. A read that sends a token, a malformed one or an oversized header is answered
//! as any other: with no replica configured the primary answers every read.

use serde_json::{Value, json};

use futures_util::SinkExt;
use tokio_tungstenite::tungstenite::Message;

use crate::helpers::{Backend, CREATE, TestApp, connect, input, next_message, on_both_backends};

const HEADER: &str = "graphpay-consistency-token";
const READ: &str = "query P($id: ID!) { payment(id: $id) { id status } }";

async fn post(
    app: &TestApp,
    key: &str,
    token: Option<&str>,
    body: Value,
) -> (u16, reqwest::header::HeaderMap, Value) {
    let mut request = app
        .http
        .post(format!("{}/graphql", app.address))
        .bearer_auth(key)
        .json(&body);
    if let Some(token) = token {
        request = request.header(HEADER, token);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    (status, headers, response.json().await.unwrap())
}

on_both_backends! {
    async fn a_mutation_answers_with_a_token_and_reads_accept_any(app: TestApp) {
        let (_, key) = app.account("Acme").await;
        let create = json!({"query": CREATE, "variables": {"input": input(1999, "tok_visa"), "key": "ct-1"}});
        let (status, headers, created) = post(&app, &key, None, create).await;
        assert_eq!(status, 200, "{created}");
        let id = created["data"]["createPayment"]["payment"]["id"].as_str().unwrap().to_string();
        let header = headers.get(HEADER).map(|v| v.to_str().unwrap().to_string());
        let token = created["extensions"]["consistency"]["token"].as_str().map(str::to_string);
        match app.backend() {
            Backend::Postgres => {
                let token = token.expect("a token in the extensions");
                assert_eq!(header.as_deref(), Some(token.as_str()), "the header is the same token");
                assert!(token.starts_with("ct1_") && token.len() == 20, "{token}");
                // Another write moves the position on; tokens only grow.
                let again = json!({"query": CREATE, "variables": {"input": input(500, "tok_visa"), "key": "ct-2"}});
                let (_, _, second) = post(&app, &key, None, again).await;
                let later = second["extensions"]["consistency"]["token"].as_str().unwrap();
                assert!(later >= token.as_str(), "{token} then {later}");
            }
            Backend::Sqlite => {
                assert_eq!(token, None, "{created}");
                assert_eq!(header, None);
            }
        }
        // A read carries no token of its own.
        let read = json!({"query": READ, "variables": {"id": id}});
        let (_, headers, plain) = post(&app, &key, None, read.clone()).await;
        assert!(headers.get(HEADER).is_none());
        assert_eq!(plain["extensions"]["consistency"], Value::Null, "{plain}");
        assert_eq!(plain["data"]["payment"]["id"], id.as_str(), "{plain}");
        let long = "x".repeat(8_000);
        for sent in ["ct1_ffffffffffffffff", "ct1_0000000000000000", "not a token", long.as_str()] {
            let (status, _, answer) = post(&app, &key, Some(sent), read.clone()).await;
            assert_eq!(status, 200, "{answer}");
            assert_eq!(answer["data"], plain["data"], "token {:.30}", sent);
            assert!(answer.get("errors").is_none(), "{answer}");
        }
        // A batch with a mutation carries the token of its writes.
        let batch = json!([
            {"query": READ, "variables": {"id": id}},
            {"query": CREATE, "variables": {"input": input(700, "tok_visa"), "key": "ct-3"}},
        ]);
        let (status, headers, answers) = post(&app, &key, None, batch).await;
        assert_eq!(status, 200, "{answers}");
        let in_body = answers[1]["extensions"]["consistency"]["token"].as_str();
        assert_eq!(headers.get(HEADER).map(|v| v.to_str().unwrap()), in_body);
        assert_eq!(in_body.is_some(), app.backend() == Backend::Postgres, "{answers}");
    }
}

on_both_backends! {
    async fn a_mutation_over_the_websocket_answers_with_a_token(app: TestApp) {
        let (_, key) = app.account("Acme").await;
        let mut socket = connect(&app, &key).await.unwrap();
        let variables = json!({"input": input(1999, "tok_visa"), "key": "ws-1"});
        for (id, query) in [("m", CREATE), ("q", "{ viewer { id } }")] {
            let message = json!({"id": id, "type": "subscribe", "payload": {"query": query, "variables": variables}});
            socket.send(Message::text(message.to_string())).await.unwrap();
            let next = next_message(&mut socket).await.expect("an answer");
            assert_eq!(next["type"], "next", "{next}");
            let token = &next["payload"]["extensions"]["consistency"]["token"];
            let expected = id == "m" && app.backend() == Backend::Postgres;
            assert_eq!(token.as_str().is_some_and(|t| t.starts_with("ct1_")), expected, "{next}");
            assert_eq!(next_message(&mut socket).await.unwrap()["type"], "complete");
        }
    }
}
