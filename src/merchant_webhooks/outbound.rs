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
#[path = "outbound_tests.rs"]
mod tests;
