//! One delivery attempt of a merchant webhook: a signed JSON POST to the endpoint, with short
//! timeouts, no redirects, and only publicly reachable addresses (checked again at every
//! connection, so an endpoint whose DNS changes after registration cannot be turned against the
//! gateway's network). The merchant's answer is reduced to a status code; at most 4 KiB of its
//! body is read and thrown away.

use std::error::Error as StdError;
use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use reqwest::header::{CONTENT_TYPE, HeaderMap, HeaderValue, USER_AGENT};
use tokio::time::Instant;

use super::address::{AddressPolicy, EndpointHost, UrlProblem, describe, parse_endpoint};
use super::signing::{HEADER_ID, HEADER_SIGNATURE, HEADER_TIMESTAMP, SignedHeaders};

/// The `user-agent` of every delivery.
pub const USER_AGENT_VALUE: &str = "graphpay-webhooks/1";
/// The most of a merchant's answer body that is read, in bytes.
pub const MAX_ANSWER_BYTES: usize = 4 * 1024;

/// The webhook delivery client. Cheap to clone: clones share one connection pool.
#[derive(Clone, Debug)]
pub struct Outbound {
    client: reqwest::Client,
    policy: AddressPolicy,
    connect_timeout: Duration,
    attempt_timeout: Duration,
}

/// The outcome of one delivery attempt, as recorded and shown to the merchant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Attempt {
    /// The endpoint's HTTP status, if it answered.
    pub status_code: Option<u16>,
    /// How long the attempt took, in milliseconds.
    pub duration_ms: u32,
    /// Why the attempt failed, in a few words (`None` when acknowledged), e.g.
    /// "answered 500", "timed out after 10 s", "connection refused",
    /// "address refused: 10.0.0.1 is a private address".
    pub error: Option<String>,
}

impl Attempt {
    /// Whether the endpoint acknowledged the event with a 2xx answer.
    pub fn acknowledged(&self) -> bool {
        self.status_code.is_some_and(|s| (200..300).contains(&s))
    }
}

impl Outbound {
    /// A client that connects only where `policy` allows, gives up connecting after
    /// `connect_timeout` and on the whole attempt after `attempt_timeout`. Fails only if the
    /// TLS setup or the HTTP client cannot be built.
    pub fn new(
        policy: AddressPolicy,
        connect_timeout: Duration,
        attempt_timeout: Duration,
    ) -> Result<Self, String> {
        crate::tls::install_default_provider();
        let client = reqwest::Client::builder()
            .tls_backend_preconfigured(crate::tls::client_config()?)
            .dns_resolver(PolicyResolver { policy })
            .no_proxy()
            .redirect(reqwest::redirect::Policy::none())
            .referer(false)
            .connect_timeout(connect_timeout)
            .timeout(attempt_timeout)
            .build()
            .map_err(|e| format!("cannot build the webhook client: {e}"))?;
        Ok(Self {
            client,
            policy,
            connect_timeout,
            attempt_timeout,
        })
    }

    /// Makes one attempt to deliver `body` (JSON) to `url` with the signature `headers`. Never
    /// fails: every outcome, including a refused or invalid URL, is an [`Attempt`].
    pub async fn send(&self, url: &str, headers: &SignedHeaders, body: &[u8]) -> Attempt {
        let started = Instant::now();
        let (status_code, error) = match self.attempt(url, headers, body, started).await {
            Ok(status) if (200..300).contains(&status) => (Some(status), None),
            Ok(status) => (Some(status), Some(format!("answered {status}"))),
            Err(error) => (None, Some(error)),
        };
        Attempt {
            status_code,
            duration_ms: u32::try_from(started.elapsed().as_millis()).unwrap_or(u32::MAX),
            error,
        }
    }

    /// The endpoint's status, or why there is none.
    async fn attempt(
        &self,
        url: &str,
        headers: &SignedHeaders,
        body: &[u8],
        started: Instant,
    ) -> Result<u16, String> {
        let url = self.checked_url(url)?;
        let request = self
            .client
            .post(url)
            .headers(request_headers(headers)?)
            .body(body.to_vec());
        let deadline = started + self.attempt_timeout;
        let mut response = tokio::time::timeout_at(deadline, request.send())
            .await
            .map_err(|_| self.timed_out())?
            .map_err(|e| self.describe_error(&e))?;
        let status = response.status().as_u16();
        // The answer is the status; the body is read (a little) only so that a short answer
        // leaves the connection reusable. Its errors and slowness do not change the outcome.
        let _ = tokio::time::timeout_at(deadline, discard_body(&mut response)).await;
        Ok(status)
    }

    /// The checks that need no network, and the policy for a URL naming an address (which
    /// no resolver sees).
    fn checked_url(&self, url: &str) -> Result<reqwest::Url, String> {
        let (parsed, host) = parse_endpoint(url).map_err(|p| match p {
            UrlProblem::Refused { addr } => refused(addr),
            other => format!("invalid url: {other}"),
        })?;
        if let EndpointHost::Ip(ip) = host
            && !self.policy.allows(ip)
        {
            return Err(refused(ip));
        }
        Ok(parsed)
    }

    fn timed_out(&self) -> String {
        format!("timed out after {}", seconds(self.attempt_timeout))
    }

    /// A short account of a transport failure, without internals.
    fn describe_error(&self, error: &reqwest::Error) -> String {
        if let Some(found) = find_cause::<AddressRefused>(error) {
            return refused(found.0);
        }
        if find_cause::<NoAddress>(error).is_some() {
            return "host does not resolve to any address".into();
        }
        if let Some(tls) = find_cause::<rustls::Error>(error) {
            return format!("tls error: {tls}");
        }
        if let Some(io) = find_cause::<std::io::Error>(error) {
            match io.kind() {
                std::io::ErrorKind::ConnectionRefused => return "connection refused".into(),
                std::io::ErrorKind::ConnectionReset => return "connection reset".into(),
                _ => {}
            }
        }
        if error.is_timeout() {
            return match error.is_connect() {
                true => format!(
                    "connection timed out after {}",
                    seconds(self.connect_timeout)
                ),
                false => self.timed_out(),
            };
        }
        if error.is_connect() {
            return "could not connect".into();
        }
        "connection failed before an answer".into()
    }
}

fn refused(ip: IpAddr) -> String {
    format!("address refused: {ip} is {}", describe(ip))
}

/// "10 s" for whole seconds, "300 ms" otherwise.
fn seconds(d: Duration) -> String {
    match d.subsec_millis() {
        0 => format!("{} s", d.as_secs()),
        _ => format!("{} ms", d.as_millis()),
    }
}

fn request_headers(signed: &SignedHeaders) -> Result<HeaderMap, String> {
    let value = |text: &str| {
        HeaderValue::from_str(text).map_err(|_| "invalid signature header value".to_string())
    };
    let mut map = HeaderMap::new();
    map.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    map.insert(USER_AGENT, HeaderValue::from_static(USER_AGENT_VALUE));
    map.insert(HEADER_ID, value(&signed.id)?);
    map.insert(HEADER_TIMESTAMP, value(&signed.timestamp.to_string())?);
    map.insert(HEADER_SIGNATURE, value(&signed.signature)?);
    Ok(map)
}

/// Reads at most [`MAX_ANSWER_BYTES`] of the body, keeping none of it; dropping the response
/// afterwards closes a connection whose body was not finished.
async fn discard_body(response: &mut reqwest::Response) {
    let mut read = 0usize;
    while read < MAX_ANSWER_BYTES {
        match response.chunk().await {
            Ok(Some(chunk)) => read += chunk.len(),
            Ok(None) | Err(_) => return,
        }
    }
}

/// The first error of type `E` in the chain of causes of `error`.
fn find_cause<'a, E: StdError + 'static>(error: &'a (dyn StdError + 'static)) -> Option<&'a E> {
    let mut current: Option<&(dyn StdError + 'static)> = Some(error);
    while let Some(err) = current {
        if let Some(found) = err.downcast_ref::<E>() {
            return Some(found);
        }
        current = err.source();
    }
    None
}

/// Every address a host name resolved to was refused by the policy (the first is kept).
#[derive(Debug, thiserror::Error)]
#[error("address refused: {0}")]
struct AddressRefused(IpAddr);

/// A host name resolved to no address at all.
#[derive(Debug, thiserror::Error)]
#[error("host resolves to no address")]
struct NoAddress;

/// Resolves endpoint host names with the system resolver and drops the addresses the policy
/// refuses, so every connection, not only the registration check, goes to an allowed address.
#[derive(Clone, Copy, Debug)]
struct PolicyResolver {
    policy: AddressPolicy,
}

impl Resolve for PolicyResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let policy = self.policy;
        let host = name.as_str().to_owned();
        Box::pin(async move {
            let resolved = tokio::net::lookup_host((host.as_str(), 0)).await?;
            let allowed = keep_allowed(policy, resolved)?;
            Ok(Box::new(allowed.into_iter()) as Addrs)
        })
    }
}

/// The allowed addresses among `resolved`; an error if none is.
fn keep_allowed(
    policy: AddressPolicy,
    resolved: impl IntoIterator<Item = SocketAddr>,
) -> Result<Vec<SocketAddr>, Box<dyn StdError + Send + Sync>> {
    let (allowed, refused): (Vec<SocketAddr>, Vec<SocketAddr>) = resolved
        .into_iter()
        .partition(|addr| policy.allows(addr.ip()));
    match (allowed.is_empty(), refused.first()) {
        (false, _) => Ok(allowed),
        (true, Some(first)) => Err(Box::new(AddressRefused(first.ip()))),
        (true, None) => Err(Box::new(NoAddress)),
    }
}

#[cfg(test)]
mod tests {
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
        let headers = sign(&secret, "msg_01J", now, BODY);
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
        let refused = keep_allowed(public, [addr("10.0.0.1:0"), addr("127.0.0.1:0")])
            .expect_err("none allowed");
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
}
