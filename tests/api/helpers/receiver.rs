//! A merchant's webhook receiver on loopback: it records every request and answers as the
//! test says, and checks signatures with the Standard Webhooks library (code this project did
//! not write).

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use serde_json::Value;

use tokio::sync::Notify;

/// How the receiver answers one request.
#[derive(Clone, Copy, Debug)]
pub enum Answer {
    Status(u16),
    /// Never answers (the gateway's attempt times out).
    Hang,
}

/// One request as received.
#[derive(Clone, Debug)]
pub struct Received {
    pub headers: HeaderMap,
    pub body: Bytes,
    /// The `webhook-id` header.
    pub id: String,
    pub answered: Option<u16>,
}

impl Received {
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).expect("a JSON body")
    }

    /// Whether the request verifies with `secret` under the Standard Webhooks rules.
    pub fn verifies_with(&self, secret: &str) -> bool {
        standardwebhooks::Webhook::new(secret)
            .expect("a Standard Webhooks secret")
            .verify(&self.body, &self.headers)
            .is_ok()
    }
}

type Answering = dyn Fn(&str, usize) -> Answer + Send + Sync;

#[derive(Clone)]
struct Shared {
    received: Arc<Mutex<Vec<Received>>>,
    answer: Arc<Mutex<Box<Answering>>>,
    arrived: Arc<Notify>,
}

/// A receiver listening on `127.0.0.1`.
pub struct Receiver {
    /// Where to point an endpoint.
    pub url: String,
    shared: Shared,
    server: tokio::task::JoinHandle<()>,
}

impl Receiver {
    /// Starts a receiver that answers each request with `answer(event id, how many requests
    /// with that id came before this one)`.
    pub async fn start(answer: impl Fn(&str, usize) -> Answer + Send + Sync + 'static) -> Self {
        let shared = Shared {
            received: Arc::default(),
            answer: Arc::new(Mutex::new(Box::new(answer))),
            arrived: Arc::new(Notify::new()),
        };
        let router = axum::Router::new()
            .route("/hook", axum::routing::post(receive))
            .with_state(shared.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/hook", listener.local_addr().unwrap());
        let server = tokio::spawn(async move {
            let _ = axum::serve(listener, router).await;
        });
        Receiver {
            url,
            shared,
            server,
        }
    }

    /// Answers 200 to everything.
    pub async fn accepting() -> Self {
        Self::start(|_, _| Answer::Status(200)).await
    }

    /// Changes how later requests are answered.
    pub fn answer_with(&self, answer: impl Fn(&str, usize) -> Answer + Send + Sync + 'static) {
        *self.shared.answer.lock().unwrap() = Box::new(answer);
    }

    pub fn received(&self) -> Vec<Received> {
        self.shared.received.lock().unwrap().clone()
    }

    /// Waits (up to 30 s) until what was received satisfies `done`, and returns it.
    pub async fn until(&self, done: impl Fn(&[Received]) -> bool) -> Vec<Received> {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
        loop {
            let arrived = self.shared.arrived.notified();
            let received = self.received();
            if done(&received) {
                return received;
            }
            if tokio::time::timeout_at(deadline, arrived).await.is_err() {
                let ids: Vec<_> = received.iter().map(|r| (&r.id, r.answered)).collect();
                panic!("the receiver did not get what the test waited for; it got {ids:?}");
            }
        }
    }
}

impl Drop for Receiver {
    fn drop(&mut self) {
        self.server.abort();
    }
}

async fn receive(
    State(shared): State<Shared>,
    headers: HeaderMap,
    body: Bytes,
) -> (StatusCode, &'static str) {
    let id = headers
        .get("webhook-id")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string();
    let answer = {
        let received = shared.received.lock().unwrap();
        let before = received.iter().filter(|r| r.id == id).count();
        (shared.answer.lock().unwrap())(&id, before)
    };
    let answered = match answer {
        Answer::Status(code) => Some(code),
        Answer::Hang => None,
    };
    shared.received.lock().unwrap().push(Received {
        headers,
        body,
        id,
        answered,
    });
    shared.arrived.notify_waiters();
    match answer {
        Answer::Status(code) => (StatusCode::from_u16(code).unwrap(), "ok"),
        Answer::Hang => {
            tokio::time::sleep(Duration::from_secs(3600)).await;
            (StatusCode::OK, "late")
        }
    }
}
