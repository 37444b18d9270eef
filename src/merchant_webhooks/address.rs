//! Which webhook endpoints the gateway will call. A merchant's endpoint must be a public
//! `http` or `https` URL: an address inside the gateway's own network (loopback, private
//! ranges, link-local cloud metadata, ...) is refused, so that registering a webhook cannot be
//! used to reach internal services. Addresses that embed an IPv4 address (IPv4-mapped, NAT64,
//! 6to4) are judged by the address they embed.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::time::Duration;

use reqwest::Url;

/// The longest endpoint URL accepted, in bytes.
pub const MAX_URL_LEN: usize = 2048;

/// How long [`AddressPolicy::check_url`] waits for the endpoint's host name to resolve.
pub const RESOLVE_TIMEOUT: Duration = Duration::from_secs(2);

/// Which addresses webhook deliveries may go to.
#[derive(Clone, Copy, Debug)]
pub struct AddressPolicy {
    /// Also allow non-public unicast addresses (loopback, private, link-local, ...), for local
    /// development and tests. Unspecified, broadcast and multicast addresses stay refused.
    pub allow_private: bool,
}

/// Why an endpoint URL is not accepted. Each message is a sentence meant for the API client
/// that registered the URL.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum UrlProblem {
    /// The text is not a URL.
    #[error("url is not valid: {0}")]
    Malformed(String),
    /// The scheme is neither `http` nor `https`.
    #[error("url must start with http:// or https://")]
    Scheme,
    /// The URL names no host.
    #[error("url must name a host")]
    NoHost,
    /// The URL carries a user name or password.
    #[error("url must not contain a user name or password")]
    Credentials,
    /// The URL is longer than [`MAX_URL_LEN`] bytes.
    #[error("url must be at most {MAX_URL_LEN} characters long")]
    TooLong,
    /// The host name did not resolve (in time) to any address; carries the host name.
    #[error("url host {0} does not resolve to any address")]
    Unresolvable(String),
    /// The host is, or resolves to, an address the policy refuses.
    #[error(
        "url resolves to {addr}, {}; webhook endpoints must be publicly reachable",
        describe(*addr)
    )]
    Refused {
        /// The first refused address.
        addr: IpAddr,
    },
}

impl AddressPolicy {
    /// The policy for production: public addresses only.
    pub const PUBLIC_ONLY: AddressPolicy = AddressPolicy {
        allow_private: false,
    };

    /// Whether a delivery may be sent to `ip`.
    pub fn allows(&self, ip: IpAddr) -> bool {
        match special_kind(ip) {
            None => true,
            Some(kind) => self.allow_private && kind.is_unicast(),
        }
    }

    /// Checks an endpoint URL a merchant registers: parses it, checks its scheme, host, length
    /// and the absence of credentials, resolves its host (waiting at most
    /// [`RESOLVE_TIMEOUT`]) and refuses it if any address it resolves to is not allowed.
    pub async fn check_url(&self, url: &str) -> Result<Url, UrlProblem> {
        let (parsed, host) = parse_endpoint(url)?;
        match host {
            EndpointHost::Ip(ip) => self.check_ip(ip)?,
            EndpointHost::Name(name) => {
                let port = parsed.port_or_known_default().unwrap_or(80);
                for ip in resolve(&name, port).await? {
                    self.check_ip(ip)?;
                }
            }
        }
        Ok(parsed)
    }

    /// `Ok` if `ip` is allowed, else the problem to report.
    pub(crate) fn check_ip(&self, ip: IpAddr) -> Result<(), UrlProblem> {
        if self.allows(ip) {
            Ok(())
        } else {
            Err(UrlProblem::Refused { addr: ip })
        }
    }
}

impl Default for AddressPolicy {
    /// Public addresses only.
    fn default() -> Self {
        Self::PUBLIC_ONLY
    }
}

/// The host of an endpoint URL: an address written in the URL, or a name to resolve.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum EndpointHost {
    Ip(IpAddr),
    Name(String),
}

/// The checks that need no network: length, syntax, scheme, credentials, host.
pub(crate) fn parse_endpoint(url: &str) -> Result<(Url, EndpointHost), UrlProblem> {
    if url.len() > MAX_URL_LEN {
        return Err(UrlProblem::TooLong);
    }
    let parsed = Url::parse(url).map_err(|e| UrlProblem::Malformed(e.to_string()))?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(UrlProblem::Scheme);
    }
    if !parsed.username().is_empty() || parsed.password().is_some() {
        return Err(UrlProblem::Credentials);
    }
    let host = match parsed.host_str() {
        Some(text) if !text.is_empty() => endpoint_host(text),
        _ => return Err(UrlProblem::NoHost),
    };
    Ok((parsed, host))
}

/// Reads a host as the URL parser serialised it: IPv6 in brackets, IPv4 in dotted decimal
/// (whatever form the URL used, e.g. `0x7f000001`), anything else is a name.
fn endpoint_host(text: &str) -> EndpointHost {
    let unbracketed = text
        .strip_prefix('[')
        .and_then(|t| t.strip_suffix(']'))
        .and_then(|t| t.parse::<Ipv6Addr>().ok());
    match (unbracketed, text.parse::<Ipv4Addr>()) {
        (Some(v6), _) => EndpointHost::Ip(IpAddr::V6(v6)),
        (None, Ok(v4)) => EndpointHost::Ip(IpAddr::V4(v4)),
        (None, Err(_)) => EndpointHost::Name(text.to_owned()),
    }
}

async fn resolve(name: &str, port: u16) -> Result<Vec<IpAddr>, UrlProblem> {
    let unresolvable = || UrlProblem::Unresolvable(name.to_owned());
    let lookup = tokio::net::lookup_host((name, port));
    let addrs = tokio::time::timeout(RESOLVE_TIMEOUT, lookup)
        .await
        .map_err(|_| unresolvable())?
        .map_err(|_| unresolvable())?;
    let ips: Vec<IpAddr> = addrs.map(|a| a.ip()).collect();
    if ips.is_empty() {
        return Err(unresolvable());
    }
    Ok(ips)
}

/// "a private address", "a loopback address", ... for an address the public-only policy
/// refuses; "a public address" otherwise.
pub fn describe(ip: IpAddr) -> &'static str {
    special_kind(ip).map_or("a public address", Kind::phrase)
}

/// The kinds of address that are not publicly reachable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Unspecified,
    ThisNetwork,
    Loopback,
    Private,
    SharedAddressSpace,
    LinkLocal,
    ProtocolAssignments,
    Documentation,
    Benchmarking,
    Multicast,
    Broadcast,
    Reserved,
    UniqueLocal,
}

impl Kind {
    fn phrase(self) -> &'static str {
        match self {
            Kind::Unspecified => "an unspecified address",
            Kind::ThisNetwork => "a \"this network\" address",
            Kind::Loopback => "a loopback address",
            Kind::Private => "a private address",
            Kind::SharedAddressSpace => "a shared (carrier-grade NAT) address",
            Kind::LinkLocal => "a link-local address",
            Kind::ProtocolAssignments => "an IETF protocol address",
            Kind::Documentation => "a documentation address",
            Kind::Benchmarking => "a benchmarking address",
            Kind::Multicast => "a multicast address",
            Kind::Broadcast => "a broadcast address",
            Kind::Reserved => "a reserved address",
            Kind::UniqueLocal => "a unique-local address",
        }
    }

    /// Whether a connection to such an address can reach one host.
    fn is_unicast(self) -> bool {
        !matches!(self, Kind::Unspecified | Kind::Multicast | Kind::Broadcast)
    }
}

/// `None` for a globally routable address, else why it is not.
fn special_kind(ip: IpAddr) -> Option<Kind> {
    match ip {
        IpAddr::V4(v4) => v4_kind(v4),
        IpAddr::V6(v6) => v6_kind(v6),
    }
}

/// IPv4 special-purpose ranges (IANA IPv4 Special-Purpose Address Registry), first match wins.
const V4_RANGES: &[([u8; 4], u8, Kind)] = &[
    ([0, 0, 0, 0], 32, Kind::Unspecified),
    ([0, 0, 0, 0], 8, Kind::ThisNetwork),
    ([10, 0, 0, 0], 8, Kind::Private),
    ([100, 64, 0, 0], 10, Kind::SharedAddressSpace),
    ([127, 0, 0, 0], 8, Kind::Loopback),
    ([169, 254, 0, 0], 16, Kind::LinkLocal),
    ([172, 16, 0, 0], 12, Kind::Private),
    ([192, 0, 0, 0], 24, Kind::ProtocolAssignments),
    ([192, 0, 2, 0], 24, Kind::Documentation),
    ([192, 88, 99, 0], 24, Kind::Reserved), // deprecated 6to4 relay anycast
    ([192, 168, 0, 0], 16, Kind::Private),
    ([198, 18, 0, 0], 15, Kind::Benchmarking),
    ([198, 51, 100, 0], 24, Kind::Documentation),
    ([203, 0, 113, 0], 24, Kind::Documentation),
    ([224, 0, 0, 0], 4, Kind::Multicast),
    ([255, 255, 255, 255], 32, Kind::Broadcast),
    ([240, 0, 0, 0], 4, Kind::Reserved),
];

fn v4_kind(ip: Ipv4Addr) -> Option<Kind> {
    let bits = u32::from(ip);
    V4_RANGES
        .iter()
        .find(|(net, len, _)| in_prefix32(bits, u32::from_be_bytes(*net), *len))
        .map(|(_, _, kind)| *kind)
}

fn in_prefix32(bits: u32, net: u32, len: u8) -> bool {
    let mask = u32::MAX.checked_shl(32 - u32::from(len)).unwrap_or(0);
    bits & mask == net & mask
}

fn in_prefix128(bits: u128, net: u128, len: u8) -> bool {
    let mask = u128::MAX.checked_shl(128 - u32::from(len)).unwrap_or(0);
    bits & mask == net & mask
}

/// IPv6 ranges refused inside global unicast 2000::/3, first match wins.
const V6_GLOBAL_EXCEPTIONS: &[(u128, u8, Kind)] = &[
    (0x2001_0db8 << 96, 32, Kind::Documentation),
    // IETF protocol assignments, including Teredo 2001::/32 and benchmarking 2001:2::/48.
    (0x2001 << 112, 23, Kind::ProtocolAssignments),
    (0x3fff << 112, 20, Kind::Documentation),
];

fn v6_kind(ip: Ipv6Addr) -> Option<Kind> {
    let bits = u128::from(ip);
    if let Some(embedded) = embedded_v4(bits) {
        return v4_kind(embedded);
    }
    if ip.is_unspecified() {
        return Some(Kind::Unspecified);
    }
    if ip.is_loopback() {
        return Some(Kind::Loopback);
    }
    if in_prefix128(bits, 0xfc00 << 112, 7) {
        return Some(Kind::UniqueLocal);
    }
    if in_prefix128(bits, 0xfe80 << 112, 10) {
        return Some(Kind::LinkLocal);
    }
    if ip.is_multicast() {
        return Some(Kind::Multicast);
    }
    // Only global unicast (2000::/3) is publicly reachable; everything outside it
    // (IPv4-compatible ::/96, discard-only 100::/64, site-local fec0::/10, local NAT64
    // 64:ff9b:1::/48, SRv6 5f00::/16, unassigned space) is refused.
    if !in_prefix128(bits, 0x2000 << 112, 3) {
        return Some(Kind::Reserved);
    }
    V6_GLOBAL_EXCEPTIONS
        .iter()
        .find(|(net, len, _)| in_prefix128(bits, *net, *len))
        .map(|(_, _, kind)| *kind)
}

/// The IPv4 address embedded in an IPv4-mapped (::ffff:0:0/96), NAT64 (64:ff9b::/96) or 6to4
/// (2002::/16) address.
fn embedded_v4(bits: u128) -> Option<Ipv4Addr> {
    let low32 = |b: u128| Ipv4Addr::from(u32::try_from(b & 0xffff_ffff).unwrap_or(0));
    if in_prefix128(bits, 0xffff << 32, 96) || in_prefix128(bits, 0x0064_ff9b << 96, 96) {
        return Some(low32(bits));
    }
    if in_prefix128(bits, 0x2002 << 112, 16) {
        return Some(low32(bits >> 80));
    }
    None
}

#[cfg(test)]
#[path = "address_tests.rs"]
mod tests;
