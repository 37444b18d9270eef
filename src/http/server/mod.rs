//! Serving the router over TCP: a cap on open connections, deadlines for clients that are slow
//! to send a request or idle too long between requests, WebSocket upgrades, and a shutdown
//! that lets requests in flight finish.
//!
//! Each connection has a watchdog that knows what the connection is doing. hyper's own
//! header read timeout cannot serve here: hyper starts it as soon as a response has been
//! written, so it also ends keep-alive connections that are merely idle, after the header
//! timeout rather than the idle timeout. The watchdog keeps the two apart:
//! - waiting for the first request: its head must arrive within the header read timeout of
//!   the connection's opening;
//! - between requests: the next request's first byte must arrive within the idle timeout of
//!   the previous response, and its head within the header read timeout of that byte;
//! - while a request is served, the body deadline (see `body_deadline`) and the request
//!   deadline apply instead; after a WebSocket upgrade, the WebSocket's own rules do.
//!
//! A connection beyond the cap is closed as soon as it is accepted rather than left waiting:
//! a client (or its load balancer) learns at once that this instance is full and can go
//! elsewhere, instead of waiting unseen in the kernel's backlog where no deadline of ours runs.

use std::convert::Infallible;
use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::pin::{Pin, pin};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::http::{Request, Response, StatusCode};
use http_body::{Frame, SizeHint};
use hyper::body::Incoming;
use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::server::conn::auto;
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tower::Service;

mod activity;

use activity::{Activity, expiry};

/// Bounds on what client connections may hold, and for how long.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConnectionLimits {
    /// Connections open at once, WebSockets included; one more is closed on arrival.
    pub max_connections: usize,
    /// Longest wait for a request's head: from the connection's opening for its first
    /// request, from the head's first byte for later ones.
    pub header_read_timeout: Duration,
    /// Longest wait for a request's body to arrive whole, from the end of its head.
    pub body_read_timeout: Duration,
    /// Longest a keep-alive connection may wait between a response and the next request.
    pub idle_timeout: Duration,
    /// Longest a WebSocket may take to send `connection_init`.
    pub ws_init_timeout: Duration,
    /// Largest WebSocket message or frame accepted, in bytes.
    pub ws_max_message_size: usize,
}

impl Default for ConnectionLimits {
    fn default() -> Self {
        ConnectionLimits {
            max_connections: 1024,
            header_read_timeout: Duration::from_secs(10),
            body_read_timeout: Duration::from_secs(30),
            idle_timeout: Duration::from_secs(75),
            ws_init_timeout: Duration::from_secs(10),
            ws_max_message_size: 256 * 1024,
        }
    }
}

/// Serves `router` on `listener` until `shutdown` completes; then stops accepting, lets the
/// requests in flight finish and returns.
pub async fn serve(
    listener: TcpListener,
    router: Router,
    limits: ConnectionLimits,
    shutdown: impl Future<Output = ()>,
) {
    let slots = Arc::new(Semaphore::new(
        limits.max_connections.clamp(1, Semaphore::MAX_PERMITS),
    ));
    let graceful = GracefulShutdown::new();
    let mut builder = auto::Builder::new(TokioExecutor::new()).http1_only();
    // The watchdog bounds the head instead (see the module comment).
    builder.http1().header_read_timeout(None);
    let mut shutdown = pin!(shutdown);
    let mut refusing = false;
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(err) => {
                    accept_failed(err).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let Ok(slot) = slots.clone().try_acquire_owned() else {
            crate::metrics::record_connection_refused();
            if !refusing {
                tracing::warn!(
                    max_connections = limits.max_connections,
                    "connection limit reached: new connections are closed until one ends"
                );
                refusing = true;
            }
            drop(stream);
            continue;
        };
        refusing = false;
        let activity = Arc::new(Activity::new());
        let io = TokioIo::new(Watched {
            stream,
            activity: activity.clone(),
            _open: Open::new(slot),
        });
        let service = TowerToHyperService::new(Requests {
            router: router.clone(),
            activity: activity.clone(),
        });
        let connection = graceful.watch(
            builder
                .serve_connection_with_upgrades(io, service)
                .into_owned(),
        );
        tokio::spawn(watch_over(connection, activity, limits, peer));
    }
    drop(listener);
    graceful.shutdown().await;
}

/// Errors of `accept` that concern one connection only: the next accept may well succeed.
fn is_connection_error(err: &io::Error) -> bool {
    matches!(
        err.kind(),
        io::ErrorKind::ConnectionRefused
            | io::ErrorKind::ConnectionAborted
            | io::ErrorKind::ConnectionReset
    )
}

async fn accept_failed(err: io::Error) {
    if is_connection_error(&err) {
        return;
    }
    // Most likely out of file descriptors: give open connections a moment to end.
    tracing::error!(error = %err, "accepting a connection failed");
    tokio::time::sleep(Duration::from_secs(1)).await;
}

/// Runs one connection, and closes it when it overstays the deadline of what it is doing.
async fn watch_over(
    connection: impl Future<Output = Result<(), Box<dyn std::error::Error + Send + Sync>>>,
    activity: Arc<Activity>,
    limits: ConnectionLimits,
    peer: SocketAddr,
) {
    let mut connection = pin!(connection);
    let mut phases = activity.phase.subscribe();
    loop {
        let deadline = phases.borrow_and_update().deadline(&limits);
        tokio::select! {
            served = connection.as_mut() => {
                if let Err(err) = served {
                    tracing::debug!(%peer, error = %err, "connection ended with an error");
                }
                return;
            }
            _ = phases.changed() => {}
            reason = expiry(deadline) => {
                crate::metrics::record_connection_timed_out(reason);
                tracing::debug!(%peer, reason, "closing a connection that overstayed its deadline");
                return;
            }
        }
    }
}

/// A connection's place under the cap, counted in `graphpay_connections_open`. It travels
/// with the socket, so an upgraded connection (a WebSocket) keeps it until it closes.
struct Open {
    _slot: OwnedSemaphorePermit,
}

impl Open {
    fn new(slot: OwnedSemaphorePermit) -> Self {
        ::metrics::gauge!(crate::metrics::CONNECTIONS_OPEN).increment(1.0);
        Open { _slot: slot }
    }
}

impl Drop for Open {
    fn drop(&mut self) {
        ::metrics::gauge!(crate::metrics::CONNECTIONS_OPEN).decrement(1.0);
    }
}

/// The client's socket, telling the connection's activity when bytes arrive.
struct Watched {
    stream: TcpStream,
    activity: Arc<Activity>,
    _open: Open,
}

impl AsyncRead for Watched {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        let read = Pin::new(&mut this.stream).poll_read(cx, buf);
        if buf.filled().len() > before {
            this.activity.bytes_arrived();
        }
        read
    }
}

impl AsyncWrite for Watched {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().stream).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().stream).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_shutdown(cx)
    }
}

/// The router, telling the connection's activity when each request starts and ends.
#[derive(Clone)]
struct Requests {
    router: Router,
    activity: Arc<Activity>,
}

type Served = Pin<Box<dyn Future<Output = Result<Response<Finishing>, Infallible>> + Send>>;

impl Service<Request<Incoming>> for Requests {
    type Response = Response<Finishing>;
    type Error = Infallible;
    type Future = Served;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Service::<Request<Incoming>>::poll_ready(&mut self.router, cx)
    }

    fn call(&mut self, request: Request<Incoming>) -> Served {
        let in_flight = InFlight::start(self.activity.clone());
        let response = self.router.call(request);
        let activity = self.activity.clone();
        Box::pin(async move {
            let response = response.await?;
            if response.status() == StatusCode::SWITCHING_PROTOCOLS {
                activity.upgraded();
            }
            Ok(response.map(|body| Finishing {
                body,
                _in_flight: in_flight,
            }))
        })
    }
}

/// One request being served; it ends when its response has been sent (or given up).
struct InFlight(Arc<Activity>);

impl InFlight {
    fn start(activity: Arc<Activity>) -> Self {
        activity.request_started();
        InFlight(activity)
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.request_finished();
    }
}

/// A response body that ends its request when it is dropped, once written.
struct Finishing {
    body: Body,
    _in_flight: InFlight,
}

impl http_body::Body for Finishing {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        Pin::new(&mut self.get_mut().body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}
