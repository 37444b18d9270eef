//! Nesting that once overflowed a worker's stack and aborted the whole process, swept from 1 to
//! 20,000 levels against a gateway in a process of its own (so that a crash fails this test
//! instead of killing the test binary). The binary under test is the debug build, whose stack
//! frames are larger than the release build's, so it is the stricter of the two.

use serde_json::{Value, json};

use crate::helpers::{GatewayProcess, error_extension};

/// The depths tried: every one up to 64, then a geometric sweep to 20,000.
fn depths() -> Vec<usize> {
    let mut depths: Vec<usize> = (1..=64).collect();
    let mut d = 64.0f64;
    while d < 20_000.0 {
        d *= 1.5;
        depths.push((d as usize).min(20_000));
    }
    depths
}

/// `open` `depth` times, then `inner`, then `close` `depth` times.
fn nest(open: &str, inner: &str, close: &str, depth: usize) -> String {
    format!("{}{inner}{}", open.repeat(depth), close.repeat(depth))
}

const CODES: &[&str] = &[
    "QUERY_TOO_COMPLEX",
    "GRAPHQL_PARSE_FAILED",
    "GRAPHQL_VALIDATION_FAILED",
    "BAD_USER_INPUT",
];

/// The answer must be the contract's: data, or an error with one of the expected codes.
fn assert_answered(what: &str, depth: usize, status: u16, body: &Value) {
    if body.get("errors").is_none() {
        assert_eq!(status, 200, "{what} at {depth}: {body}");
        return;
    }
    let code = error_extension(body, "code").as_str().unwrap_or_default();
    assert!(
        CODES.contains(&code),
        "{what} at depth {depth}: HTTP {status}, {body}"
    );
}

/// Posts a body as it is, JSON that serde_json itself would refuse to build included.
async fn post_raw(gateway: &GatewayProcess, body: String) -> (u16, Value) {
    let response = gateway
        .http
        .post(format!("{}/graphql", gateway.address))
        .bearer_auth(&gateway.key)
        .header("content-type", "application/json")
        .body(body)
        .send()
        .await
        .expect("the gateway answers");
    let status = response.status().as_u16();
    (
        status,
        response.json::<Value>().await.unwrap_or(Value::Null),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nesting_swept_to_twenty_thousand_levels_never_crashes_the_gateway() {
    let mut gateway = GatewayProcess::start(&[]);
    for depth in depths() {
        let literals = [
            (
                "a list literal",
                format!(
                    "{{ nodes(ids: {}) {{ id }} }}",
                    nest("[", "\"pay_x\"", "]", depth)
                ),
            ),
            (
                "an object literal",
                format!(
                    "{{ payments(filter: {}) {{ nodes {{ id }} }} }}",
                    nest("{status: ", "null", "}", depth)
                ),
            ),
            ("a selection", nest("{ viewer ", "{ id }", " }", depth)),
        ];
        for (what, query) in literals {
            let (status, body) = gateway.post(&query, json!({})).await;
            assert_answered(what, depth, status, &body);
        }
        let variables = [
            (
                "a list variable",
                "query Q($ids: [ID!]!) { nodes(ids: $ids) { id } }",
                true,
            ),
            (
                "an object variable",
                "query Q($f: PaymentFilter) { payments(filter: $f) { nodes { id } } }",
                false,
            ),
        ];
        for (what, query, list) in variables {
            let name = if list { "ids" } else { "f" };
            let value = if list {
                nest("[", "\"pay_x\"", "]", depth)
            } else {
                nest("{\"status\":", "null", "}", depth)
            };
            let body = format!(
                "{{\"query\":{},\"variables\":{{\"{name}\":{value}}}}}",
                Value::from(query)
            );
            let (status, answer) = post_raw(&gateway, body).await;
            assert_answered(what, depth, status, &answer);
        }
        assert!(gateway.is_alive(), "the gateway died at depth {depth}");
    }
    let health = gateway
        .http
        .get(format!("{}/healthz", gateway.address))
        .send()
        .await
        .expect("still serving");
    assert_eq!(health.status(), 200);
    assert!(
        !gateway.logs().contains("overflowed its stack"),
        "{}",
        gateway.logs()
    );
}
