//! The `graphql-transport-ws` client side, for tests of subscriptions over `/graphql/ws`.

use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;

use super::{TestApp, create};

/// A client's end of a `/graphql/ws` connection.
pub type Socket =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// Opens `/graphql/ws` with `graphql-transport-ws` and authenticates with `key`; `Err` unless
/// the server acknowledges.
pub async fn connect(app: &TestApp, key: &str) -> Result<Socket, String> {
    connect_to(&app.address, key).await
}

/// [`connect`] to the gateway at `address` (`http://host:port`).
pub async fn connect_to(address: &str, key: &str) -> Result<Socket, String> {
    let url = format!("{}/graphql/ws", address.replace("http://", "ws://"));
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

/// Subscribes (as subscription "1"), then makes sure the server is listening before the test
/// goes on: a second subscription to every payment must hear a probe change, which the
/// server can only deliver once it has taken both subscriptions in.
pub async fn subscribe_synced(app: &TestApp, key: &str, socket: &mut Socket, id: Option<&str>) {
    subscribe_as(socket, "1", id).await;
    subscribe_as(socket, "sync", None).await;
    for attempt in 0..50 {
        let probe = json!({"amount": 1, "currency": "USD", "source": "tok_visa", "confirm": false});
        create(app, key, &format!("probe-{attempt}"), probe).await;
        // Subscription "1" may hear the probe too; only "sync" hearing it settles the matter.
        while let Ok(Some(message)) =
            tokio::time::timeout(Duration::from_millis(200), next_message(socket)).await
        {
            if message["id"] == "sync" {
                let stop = json!({"id": "sync", "type": "complete"});
                socket.send(Message::text(stop.to_string())).await.unwrap();
                return;
            }
        }
    }
    panic!("the subscription never started");
}

/// The next `paymentUpdated` payload of subscription "1", skipping the probes' leftovers.
pub async fn next_update(socket: &mut Socket) -> Value {
    loop {
        let message = next_message(socket).await.expect("an update");
        if message["id"] == "sync" {
            continue;
        }
        assert_eq!(message["type"], "next", "{message}");
        let update = message["payload"]["data"]["paymentUpdated"].clone();
        if update["amount"] == 1 {
            continue;
        }
        return update;
    }
}
