//! `/graphql` as GraphQL over HTTP describes it: `GET` runs reads from the query string, a
//! browser gets the playground, mutations over `GET` are refused with 405, and malformed
//! requests get 400 whatever the media type.

use serde_json::{Value, json};

use crate::helpers::{TestApp, cost, create, first_error_code, input, on_both_backends};

const BROWSER: &str = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,\
                       image/webp,*/*;q=0.8";
const GRAPHQL_RESPONSE: &str = "application/graphql-response+json";

/// Sends `GET /graphql` with `params` in the query string; returns the status, the headers
/// and the body as JSON (null when it is not JSON).
async fn get(
    app: &TestApp,
    key: Option<&str>,
    accept: Option<&str>,
    params: &[(&str, &str)],
) -> (u16, reqwest::header::HeaderMap, Value) {
    let url = reqwest::Url::parse_with_params(&format!("{}/graphql", app.address), params)
        .expect("a URL");
    let mut request = app.http.get(url);
    if let Some(key) = key {
        request = request.bearer_auth(key);
    }
    if let Some(accept) = accept {
        request = request.header("accept", accept);
    }
    let response = request.send().await.expect("request sent");
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    let body = response.json().await.unwrap_or(Value::Null);
    (status, headers, body)
}

/// Posts `body` as is, with `content_type` and `accept`.
async fn post_raw(
    app: &TestApp,
    key: &str,
    content_type: Option<&str>,
    accept: Option<&str>,
    body: &str,
) -> (u16, Value) {
    let mut request = app
        .http
        .post(format!("{}/graphql", app.address))
        .bearer_auth(key)
        .body(body.to_string());
    if let Some(content_type) = content_type {
        request = request.header("content-type", content_type);
    }
    if let Some(accept) = accept {
        request = request.header("accept", accept);
    }
    let response = request.send().await.expect("request sent");
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

async fn payment_count(app: &TestApp, key: &str) -> i64 {
    app.query(key, "{ payments { totalCount } }", json!({}))
        .await["payments"]["totalCount"]
        .as_i64()
        .unwrap()
}

on_both_backends! {
    async fn get_runs_a_query_with_its_variables_and_operation_name(app: TestApp) {
        let (_, key) = app.account("Alice").await;
        let made = create(&app, &key, "k1", input(4200, "tok_visa")).await;
        let id = made["payment"]["id"].as_str().unwrap();
        let query = "query Other { viewer { id } } query One($id: ID!) { payment(id: $id) { id amount } }";
        let variables = json!({"id": id}).to_string();
        let params = [("query", query), ("variables", variables.as_str()), ("operationName", "One")];
        let (status, headers, body) = get(&app, Some(&key), None, &params).await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(headers["content-type"], "application/json");
        assert_eq!(body["data"], json!({"payment": {"id": id, "amount": 4200}}));
        assert!(body.get("errors").is_none(), "{body}");
        // The same budget as POST: the cost is taken and reported.
        assert_eq!(cost(&body)["requestedQueryCost"], 1);

        let (status, headers, body) = get(&app, Some(&key), Some(GRAPHQL_RESPONSE), &params).await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(headers["content-type"], GRAPHQL_RESPONSE);
        assert_eq!(body["data"]["payment"]["amount"], 4200);
    }

    async fn get_needs_a_credential_like_post(app: TestApp) {
        let (status, _, body) = get(&app, None, None, &[("query", "{ viewer { id } }")]).await;
        assert_eq!(status, 401);
        assert_eq!(first_error_code(&body), "UNAUTHENTICATED");
    }

    async fn a_mutation_sent_with_get_is_refused_with_405_and_runs_nothing(app: TestApp) {
        let (_, key) = app.account("Alice").await;
        let mutation = "mutation Create($input: CreatePaymentInput!) { createPayment(input: $input, idempotencyKey: \"get\") { payment { id } } }";
        let variables = json!({"input": input(100, "tok_visa")}).to_string();
        for accept in [None, Some(GRAPHQL_RESPONSE)] {
            let (status, headers, body) = get(&app, Some(&key), accept, &[("query", mutation), ("variables", &variables)]).await;
            assert_eq!(status, 405, "{body}");
            assert_eq!(headers["allow"], "POST");
            assert_eq!(first_error_code(&body), "GRAPHQL_VALIDATION_FAILED");
            assert!(body.get("data").is_none(), "{body}");
        }
        // A mutation chosen by name from a document that also holds a query.
        let both = "query Read { viewer { id } } mutation Cancel { cancelPayment(paymentId: \"pay_x\") { replayed } }";
        let (status, _, _) = get(&app, Some(&key), None, &[("query", both), ("operationName", "Cancel")]).await;
        assert_eq!(status, 405);
        let (status, _, body) = get(&app, Some(&key), None, &[("query", both), ("operationName", "Read")]).await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(payment_count(&app, &key).await, 0);
        // The same mutation over POST runs.
        app.query(&key, mutation, json!({"input": input(100, "tok_visa")})).await;
        assert_eq!(payment_count(&app, &key).await, 1);
    }

    async fn a_subscription_sent_with_get_is_refused_as_over_post(app: TestApp) {
        let (_, key) = app.account("Alice").await;
        let subscription = "subscription { paymentUpdated { id } }";
        let (status, _, body) = get(&app, Some(&key), None, &[("query", subscription)]).await;
        assert_eq!(status, 200);
        assert_eq!(first_error_code(&body), "GRAPHQL_VALIDATION_FAILED");
        let (status, _, body) = get(&app, Some(&key), Some(GRAPHQL_RESPONSE), &[("query", subscription)]).await;
        assert_eq!(status, 400);
        assert_eq!(first_error_code(&body), "GRAPHQL_VALIDATION_FAILED");
        let (_, over_post) = app.post(Some(&key), subscription, json!({})).await;
        assert_eq!(first_error_code(&over_post), "GRAPHQL_VALIDATION_FAILED");
    }

    async fn a_browser_gets_the_playground_and_other_clients_get_graphql(app: TestApp) {
        let page = app
            .http
            .get(format!("{}/graphql", app.address))
            .header("accept", BROWSER)
            .send()
            .await
            .unwrap();
        assert_eq!(page.status(), 200);
        assert!(page.headers()["content-type"].to_str().unwrap().starts_with("text/html"));
        assert!(page.text().await.unwrap().contains("graphiql"));

        // A client that prefers a GraphQL media type gets GraphQL, even if it lists HTML too.
        let (_, key) = app.account("Alice").await;
        let (status, headers, body) = get(&app, Some(&key), Some("application/json, text/html"), &[("query", "{ viewer { id } }")]).await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(headers["content-type"], "application/json");
        // Without parameters, a GraphQL client is told what is missing.
        let (status, _, body) = get(&app, Some(&key), Some("*/*"), &[]).await;
        assert_eq!(status, 400);
        assert_eq!(first_error_code(&body), "GRAPHQL_PARSE_FAILED");
    }

    async fn malformed_requests_are_400_in_either_media_type(app: TestApp) {
        let (_, key) = app.account("Alice").await;
        let json = Some("application/json");
        for accept in [None, Some("application/json"), Some(GRAPHQL_RESPONSE)] {
            for body in [
                "",
                "[]",
                " [ ] ",
                "{ \"not a JSON",
                r#"{"qeury": "{ viewer { id } }"}"#,
                r#"{"query": 0}"#,
                r#"{"query": ["array"]}"#,
                r#"{"query": "{ viewer { id } }", "operationName": false}"#,
                r#"{"query": "{ viewer { id } }", "variables": "string"}"#,
                r#"{"query": "{ viewer { id } }", "extensions": ["array"]}"#,
                r#"{"query": "{ viewer { id } }", "documentId": "abc"}"#,
            ] {
                let (status, answer) = post_raw(&app, &key, json, accept, body).await;
                assert_eq!(status, 400, "{body} {accept:?}: {answer}");
                assert_eq!(first_error_code(&answer), "GRAPHQL_PARSE_FAILED", "{body}");
            }
            for params in [
                vec![],
                vec![("query", "{ viewer { id } }"), ("variables", "{not json")],
                vec![("query", "{ viewer { id } }"), ("variables", "[1]")],
                vec![("query", "{ viewer { id } }"), ("query", "{ viewer { name } }")],
            ] {
                let (status, _, answer) = get(&app, Some(&key), accept, &params).await;
                assert_eq!(status, 400, "{params:?} {accept:?}: {answer}");
                assert_eq!(first_error_code(&answer), "GRAPHQL_PARSE_FAILED");
            }
        }
        // Nulls are no values.
        let nulls = r#"{"query": "{ viewer { id } }", "variables": null, "operationName": null, "extensions": null}"#;
        let (status, answer) = post_raw(&app, &key, json, None, nulls).await;
        assert_eq!(status, 200, "{answer}");
        assert!(answer.get("errors").is_none(), "{answer}");
    }

    async fn documents_that_do_not_parse_or_validate_are_200_in_json_and_400_otherwise(app: TestApp) {
        let (_, key) = app.account("Alice").await;
        for (query, code) in [
            ("{", "GRAPHQL_PARSE_FAILED"),
            ("{ viewer { nope } }", "GRAPHQL_VALIDATION_FAILED"),
        ] {
            let body = json!({"query": query}).to_string();
            let (status, answer) = post_raw(&app, &key, Some("application/json"), Some("application/json"), &body).await;
            assert_eq!(status, 200, "{answer}");
            assert_eq!(first_error_code(&answer), code);
            // Nothing was executed, so there is no `data` at all.
            assert!(answer.get("data").is_none(), "{answer}");
            let (status, answer) = post_raw(&app, &key, Some("application/json"), Some(GRAPHQL_RESPONSE), &body).await;
            assert_eq!(status, 400, "{answer}");
            assert_eq!(first_error_code(&answer), code);
            assert!(answer.get("data").is_none(), "{answer}");
        }
        // An error raised during execution keeps `data` (null here, the field being
        // non-null) and gets 200: the request was executed.
        let (status, answer) = post_raw(&app, &key, Some("application/json"), Some(GRAPHQL_RESPONSE),
            &json!({"query": "{ payments(first: 101) { totalCount } }"}).to_string()).await;
        assert_eq!(first_error_code(&answer), "PAGE_SIZE_OUT_OF_RANGE", "{answer}");
        assert!(answer.get("data").is_some(), "{answer}");
        assert_eq!(status, 200, "{answer}");
    }

    async fn post_bodies_must_say_they_are_json(app: TestApp) {
        let (_, key) = app.account("Alice").await;
        let body = json!({"query": "{ viewer { id } }"}).to_string();
        for unsupported in ["text/plain;charset=UTF-8", "application/x-www-form-urlencoded", "application/json; charset=latin1"] {
            let (status, answer) = post_raw(&app, &key, Some(unsupported), None, &body).await;
            assert_eq!(status, 415, "{unsupported}: {answer}");
            assert_eq!(first_error_code(&answer), "GRAPHQL_PARSE_FAILED");
        }
        let (status, answer) = post_raw(&app, &key, None, None, &body).await;
        assert_eq!(status, 400, "{answer}");
        assert_eq!(first_error_code(&answer), "GRAPHQL_PARSE_FAILED");
        let (status, answer) = post_raw(&app, &key, Some("application/json; charset=utf-8"), None, &body).await;
        assert_eq!(status, 200, "{answer}");
    }
}

on_both_backends! {
    // A query string is bounded before anything reads it: a request line larger than the HTTP
    // server accepts is refused at the door, an unknown document id of any length the URL
    // allows is only not found, and the gateway answers normally afterwards.
    async fn oversized_query_strings_are_refused_and_harm_nothing(app: TestApp) {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};

        let (_, key) = app.account("Acme").await;
        for size in [70_000usize, 2_000_000] {
            let host = app.address.trim_start_matches("http://").to_string();
            let mut stream = tokio::net::TcpStream::connect(&host).await.unwrap();
            let head = format!(
                "GET /graphql?query={} HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {key}\r\n\r\n",
                "x".repeat(size)
            );
            // The server may stop reading (and close) before the whole line is sent.
            let _ = stream.write_all(head.as_bytes()).await;
            let mut answer = Vec::new();
            let _ = tokio::time::timeout(
                std::time::Duration::from_secs(10),
                stream.read_to_end(&mut answer),
            )
            .await
            .expect("the server answers or closes in time");
            let answer = String::from_utf8_lossy(&answer);
            assert!(
                answer.is_empty() || answer.starts_with("HTTP/1.1 4"),
                "{size}: {}",
                answer.lines().next().unwrap_or_default()
            );
        }
        let long_id = "d".repeat(60_000);
        let (_, _, body) = get(&app, Some(&key), None, &[("documentId", long_id.as_str())]).await;
        assert_eq!(first_error_code(&body), "PERSISTED_QUERY_NOT_FOUND");
        let (status, _, body) =
            get(&app, Some(&key), None, &[("query", "{ viewer { id } }")]).await;
        assert_eq!(status, 200, "{body}");
        assert!(body["data"]["viewer"]["id"].is_string());
    }
}
