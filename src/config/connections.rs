//! Limits on client connections, as flags and environment variables.

use std::time::Duration;

use clap::Args;

use crate::http::ConnectionLimits;

/// Limits on client connections: how many may be open, and how long each may take over
/// what it sends.
#[derive(Args, Clone, Debug)]
pub struct ConnectionArgs {
    /// Most client connections open at once, WebSockets included; a connection beyond it is
    /// closed as soon as it is accepted.
    #[arg(long, env = "GRAPHPAY_MAX_CONNECTIONS", default_value_t = 1_024)]
    pub max_connections: usize,

    /// Seconds a client has to send a request's headers: from opening the connection for its
    /// first request, from the first byte for later ones. Then the connection is closed.
    #[arg(long, env = "GRAPHPAY_HEADER_READ_TIMEOUT_SECS", default_value_t = 10)]
    pub header_read_timeout_secs: u64,

    /// Seconds a client has to send a request's body, once its headers are in; then the
    /// request is answered 408 and the connection closed.
    #[arg(long, env = "GRAPHPAY_BODY_READ_TIMEOUT_SECS", default_value_t = 30)]
    pub body_read_timeout_secs: u64,

    /// Seconds a keep-alive connection may stay idle between a response and the next request.
    #[arg(long, env = "GRAPHPAY_IDLE_TIMEOUT_SECS", default_value_t = 75)]
    pub idle_timeout_secs: u64,

    /// Seconds a WebSocket has to send `connection_init`; then it is closed with 4408.
    #[arg(long, env = "GRAPHPAY_WS_INIT_TIMEOUT_SECS", default_value_t = 10)]
    pub ws_init_timeout_secs: u64,

    /// Largest WebSocket message (and frame) accepted, in bytes.
    #[arg(long, env = "GRAPHPAY_WS_MAX_MESSAGE_BYTES", default_value_t = 262_144)]
    pub ws_max_message_bytes: usize,
}

impl ConnectionArgs {
    pub fn limits(&self) -> ConnectionLimits {
        ConnectionLimits {
            max_connections: self.max_connections.max(1),
            header_read_timeout: Duration::from_secs(self.header_read_timeout_secs.max(1)),
            body_read_timeout: Duration::from_secs(self.body_read_timeout_secs.max(1)),
            idle_timeout: Duration::from_secs(self.idle_timeout_secs.max(1)),
            ws_init_timeout: Duration::from_secs(self.ws_init_timeout_secs.max(1)),
            ws_max_message_size: self.ws_max_message_bytes.max(1_024),
        }
    }
}
