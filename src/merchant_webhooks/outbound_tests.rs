//! Tests of `outbound`.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap as AxumHeaders, StatusCode};
use axum::response::IntoResponse;
use axum::routing::post;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

use super::*;
use crate::merchant_webhooks::signing::{Secret, sign};

const BODY: &[u8] = br#"{"type":"payment.succeeded","data":{"id":"pay_1"}}"#;

/// Requests a test receiver saw: headers and body.
type Seen = Arc<Mutex<Vec<(AxumHeaders, Bytes)>>>;

fn private_ok() -> Outbound {
    client(true, Duration::from_secs(10))
}

fn client(allow_private: bool, attempt_timeout: Duration) -> Outbound {
    let policy = AddressPolicy { allow_private };
    Outbound::new(policy, Duration::from_secs(2), attempt_timeout).expect("client")
}

fn signed() -> (Secret, SignedHeaders) {
    let secret = Secret::generate();
    let now = time::OffsetDateTime::now_utc().unix_timestamp();
    let headers = sign(std::slice::from_ref(&secret), "msg_01J", now, BODY);
    (secret, headers)
}

async fn serve(router: Router) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move { axum::serve(listener, router).await });
    addr
}

/// A receiver answering `status` to every POST and recording what it saw.
async fn receiver(status: StatusCode) -> (SocketAddr, Seen) {
    let seen = Seen::default();
    let record = move |State(seen): State<Seen>, headers: AxumHeaders, body: Bytes| async move {
        seen.lock().expect("lock").push((headers, body));
        status
    };
    let router = Router::new()
        .route("/hook", post(record))
        .with_state(seen.clone());
    (serve(router).await, seen)
}

fn seen_count(seen: &Seen) -> usize {
    seen.lock().expect("lock").len()
}

#[tokio::test]
async fn a_2xx_answer_acknowledges_the_event_and_the_merchant_can_verify_it() {
    let (addr, seen) = receiver(StatusCode::NO_CONTENT).await;
    let (secret, headers) = signed();
    let attempt = private_ok()
        .send(&format!("http://{addr}/hook"), &headers, BODY)
        .await;
    assert_eq!(attempt.status_code, Some(204));
    assert_eq!(attempt.error, None);
    assert!(attempt.acknowledged());

    let seen = seen.lock().expect("lock");
    let (received, body) = &seen[0];
    assert_eq!(&body[..], BODY);
    assert_eq!(received["content-type"], "application/json");
    assert_eq!(received["user-agent"], USER_AGENT_VALUE);
    assert_eq!(received[HEADER_ID], "msg_01J");
    let webhook = standardwebhooks::Webhook::new(secret.as_str()).expect("secret");
    webhook.verify(body, received).expect("merchant verifies");
}

#[tokio::test]
async fn a_host_name_is_resolved_through_the_policy() {
    let (addr, seen) = receiver(StatusCode::OK).await;
    let url = format!("http://localhost:{}/hook", addr.port());
    let attempt = private_ok().send(&url, &signed().1, BODY).await;
    assert!(attempt.acknowledged(), "{attempt:?}");
    assert_eq!(seen_count(&seen), 1);
}

#[tokio::test]
async fn a_500_answer_is_a_failure_with_its_status() {
    let (addr, _) = receiver(StatusCode::INTERNAL_SERVER_ERROR).await;
    let attempt = private_ok()
        .send(&format!("http://{addr}/hook"), &signed().1, BODY)
        .await;
    assert_eq!(attempt.status_code, Some(500));
    assert_eq!(attempt.error.as_deref(), Some("answered 500"));
    assert!(!attempt.acknowledged());
}

#[tokio::test]
async fn a_silent_endpoint_times_out() {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((socket, _)) = listener.accept().await {
            held.push(socket); // accept, read nothing, answer nothing
        }
    });
    let outbound = client(true, Duration::from_millis(300));
    let attempt = outbound
        .send(&format!("http://{addr}/hook"), &signed().1, BODY)
        .await;
    assert_eq!(attempt.status_code, None);
    assert_eq!(attempt.error.as_deref(), Some("timed out after 300 ms"));
    assert!((290..2000).contains(&attempt.duration_ms), "{attempt:?}");
}

#[tokio::test]
async fn a_redirect_is_not_followed() {
    let (target, target_seen) = receiver(StatusCode::OK).await;
    let location = format!("http://{target}/hook");
    let redirect = move || {
        let location = location.clone();
        async move { (StatusCode::FOUND, [("location", location)]).into_response() }
    };
    let addr = serve(Router::new().route("/hook", post(redirect))).await;
    let attempt = private_ok()
        .send(&format!("http://{addr}/hook"), &signed().1, BODY)
        .await;
    assert_eq!(attempt.status_code, Some(302));
    assert_eq!(attempt.error.as_deref(), Some("answered 302"));
    assert!(!attempt.acknowledged());
    assert_eq!(seen_count(&target_seen), 0);
}

#[tokio::test]
async fn a_huge_answer_is_not_read() {
    const HUGE: usize = 200 * 1024 * 1024;
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    let written = Arc::new(AtomicUsize::new(0));
    let counter = written.clone();
    let server = tokio::spawn(async move {
        let (mut socket, _) = listener.accept().await.expect("accept");
        let mut request = [0u8; 4096];
        let _ = socket.read(&mut request).await;
        let head = format!("HTTP/1.1 200 OK\r\ncontent-length: {HUGE}\r\n\r\n");
        socket.write_all(head.as_bytes()).await.expect("head");
        let chunk = vec![b'x'; 64 * 1024];
        while counter.load(Ordering::Relaxed) < HUGE {
            match socket.write_all(&chunk).await {
                Ok(()) => counter.fetch_add(chunk.len(), Ordering::Relaxed),
                Err(_) => return, // the client hung up
            };
        }
    });
    let started = std::time::Instant::now();
    let attempt = private_ok()
        .send(&format!("http://{addr}/hook"), &signed().1, BODY)
        .await;
    assert!(attempt.acknowledged(), "{attempt:?}");
    assert!(started.elapsed() < Duration::from_secs(2));
    tokio::time::timeout(Duration::from_secs(5), server)
        .await
        .expect("the client closed the connection")
        .expect("server task");
    // Only what fits in the socket buffers was written before the client hung up.
    assert!(written.load(Ordering::Relaxed) < HUGE / 4);
}

#[tokio::test]
async fn a_closed_port_is_connection_refused() {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    drop(listener);
    let attempt = private_ok()
        .send(&format!("http://{addr}/hook"), &signed().1, BODY)
        .await;
    assert_eq!(attempt.status_code, None);
    assert_eq!(attempt.error.as_deref(), Some("connection refused"));
}

#[tokio::test]
async fn loopback_is_refused_by_the_public_policy() {
    let (addr, seen) = receiver(StatusCode::OK).await;
    let outbound = client(false, Duration::from_secs(10));
    let attempt = outbound
        .send(&format!("http://{addr}/hook"), &signed().1, BODY)
        .await;
    assert_eq!(attempt.status_code, None);
    assert_eq!(
        attempt.error.as_deref(),
        Some("address refused: 127.0.0.1 is a loopback address")
    );
    let attempt = outbound
        .send(
            &format!("http://[::ffff:127.0.0.1]:{}/hook", addr.port()),
            &signed().1,
            BODY,
        )
        .await;
    assert_eq!(
        attempt.error.as_deref(),
        Some("address refused: ::ffff:127.0.0.1 is a loopback address")
    );
    assert_eq!(seen_count(&seen), 0);
}

#[tokio::test]
async fn a_name_resolving_only_to_refused_addresses_is_refused_at_connection_time() {
    let (addr, seen) = receiver(StatusCode::OK).await;
    let url = format!("http://localhost:{}/hook", addr.port());
    let attempt = client(false, Duration::from_secs(10))
        .send(&url, &signed().1, BODY)
        .await;
    assert_eq!(attempt.status_code, None);
    let error = attempt.error.unwrap_or_default();
    assert!(error.starts_with("address refused: "), "{error}");
    assert!(error.ends_with(" is a loopback address"), "{error}");
    assert_eq!(seen_count(&seen), 0);
}

#[tokio::test]
async fn invalid_urls_are_failed_attempts() {
    let outbound = private_ok();
    let attempt = outbound.send("ftp://example.com/", &signed().1, BODY).await;
    assert_eq!(
        attempt.error.as_deref(),
        Some("invalid url: url must start with http:// or https://")
    );
    let attempt = outbound.send("nonsense", &signed().1, BODY).await;
    assert!(!attempt.acknowledged());
    assert!(
        attempt
            .error
            .is_some_and(|e| e.starts_with("invalid url: "))
    );
}

#[tokio::test]
async fn https_speaks_tls() {
    // A plain-HTTP receiver cannot complete a TLS handshake: the attempt fails in TLS,
    // which shows https endpoints are spoken to over TLS rather than refused.
    let (addr, seen) = receiver(StatusCode::OK).await;
    let attempt = private_ok()
        .send(&format!("https://{addr}/hook"), &signed().1, BODY)
        .await;
    assert_eq!(attempt.status_code, None);
    let error = attempt.error.unwrap_or_default();
    assert!(
        error.starts_with("tls error") || error == "could not connect",
        "{error}"
    );
    assert_eq!(seen_count(&seen), 0);
}

#[test]
fn the_resolver_keeps_only_allowed_addresses() {
    let addr = |s: &str| s.parse::<SocketAddr>().expect("addr");
    let public = AddressPolicy::PUBLIC_ONLY;
    let mixed = [addr("10.0.0.1:0"), addr("8.8.8.8:0"), addr("[::1]:0")];
    assert_eq!(
        keep_allowed(public, mixed).expect("one allowed"),
        vec![addr("8.8.8.8:0")]
    );
    let refused =
        keep_allowed(public, [addr("10.0.0.1:0"), addr("127.0.0.1:0")]).expect_err("none allowed");
    assert_eq!(refused.to_string(), "address refused: 10.0.0.1");
    let empty = keep_allowed(public, []).expect_err("nothing resolved");
    assert_eq!(empty.to_string(), "host resolves to no address");
}

#[test]
fn durations_read_naturally() {
    assert_eq!(seconds(Duration::from_secs(10)), "10 s");
    assert_eq!(seconds(Duration::from_millis(300)), "300 ms");
    assert_eq!(seconds(Duration::from_millis(1500)), "1500 ms");
}
