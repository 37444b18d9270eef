//! CORS: pages from the allowed origins may call the API from a browser; other origins get no
//! CORS header; with no origin configured, no response carries one.

use std::time::Duration;

use graphpay::config::Config;
use graphpay::startup::Application;
use reqwest::Method;
use reqwest::header::HeaderMap;
use serde_json::json;

use crate::helpers::{Backend, TestApp};

const ALLOWED: &str = "https://shop.example";
const ALSO_ALLOWED: &str = "http://127.0.0.1:5173";
const OTHER: &str = "https://evil.example";

async fn with_origins(origins: &[&str]) -> TestApp {
    let origins: Vec<String> = origins.iter().map(|o| o.to_string()).collect();
    TestApp::spawn_with(Backend::Sqlite, move |c: &mut Config| {
        c.cors_allowed_origins = origins;
    })
    .await
}

async fn preflight(app: &TestApp, origin: &str) -> (u16, HeaderMap) {
    let response = app
        .http
        .request(Method::OPTIONS, format!("{}/graphql", app.address))
        .header("origin", origin)
        .header("access-control-request-method", "POST")
        .header(
            "access-control-request-headers",
            "authorization, content-type",
        )
        .send()
        .await
        .unwrap();
    (response.status().as_u16(), response.headers().clone())
}

async fn actual(app: &TestApp, origin: &str, key: Option<&str>) -> (u16, HeaderMap) {
    let mut request = app
        .http
        .post(format!("{}/graphql", app.address))
        .header("origin", origin)
        .json(&json!({"query": "{ viewer { id } }"}));
    if let Some(key) = key {
        request = request.bearer_auth(key);
    }
    let response = request.send().await.unwrap();
    (response.status().as_u16(), response.headers().clone())
}

fn header<'h>(headers: &'h HeaderMap, name: &str) -> Option<&'h str> {
    headers.get(name).map(|v| v.to_str().unwrap())
}

fn lowercase_list(value: Option<&str>) -> Vec<String> {
    value
        .unwrap_or_default()
        .split(',')
        .map(|v| v.trim().to_ascii_lowercase())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_allowed_origin_gets_its_preflight_answered_and_cached_and_can_read_answers() {
    let app = with_origins(&[ALLOWED, ALSO_ALLOWED]).await;
    let (_, key) = app.account("Acme").await;
    for origin in [ALLOWED, ALSO_ALLOWED] {
        let (status, headers) = preflight(&app, origin).await;
        assert!((200..300).contains(&status), "{status}");
        assert_eq!(
            header(&headers, "access-control-allow-origin"),
            Some(origin)
        );
        let allowed_headers = lowercase_list(header(&headers, "access-control-allow-headers"));
        for needed in [
            "authorization",
            "content-type",
            "graphpay-consistency-token",
        ] {
            assert!(
                allowed_headers.iter().any(|h| h == needed),
                "{allowed_headers:?}"
            );
        }
        let methods = lowercase_list(header(&headers, "access-control-allow-methods"));
        assert!(methods.iter().any(|m| m == "post"), "{methods:?}");
        assert_eq!(header(&headers, "access-control-max-age"), Some("7200"));
        assert_eq!(header(&headers, "access-control-allow-credentials"), None);

        let (status, headers) = actual(&app, origin, Some(&key)).await;
        assert_eq!(status, 200);
        assert_eq!(
            header(&headers, "access-control-allow-origin"),
            Some(origin)
        );
        let exposed = lowercase_list(header(&headers, "access-control-expose-headers"));
        for exposed_header in ["x-request-id", "graphpay-consistency-token"] {
            assert!(exposed.iter().any(|h| h == exposed_header), "{exposed:?}");
        }
        assert!(headers.contains_key("x-request-id"));
        assert_eq!(header(&headers, "access-control-allow-credentials"), None);
    }
    // A refusal is readable by the page too, so that it can show why.
    let (status, headers) = actual(&app, ALLOWED, None).await;
    assert_eq!(status, 401);
    assert_eq!(
        header(&headers, "access-control-allow-origin"),
        Some(ALLOWED)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_origin_gets_no_cors_headers() {
    let app = with_origins(&[ALLOWED]).await;
    let (_, key) = app.account("Acme").await;
    for origin in [
        OTHER,
        "https://shop.example.evil.example",
        "http://shop.example",
    ] {
        let (_, headers) = preflight(&app, origin).await;
        assert_eq!(
            header(&headers, "access-control-allow-origin"),
            None,
            "{origin}"
        );
        let (_, headers) = actual(&app, origin, Some(&key)).await;
        assert_eq!(
            header(&headers, "access-control-allow-origin"),
            None,
            "{origin}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_no_origin_configured_no_response_carries_cors_headers() {
    let app = with_origins(&[]).await;
    let (_, key) = app.account("Acme").await;
    let (_, headers) = preflight(&app, ALLOWED).await;
    let (_, answered) = actual(&app, ALLOWED, Some(&key)).await;
    for headers in [headers, answered] {
        let cors: Vec<_> = headers
            .keys()
            .filter(|name| name.as_str().starts_with("access-control-"))
            .collect();
        assert!(cors.is_empty(), "{cors:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_origin_setting_that_is_not_an_origin_stops_the_start() {
    for bad in ["*", "https://shop.example/app", "shop.example"] {
        let dir = tempfile::tempdir().unwrap();
        let mut config = Config::with_database(graphpay::persistence::DbConfig {
            url: format!("sqlite://{}?mode=rwc", dir.path().join("g.db").display()),
            schema: None,
            max_connections: 2,
            busy_timeout: Duration::from_secs(5),
            acquire_timeout: Duration::from_secs(5),
        });
        config.cors_allowed_origins = vec![bad.to_string()];
        match Application::build(config).await {
            Err(err) => assert!(err.to_string().contains("CORS origin"), "{err}"),
            Ok(_) => panic!("{bad:?} was accepted"),
        }
    }
}
