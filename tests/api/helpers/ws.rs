//! The `graphql-transport-ws` client side, for tests of subscriptions over `/graphql/ws`.

use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;

use super::TestApp;

/// A client's end of a `/graphql/ws` connection.
pub type Socket =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// Opens `/graphql/ws` with `graphql-transport-ws` and authenticates with `key`; `Err` unless
/// the server acknowledges.
pub async fn connect(app: &TestApp, key: &str) -> Result<Socket, String> {
    let url = format!("{}/graphql/ws", app.address.replace("http://", "ws://"));
    let mut request = url.into_client_request().unwrap();
    request.headers_mut().insert(
        "sec-websocket-protocol",
        "graphql-transport-ws".parse().unwrap(),
    );
    let (mut socket, _) = tokio_tungstenite::connect_async(request)
        .await
        .map_err(|e| e.to_string())?;
    let init =
        json!({"type": "connection_init", "payload": {"Authorization": format!("Bearer {key}")}});
    socket.send(Message::text(init.to_string())).await.unwrap();
    match next_message(&mut socket).await {
        Some(m) if m["type"] == "connection_ack" => Ok(socket),
        other => Err(format!("no ack: {other:?}")),
    }
}

/// The next JSON message, or `None` when the socket closes (or nothing comes for 10 s).
pub async fn next_message(socket: &mut Socket) -> Option<Value> {
    loop {
        let message = tokio::time::timeout(Duration::from_secs(10), socket.next())
            .await
            .ok()??
            .ok()?;
        match message {
            Message::Text(text) => return serde_json::from_str(&text).ok(),
            Message::Close(_) => return None,
            _ => continue,
        }
    }
}

/// Starts subscription `subscription` to `paymentUpdated`: of payment `id`, or of every
/// payment of the account.
pub async fn subscribe_as(socket: &mut Socket, subscription: &str, id: Option<&str>) {
    let query = "subscription S($id: ID) { paymentUpdated(id: $id) { id status amount } }";
    let message = json!({"id": subscription, "type": "subscribe", "payload": {"query": query, "variables": {"id": id}}});
    socket
        .send(Message::text(message.to_string()))
        .await
        .unwrap();
}
