//! `GET /graphql/ws`: subscriptions over `graphql-transport-ws`. The API key travels in the
//! `connection_init` payload as `{"Authorization": "Bearer <key>"}`; a connection without a
//! valid key is closed before any subscription starts.

use async_graphql::http::ALL_WEBSOCKET_PROTOCOLS;
use async_graphql_axum::{GraphQLProtocol, GraphQLWebSocket};
use axum::extract::{State, WebSocketUpgrade};
use axum::response::Response;

use super::AppState;
use super::auth;
use crate::graphql;

pub async fn upgrade(
    State(state): State<AppState>,
    protocol: GraphQLProtocol,
    upgrade: WebSocketUpgrade,
) -> Response {
    upgrade
        .protocols(ALL_WEBSOCKET_PROTOCOLS)
        .on_upgrade(move |socket| {
            let db = state.db.clone();
            GraphQLWebSocket::new(socket, state.schema.clone(), protocol)
                .on_connection_init(move |payload| async move {
                    let authorization = payload
                        .get("Authorization")
                        .or_else(|| payload.get("authorization"))
                        .and_then(|v| v.as_str())
                        .map(str::to_string);
                    let account_id = auth::authenticate(&db, authorization.as_deref()).await?;
                    Ok(graphql::data_for(&db, account_id))
                })
                .serve()
        })
}
