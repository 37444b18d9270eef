//! Hostile and unlucky clients at the connection level: slow headers, bodies that never come,
//! idle keep-alive, WebSockets that never say hello, too many connections, and a database that
//! goes away. Each test waits for the gateway to act (the socket closes, a close frame comes)
//! within a generous bound, never for a measured time.

use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use graphpay::config::Config;
use graphpay::persistence::accounts;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;

use crate::helpers::{Backend, OwnDatabase, Socket, TestApp, first_error_code};

/// How long a test waits for the gateway to do what it must; far above the deadlines the
/// tests configure (about a second), so a loaded machine does not fail them.
const BOUND: Duration = Duration::from_secs(10);

async fn spawn(adjust: impl FnOnce(&mut Config)) -> TestApp {
    TestApp::spawn_with(Backend::Sqlite, adjust).await
}

fn host(app: &TestApp) -> String {
    app.address.trim_start_matches("http://").to_string()
}

async fn connect(app: &TestApp) -> TcpStream {
    TcpStream::connect(host(app)).await.expect("connects")
}

fn get(app: &TestApp, path: &str) -> String {
    format!("GET {path} HTTP/1.1\r\nHost: {}\r\n\r\n", host(app))
}

/// Reads until the gateway closes the connection (an end of stream or a reset) and returns
/// what it sent first; fails if the connection is still open after `BOUND`.
async fn read_until_closed(stream: &mut TcpStream) -> String {
    let mut received = Vec::new();
    let mut buf = [0u8; 4096];
    let closed = tokio::time::timeout(BOUND, async {
        loop {
            match stream.read(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(n) => received.extend_from_slice(&buf[..n]),
            }
        }
    })
    .await;
    let received = String::from_utf8_lossy(&received).to_string();
    assert!(
        closed.is_ok(),
        "the connection was still open after {BOUND:?}; received {received:?}"
    );
    received
}

/// Reads one whole response (head and `content-length` body) from a kept-alive connection.
async fn read_response(stream: &mut TcpStream) -> String {
    let mut received = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        if let Some(end) = received.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&received[..end]).to_ascii_lowercase();
            let length = head
                .lines()
                .find_map(|line| line.strip_prefix("content-length:"))
                .map_or(0, |v| v.trim().parse::<usize>().expect("a length"));
            if received.len() >= end + 4 + length {
                return String::from_utf8_lossy(&received[..end + 4 + length]).to_string();
            }
        }
        let n = tokio::time::timeout(BOUND, stream.read(&mut buf))
            .await
            .expect("a response in time")
            .expect("the connection stays readable");
        assert!(n > 0, "closed before a whole response came");
        received.extend_from_slice(&buf[..n]);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_slow_to_send_its_headers_is_disconnected() {
    let app = spawn(|c| c.connections.header_read_timeout = Duration::from_secs(1)).await;
    let mut silent = connect(&app).await;
    let mut partial = connect(&app).await;
    let head = format!("GET /healthz HTTP/1.1\r\nHost: {}\r\n", host(&app));
    partial.write_all(head.as_bytes()).await.unwrap();
    assert_eq!(read_until_closed(&mut silent).await, "");
    assert_eq!(read_until_closed(&mut partial).await, "");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_declared_body_that_never_arrives_is_answered_408_and_closed() {
    let app = spawn(|c| c.connections.body_read_timeout = Duration::from_secs(1)).await;
    // With a valid key, so that the request gets as far as reading its body.
    let (_, key) = app.account("Alice").await;
    let mut stream = connect(&app).await;
    let request = format!(
        "POST /graphql HTTP/1.1\r\nHost: {}\r\nAuthorization: Bearer {key}\r\n\
         Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{{\"query\":",
        host(&app)
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    let answer = read_until_closed(&mut stream).await;
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idle_keep_alive_connection_is_closed_after_the_idle_timeout() {
    let app = spawn(|c| {
        c.connections.header_read_timeout = Duration::from_secs(60);
        c.connections.idle_timeout = Duration::from_secs(1);
    })
    .await;
    let mut stream = connect(&app).await;
    stream
        .write_all(get(&app, "/healthz").as_bytes())
        .await
        .unwrap();
    let answer = read_response(&mut stream).await;
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert_eq!(read_until_closed(&mut stream).await, "");
}

/// hyper's own header timer would run from the end of the previous response; ours waits for
/// the next request's first byte, so a keep-alive pause longer than the header timeout is fine.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pause_between_requests_does_not_count_against_the_header_timeout() {
    let app = spawn(|c| {
        c.connections.header_read_timeout = Duration::from_secs(1);
        c.connections.idle_timeout = Duration::from_secs(60);
    })
    .await;
    let mut stream = connect(&app).await;
    for _ in 0..2 {
        stream
            .write_all(get(&app, "/healthz").as_bytes())
            .await
            .unwrap();
        let answer = read_response(&mut stream).await;
        assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
        tokio::time::sleep(Duration::from_millis(2_500)).await;
    }
}

/// `/healthz` on a new connection, retried while the gateway is still freeing a slot.
async fn healthz_on_a_new_connection(app: &TestApp) {
    let request = format!(
        "GET /healthz HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
        host(app)
    );
    let served = tokio::time::timeout(BOUND, async {
        loop {
            let mut stream = connect(app).await;
            let _ = stream.write_all(request.as_bytes()).await;
            let mut answer = String::new();
            let _ = stream.read_to_string(&mut answer).await;
            if answer.starts_with("HTTP/1.1 200") {
                return;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await;
    assert!(served.is_ok(), "no slot was freed for /healthz");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_connection_over_the_cap_is_closed_and_a_freed_slot_serves_again() {
    let app = spawn(|c| {
        c.connections.max_connections = 2;
        c.connections.header_read_timeout = Duration::from_secs(60);
    })
    .await;
    let first = connect(&app).await;
    let _second = connect(&app).await;
    let mut third = connect(&app).await;
    let _ = third.write_all(get(&app, "/healthz").as_bytes()).await;
    assert_eq!(
        read_until_closed(&mut third).await,
        "",
        "no answer over the cap"
    );
    drop(first);
    healthz_on_a_new_connection(&app).await;
}

/// A `graphql-transport-ws` socket that has sent nothing yet.
async fn websocket(app: &TestApp) -> Socket {
    let url = format!("{}/graphql/ws", app.address.replace("http://", "ws://"));
    let mut request = url.into_client_request().unwrap();
    request.headers_mut().insert(
        "sec-websocket-protocol",
        "graphql-transport-ws".parse().unwrap(),
    );
    tokio_tungstenite::connect_async(request)
        .await
        .expect("the WebSocket opens")
        .0
}

async fn send(socket: &mut Socket, message: Value) {
    socket
        .send(Message::text(message.to_string()))
        .await
        .expect("sent");
}

fn init(key: &str) -> Value {
    json!({"type": "connection_init", "payload": {"Authorization": format!("Bearer {key}")}})
}

/// The code of the close frame the gateway sends, skipping other messages; `None` when the
/// socket ends without one. Fails if the socket is still open after `BOUND`.
async fn close_code(socket: &mut Socket) -> Option<u16> {
    let code = tokio::time::timeout(BOUND, async {
        while let Some(Ok(message)) = socket.next().await {
            if let Message::Close(frame) = message {
                return frame.map(|f| u16::from(f.code));
            }
        }
        None
    })
    .await;
    code.unwrap_or_else(|_| panic!("the WebSocket was still open after {BOUND:?}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_websocket_that_never_sends_connection_init_is_closed_with_4408() {
    let app = spawn(|c| c.connections.ws_init_timeout = Duration::from_secs(1)).await;
    let mut socket = websocket(&app).await;
    assert_eq!(close_code(&mut socket).await, Some(4408));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn subscribe_before_connection_init_is_closed_with_4401() {
    let app = spawn(|_| {}).await;
    let mut socket = websocket(&app).await;
    let query = "subscription { paymentUpdated { id } }";
    send(
        &mut socket,
        json!({"id": "1", "type": "subscribe", "payload": {"query": query}}),
    )
    .await;
    assert_eq!(close_code(&mut socket).await, Some(4401));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_key_in_connection_init_is_closed_with_4403() {
    let app = spawn(|_| {}).await;
    let mut socket = websocket(&app).await;
    send(&mut socket, init("gpk_wrong")).await;
    assert_eq!(close_code(&mut socket).await, Some(4403));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_message_outside_the_protocol_is_closed_with_4400() {
    let app = spawn(|_| {}).await;
    let mut socket = websocket(&app).await;
    send(&mut socket, json!({"type": "hello"})).await;
    assert_eq!(close_code(&mut socket).await, Some(4400));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_websocket_message_over_the_size_limit_ends_the_connection_unanswered() {
    let app = spawn(|c| c.connections.ws_max_message_size = 1_024).await;
    let (_, key) = app.account("Alice").await;
    let mut socket = websocket(&app).await;
    let mut big = init(&key);
    big["payload"]["padding"] = json!("x".repeat(4_096));
    send(&mut socket, big).await;
    let ended = tokio::time::timeout(BOUND, async {
        while let Some(Ok(message)) = socket.next().await {
            assert!(
                !message.to_string().contains("connection_ack"),
                "a message over the limit was read"
            );
            if message.is_close() {
                break;
            }
        }
    })
    .await;
    assert!(
        ended.is_ok(),
        "the WebSocket was still open after {BOUND:?}"
    );
}

/// An upgraded connection keeps its place under the cap for as long as it is open.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_open_websocket_counts_against_the_connection_cap() {
    let app = spawn(|c| c.connections.max_connections = 1).await;
    let (_, key) = app.account("Alice").await;
    let mut socket = websocket(&app).await;
    send(&mut socket, init(&key)).await;
    let ack = tokio::time::timeout(BOUND, socket.next())
        .await
        .expect("an answer in time");
    assert!(format!("{ack:?}").contains("connection_ack"), "{ack:?}");
    let mut other = connect(&app).await;
    let _ = other.write_all(get(&app, "/healthz").as_bytes()).await;
    assert_eq!(
        read_until_closed(&mut other).await,
        "",
        "no answer over the cap"
    );
    drop(socket);
    healthz_on_a_new_connection(&app).await;
}

/// A TCP forwarder in front of PostgreSQL that can be taken down (its port then refuses
/// connections and every forwarded connection is cut) and brought back on the same port.
struct Forwarder {
    port: u16,
    target: String,
    running: Option<tokio::task::JoinHandle<()>>,
}

impl Forwarder {
    async fn start(target: &str) -> Self {
        let mut forwarder = Forwarder {
            port: 0,
            target: target.to_string(),
            running: None,
        };
        forwarder.resume().await;
        forwarder
    }

    async fn resume(&mut self) {
        let socket = tokio::net::TcpSocket::new_v4().unwrap();
        socket.set_reuseaddr(true).unwrap();
        socket
            .bind(([127, 0, 0, 1], self.port).into())
            .expect("the forwarder's port is free");
        let listener = socket.listen(64).unwrap();
        self.port = listener.local_addr().unwrap().port();
        let target = self.target.clone();
        self.running = Some(tokio::spawn(async move {
            let mut forwarded = tokio::task::JoinSet::new();
            while let Ok((mut client, _)) = listener.accept().await {
                let target = target.clone();
                forwarded.spawn(async move {
                    if let Ok(mut server) = TcpStream::connect(target).await {
                        let _ = tokio::io::copy_bidirectional(&mut client, &mut server).await;
                    }
                });
            }
        }));
    }

    /// Closes the port and cuts every forwarded connection (they are the task's).
    async fn take_down(&mut self) {
        if let Some(running) = self.running.take() {
            running.abort();
            let _ = running.await;
        }
    }
}

impl Drop for Forwarder {
    fn drop(&mut self) {
        if let Some(running) = self.running.take() {
            running.abort();
        }
    }
}

/// `/readyz`'s status; the client gives up after `BOUND`, far below the 30 s a pool used
/// to wait for a database that is down.
async fn readiness(app: &TestApp, client: &reqwest::Client) -> u16 {
    client
        .get(format!("{}/readyz", app.address))
        .send()
        .await
        .expect("/readyz answers in time")
        .status()
        .as_u16()
}

async fn viewer(app: &TestApp, client: &reqwest::Client, key: &str) -> Value {
    client
        .post(format!("{}/graphql", app.address))
        .bearer_auth(key)
        .json(&json!({"query": "{ viewer { id } }"}))
        .send()
        .await
        .expect("the query answers in time")
        .json()
        .await
        .expect("a JSON body")
}

async fn ready_again(app: &TestApp, client: &reqwest::Client) {
    let ready = tokio::time::timeout(BOUND, async {
        while readiness(app, client).await != 200 {
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    })
    .await;
    assert!(ready.is_ok(), "/readyz never answered 200 again");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[cfg_attr(
    not(pg_tests),
    ignore = "TEST_DATABASE_URL is not set: PostgreSQL test NOT run"
)]
async fn a_database_that_goes_away_is_reported_promptly_and_its_return_is_seen() {
    let url = crate::helpers::postgres_url();
    let server_url = url.rsplit_once('/').expect("a URL with a database").0;
    let address = server_url.rsplit_once('@').map_or(server_url, |(_, a)| a);
    let address = address.trim_start_matches("postgres://").to_string();
    let database = OwnDatabase::create(server_url).await;
    let mut forwarder = Forwarder::start(&address).await;
    let user = server_url.trim_start_matches("postgres://");
    let user = user.rsplit_once('@').map_or("postgres", |(u, _)| u);
    let via_forwarder = format!(
        "postgres://{user}@127.0.0.1:{}/{}",
        forwarder.port, database.name
    );
    let app = TestApp::spawn_on(via_forwarder).await;
    let key = accounts::create(&app.server_db, "Alice")
        .await
        .unwrap()
        .api_key;
    let client = reqwest::Client::builder().timeout(BOUND).build().unwrap();
    assert_eq!(readiness(&app, &client).await, 200);
    assert!(viewer(&app, &client, &key).await["data"]["viewer"]["id"].is_string());

    // The database refuses connections, and the ones open are ended.
    database.refuse_connections().await;
    assert_eq!(readiness(&app, &client).await, 503);
    assert_eq!(
        first_error_code(&viewer(&app, &client, &key).await),
        "INTERNAL"
    );
    database.allow_connections().await;
    ready_again(&app, &client).await;

    // The server cannot be reached at all: connections are refused until the pool gives up.
    forwarder.take_down().await;
    assert_eq!(readiness(&app, &client).await, 503);
    assert_eq!(
        first_error_code(&viewer(&app, &client, &key).await),
        "INTERNAL"
    );
    forwarder.resume().await;
    ready_again(&app, &client).await;
    assert!(viewer(&app, &client, &key).await["data"]["viewer"]["id"].is_string());
}
