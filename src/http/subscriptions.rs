//! `GET /graphql/ws`: subscriptions over `graphql-transport-ws`. The API key travels in the
//! `connection_init` payload as `{"Authorization": "Bearer <key>"}`; a connection without a
//! valid key is closed before any subscription starts.
//!
//! The socket is driven here rather than by `async-graphql-axum`, so that its closes follow
//! `graphql-transport-ws`: 4401 for a `subscribe` before the connection is acknowledged, 4403
//! for a refused key, 4408 when `connection_init` does not arrive in time, 4400 for a message
//! that is not part of the protocol. A `subscribe` payload is read here too, as the
//! parameters of an HTTP request are: it may name a trusted document by `documentId`, and a
//! client token held to trusted documents may not send free text.

use std::sync::Arc;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};

use async_graphql::http::{ALL_WEBSOCKET_PROTOCOLS, ClientMessage, WebSocketProtocols, WsMessage};
use async_graphql::{Data, Executor, ServerError};
use axum::extract::ws::{CloseFrame, Message, WebSocket};
use axum::extract::{State, WebSocketUpgrade};
use axum::http::header::SEC_WEBSOCKET_PROTOCOL;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use futures_util::stream::BoxStream;
use futures_util::{SinkExt, StreamExt, future};
use serde::Deserialize;
use tracing::Instrument;

use super::AppState;
use super::{auth, params};
use crate::error::ApiError;
use crate::graphql::trusted_documents::TrustedDocuments;
use crate::graphql::{self, AppSchema};
use crate::metrics;
use crate::service::accounts::Caller;

/// Close codes of `graphql-transport-ws`.
mod close {
    pub const BAD_REQUEST: u16 = 4400;
    pub const UNAUTHORIZED: u16 = 4401;
    pub const FORBIDDEN: u16 = 4403;
    pub const INIT_TIMEOUT: u16 = 4408;
    /// The WebSocket code for a server that failed (here: the key could not be checked).
    pub const INTERNAL_ERROR: u16 = 1011;
}

/// The longest close reason a close frame may carry, in bytes.
const MAX_CLOSE_REASON: usize = 123;

pub async fn upgrade(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    upgrade: WebSocketUpgrade,
) -> Response {
    let Some(protocol) = protocol_of(&headers) else {
        return StatusCode::BAD_REQUEST.into_response();
    };
    let limits = state.connections;
    let span = tracing::Span::current();
    upgrade
        .protocols(ALL_WEBSOCKET_PROTOCOLS)
        .max_message_size(limits.ws_max_message_size)
        .max_frame_size(limits.ws_max_message_size)
        .on_upgrade(move |socket| serve(socket, state, protocol).instrument(span))
}

/// The first subprotocol the client offers that we speak.
fn protocol_of(headers: &HeaderMap) -> Option<WebSocketProtocols> {
    headers
        .get(SEC_WEBSOCKET_PROTOCOL)?
        .to_str()
        .ok()?
        .split(',')
        .find_map(|offered| offered.trim().parse().ok())
}

/// Why a `connection_init` was refused.
#[derive(Clone, Copy, Debug)]
enum Refusal {
    /// The key is missing, unknown or revoked.
    Forbidden,
    /// The key could not be checked.
    Internal,
}

/// How far the handshake got: told by the `connection_init` handler, read when closing.
#[derive(Default)]
struct Handshake {
    init_received: AtomicBool,
    refusal: OnceLock<Refusal>,
    /// Who the connection acts for, once `connection_init` was accepted.
    caller: OnceLock<Caller>,
}

async fn serve(socket: WebSocket, state: Arc<AppState>, protocol: WebSocketProtocols) {
    let (mut sink, stream) = socket.split();
    let handshake = Arc::new(Handshake::default());
    let input = {
        let handshake = handshake.clone();
        let documents = state.documents.clone();
        stream
            .take_while(|message| future::ready(message.is_ok()))
            .filter_map(|message| {
                future::ready(match message {
                    Ok(message @ (Message::Text(_) | Message::Binary(_))) => {
                        Some(message.into_data())
                    }
                    _ => None,
                })
            })
            // Messages are read one at a time, and none while `connection_init` is being
            // checked: a `subscribe` after it sees the caller it established.
            .map(move |bytes| client_message(&bytes, &documents, handshake.caller.get()))
    };
    let on_init = {
        let handshake = handshake.clone();
        let db = state.db.clone();
        let keys = state.keys.clone();
        move |payload: serde_json::Value| async move {
            handshake.init_received.store(true, Ordering::Relaxed);
            let authorization = payload
                .get("Authorization")
                .or_else(|| payload.get("authorization"))
                .and_then(|v| v.as_str());
            match auth::authenticate(&keys, authorization).await {
                Ok(caller) => {
                    let _ = handshake.caller.set(caller.clone());
                    Ok(graphql::data_for(&db, caller))
                }
                Err(err) => {
                    let refusal = match err {
                        ApiError::Unauthenticated => Refusal::Forbidden,
                        _ => Refusal::Internal,
                    };
                    let _ = handshake.refusal.set(refusal);
                    Err(async_graphql::Error::new(err.message()))
                }
            }
        }
    };
    let gate = Gate(state.schema.clone());
    let mut replies = async_graphql::http::WebSocket::from_message_stream(gate, input, protocol)
        .on_connection_init(on_init);
    let mut init_deadline = std::pin::pin!(tokio::time::sleep(state.connections.ws_init_timeout));
    loop {
        let waiting_for_init = !handshake.init_received.load(Ordering::Relaxed);
        let reply = tokio::select! {
            reply = replies.next() => reply,
            () = &mut init_deadline, if waiting_for_init => {
                if handshake.init_received.load(Ordering::Relaxed) {
                    continue;
                }
                tracing::info!("WebSocket closed: no connection_init in time");
                Some(WsMessage::Close(
                    close::INIT_TIMEOUT,
                    "Connection initialisation timeout".to_string(),
                ))
            }
        };
        let Some(reply) = reply else { break };
        let (message, last) = match reply {
            WsMessage::Text(text) => (Message::Text(text.into()), false),
            WsMessage::Close(code, reason) => {
                let (code, reason) = closing(protocol, &handshake, code, reason);
                let frame = CloseFrame {
                    code,
                    reason: reason.into(),
                };
                (Message::Close(Some(frame)), true)
            }
        };
        if sink.send(message).await.is_err() || last {
            break;
        }
    }
}

/// The parts of a client message that tell a `subscribe` (`start` in the older protocol).
#[derive(Deserialize)]
struct Envelope {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    payload: Option<serde_json::Value>,
}

/// Reads one client message. A `subscribe` payload is read as request parameters and its
/// document resolved for `caller` (unknown before the handshake, which async-graphql then
/// refuses whatever the payload); one that cannot run is marked [`Refused`]. Every other
/// message is async-graphql's to read; a message that cannot be read closes the socket.
fn client_message(
    bytes: &[u8],
    documents: &TrustedDocuments,
    caller: Option<&Caller>,
) -> serde_json::Result<ClientMessage> {
    let envelope: Envelope = serde_json::from_slice(bytes)?;
    if !matches!(envelope.kind.as_str(), "subscribe" | "start") {
        return serde_json::from_slice(bytes);
    }
    let invalid = |message: String| <serde_json::Error as serde::de::Error>::custom(message);
    let id = envelope
        .id
        .ok_or_else(|| invalid("a subscribe message needs an `id`".into()))?;
    let params = params::from_payload(envelope.payload.unwrap_or_default())
        .map_err(|params::Malformed(message)| invalid(message))?;
    let payload = match params.resolve(documents, caller) {
        Ok(request) => request,
        Err(err) => {
            metrics::record_request(metrics::UNKNOWN_OPERATION, err.code(), Default::default());
            async_graphql::Request::new("").data(Refused(ServerError::from(err)))
        }
    };
    Ok(ClientMessage::Start { id, payload })
}

/// A `subscribe` that may not run, and the error it is answered with.
#[derive(Clone)]
struct Refused(ServerError);

/// The schema, answering a [`Refused`] subscribe with its error (one `next` with the error,
/// then `complete`, as for a document that does not validate) instead of running it.
#[derive(Clone)]
struct Gate(AppSchema);

impl Executor for Gate {
    async fn execute(&self, request: async_graphql::Request) -> async_graphql::Response {
        self.0.execute(request).await
    }

    fn execute_stream(
        &self,
        request: async_graphql::Request,
        session_data: Option<Arc<Data>>,
    ) -> BoxStream<'static, async_graphql::Response> {
        let refused = request
            .data
            .get(&std::any::TypeId::of::<Refused>())
            .and_then(|d| d.downcast_ref::<Refused>())
            .cloned();
        match refused {
            Some(Refused(err)) => futures_util::stream::once(future::ready(
                async_graphql::Response::from_errors(vec![err]),
            ))
            .boxed(),
            None => Executor::execute_stream(&self.0, request, session_data),
        }
    }
}

/// The close frame to send for the one async-graphql asks for: async-graphql closes with
/// 1002 when `connection_init` is refused or a message cannot be read, and with 1011 for a
/// `subscribe` before the handshake; `graphql-transport-ws` has codes of its own for these.
fn closing(
    protocol: WebSocketProtocols,
    handshake: &Handshake,
    code: u16,
    reason: String,
) -> (u16, String) {
    if protocol != WebSocketProtocols::GraphQLWS {
        return (code, shortened(reason));
    }
    match (code, handshake.refusal.get()) {
        (1002, Some(Refusal::Forbidden)) => (close::FORBIDDEN, "Forbidden".to_string()),
        (1002, Some(Refusal::Internal)) => (close::INTERNAL_ERROR, "Internal error".to_string()),
        (1002, None) => (close::BAD_REQUEST, shortened(reason)),
        (1011, _) => (close::UNAUTHORIZED, "Unauthorized".to_string()),
        _ => (code, shortened(reason)),
    }
}

/// `reason` cut to what a close frame can carry, at a character boundary.
fn shortened(mut reason: String) -> String {
    if reason.len() > MAX_CLOSE_REASON {
        let mut end = MAX_CLOSE_REASON;
        while !reason.is_char_boundary(end) {
            end -= 1;
        }
        reason.truncate(end);
    }
    reason
}

#[cfg(test)]
mod tests {
    use super::shortened;

    #[test]
    fn close_reasons_are_cut_to_what_a_close_frame_carries() {
        assert_eq!(shortened("short".to_string()), "short");
        let long = "é".repeat(100);
        let cut = shortened(long);
        assert!(cut.len() <= 123);
        assert!(cut.chars().all(|c| c == 'é'));
    }
}
