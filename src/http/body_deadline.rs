//! Request bodies must arrive whole within a deadline, counted from the end of the request's
//! head. A body still incomplete then fails to read, and the request is answered `408 Request
//! Timeout` with the connection closed: a client that declares a body and sends it slowly, or
//! never, holds nothing for longer than that.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::http::header::CONNECTION;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http_body::{Frame, SizeHint};
use tokio::time::Sleep;

/// The middleware: wraps the body in the deadline, and answers 408 when it passed.
pub async fn limit(State(deadline): State<Duration>, request: Request, next: Next) -> Response {
    if http_body::Body::is_end_stream(request.body()) {
        return next.run(request).await;
    }
    let expired = Arc::new(AtomicBool::new(false));
    let request = request.map(|body| {
        Body::new(Deadline {
            body,
            sleep: Box::pin(tokio::time::sleep(deadline)),
            expired: expired.clone(),
        })
    });
    let response = next.run(request).await;
    if expired.load(Ordering::Relaxed) {
        tracing::info!("request body not received in time");
        return (
            StatusCode::REQUEST_TIMEOUT,
            [(CONNECTION, "close")],
            "the request body did not arrive in time\n",
        )
            .into_response();
    }
    response
}

/// A request body that fails once its deadline has passed, and says so in `expired`.
struct Deadline {
    body: Body,
    sleep: Pin<Box<Sleep>>,
    expired: Arc<AtomicBool>,
}

#[derive(Debug, thiserror::Error)]
#[error("the request body did not arrive in time")]
struct TooSlow;

impl http_body::Body for Deadline {
    type Data = Bytes;
    type Error = Box<dyn std::error::Error + Send + Sync>;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        let this = self.get_mut();
        if let Poll::Ready(frame) = Pin::new(&mut this.body).poll_frame(cx) {
            return Poll::Ready(frame.map(|frame| frame.map_err(Into::into)));
        }
        match this.sleep.as_mut().poll(cx) {
            Poll::Ready(()) => {
                this.expired.store(true, Ordering::Relaxed);
                Poll::Ready(Some(Err(Box::new(TooSlow))))
            }
            Poll::Pending => Poll::Pending,
        }
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}
