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
mod tests {
    use super::*;

    const PUBLIC: AddressPolicy = AddressPolicy {
        allow_private: false,
    };
    const PRIVATE_OK: AddressPolicy = AddressPolicy {
        allow_private: true,
    };

    fn ip(s: &str) -> IpAddr {
        s.parse().expect("test address")
    }

    /// (address, kind or None for public). Each range is tested at its first and last address
    /// and just outside where the neighbour is public.
    const CASES: &[(&str, Option<Kind>)] = &[
        // 0.0.0.0/8
        ("0.0.0.0", Some(Kind::Unspecified)),
        ("0.0.0.1", Some(Kind::ThisNetwork)),
        ("0.255.255.255", Some(Kind::ThisNetwork)),
        ("1.0.0.0", None),
        // 10/8
        ("9.255.255.255", None),
        ("10.0.0.0", Some(Kind::Private)),
        ("10.0.0.1", Some(Kind::Private)),
        ("10.255.255.255", Some(Kind::Private)),
        ("11.0.0.0", None),
        // 100.64/10
        ("100.63.255.255", None),
        ("100.64.0.0", Some(Kind::SharedAddressSpace)),
        ("100.127.255.255", Some(Kind::SharedAddressSpace)),
        ("100.128.0.0", None),
        // 127/8
        ("126.255.255.255", None),
        ("127.0.0.1", Some(Kind::Loopback)),
        ("127.255.255.255", Some(Kind::Loopback)),
        ("128.0.0.0", None),
        // 169.254/16
        ("169.253.255.255", None),
        ("169.254.0.0", Some(Kind::LinkLocal)),
        ("169.254.169.254", Some(Kind::LinkLocal)),
        ("169.254.255.255", Some(Kind::LinkLocal)),
        ("169.255.0.0", None),
        // 172.16/12
        ("172.15.255.255", None),
        ("172.16.0.0", Some(Kind::Private)),
        ("172.31.255.255", Some(Kind::Private)),
        ("172.32.0.0", None),
        // 192.0.0.0/24
        ("191.255.255.255", None),
        ("192.0.0.0", Some(Kind::ProtocolAssignments)),
        ("192.0.0.255", Some(Kind::ProtocolAssignments)),
        ("192.0.1.0", None),
        // 192.0.2.0/24
        ("192.0.2.0", Some(Kind::Documentation)),
        ("192.0.2.255", Some(Kind::Documentation)),
        ("192.0.3.0", None),
        // 192.88.99.0/24
        ("192.88.98.255", None),
        ("192.88.99.1", Some(Kind::Reserved)),
        ("192.88.100.0", None),
        // 192.168/16
        ("192.167.255.255", None),
        ("192.168.0.0", Some(Kind::Private)),
        ("192.168.255.255", Some(Kind::Private)),
        ("192.169.0.0", None),
        // 198.18/15
        ("198.17.255.255", None),
        ("198.18.0.0", Some(Kind::Benchmarking)),
        ("198.19.255.255", Some(Kind::Benchmarking)),
        ("198.20.0.0", None),
        // 198.51.100/24, 203.0.113/24
        ("198.51.99.255", None),
        ("198.51.100.0", Some(Kind::Documentation)),
        ("198.51.100.255", Some(Kind::Documentation)),
        ("198.51.101.0", None),
        ("203.0.112.255", None),
        ("203.0.113.0", Some(Kind::Documentation)),
        ("203.0.113.255", Some(Kind::Documentation)),
        ("203.0.114.0", None),
        // 224/4 multicast, 240/4 reserved, broadcast
        ("223.255.255.255", None),
        ("224.0.0.0", Some(Kind::Multicast)),
        ("239.255.255.255", Some(Kind::Multicast)),
        ("240.0.0.0", Some(Kind::Reserved)),
        ("255.255.255.254", Some(Kind::Reserved)),
        ("255.255.255.255", Some(Kind::Broadcast)),
        // public IPv4
        ("8.8.8.8", None),
        ("93.184.215.14", None),
        // IPv6 basics
        ("::", Some(Kind::Unspecified)),
        ("::1", Some(Kind::Loopback)),
        ("::2", Some(Kind::Reserved)),
        ("::10.0.0.1", Some(Kind::Reserved)), // IPv4-compatible, deprecated
        ("100::1", Some(Kind::Reserved)),     // discard-only
        ("fec0::1", Some(Kind::Reserved)),    // site-local, deprecated
        ("5f00::1", Some(Kind::Reserved)),    // SRv6 SIDs
        (
            "1fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
            Some(Kind::Reserved),
        ),
        ("4000::", Some(Kind::Reserved)),
        // fc00::/7
        (
            "fbff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
            Some(Kind::Reserved),
        ),
        ("fc00::", Some(Kind::UniqueLocal)),
        ("fd12:3456::1", Some(Kind::UniqueLocal)),
        (
            "fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
            Some(Kind::UniqueLocal),
        ),
        // fe80::/10
        ("fe80::", Some(Kind::LinkLocal)),
        (
            "febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
            Some(Kind::LinkLocal),
        ),
        // ff00::/8
        ("ff02::1", Some(Kind::Multicast)),
        ("ff0e::1", Some(Kind::Multicast)),
        // 2001:db8::/32, 3fff::/20, 2001::/23
        ("2001:db7:ffff:ffff:ffff:ffff:ffff:ffff", None),
        ("2001:db8::", Some(Kind::Documentation)),
        (
            "2001:db8:ffff:ffff:ffff:ffff:ffff:ffff",
            Some(Kind::Documentation),
        ),
        ("2001:db9::", None),
        ("2001::1", Some(Kind::ProtocolAssignments)), // Teredo
        ("2001:2::1", Some(Kind::ProtocolAssignments)), // benchmarking
        (
            "2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff",
            Some(Kind::ProtocolAssignments),
        ),
        ("2001:200::", None),
        ("3ffe:ffff::", None),
        ("3fff::", Some(Kind::Documentation)),
        (
            "3fff:fff:ffff:ffff:ffff:ffff:ffff:ffff",
            Some(Kind::Documentation),
        ),
        ("3fff:1000::", None),
        // public IPv6
        ("2606:4700::1111", None),
        ("2a00:1450:4001::1", None),
        // IPv4-mapped ::ffff:0:0/96
        ("::ffff:10.0.0.1", Some(Kind::Private)),
        ("::ffff:127.0.0.1", Some(Kind::Loopback)),
        ("::ffff:169.254.169.254", Some(Kind::LinkLocal)),
        ("::ffff:8.8.8.8", None),
        // NAT64 64:ff9b::/96
        ("64:ff9b::10.0.0.1", Some(Kind::Private)),
        ("64:ff9b::127.0.0.1", Some(Kind::Loopback)),
        ("64:ff9b::8.8.8.8", None),
        ("64:ff9b:1::8.8.8.8", Some(Kind::Reserved)), // local-use NAT64
        // 6to4 2002::/16 (IPv4 in bits 16..48)
        ("2002:0a00:0001::1", Some(Kind::Private)),
        ("2002:7f00:0001::", Some(Kind::Loopback)),
        ("2002:c0a8:0101::1", Some(Kind::Private)),
        ("2002:0808:0808::1", None),
    ];

    #[test]
    fn every_range_is_classified() {
        for (addr, kind) in CASES {
            assert_eq!(special_kind(ip(addr)), *kind, "{addr}");
        }
    }

    #[test]
    fn public_policy_allows_only_public_addresses() {
        for (addr, kind) in CASES {
            assert_eq!(PUBLIC.allows(ip(addr)), kind.is_none(), "{addr}");
        }
    }

    #[test]
    fn private_policy_allows_unicast_but_not_unspecified_broadcast_or_multicast() {
        for addr in [
            "127.0.0.1",
            "10.0.0.1",
            "192.168.1.1",
            "::1",
            "fd00::1",
            "fe80::1",
        ] {
            assert!(PRIVATE_OK.allows(ip(addr)), "{addr}");
        }
        for addr in ["0.0.0.0", "255.255.255.255", "224.0.0.1", "::", "ff02::1"] {
            assert!(!PRIVATE_OK.allows(ip(addr)), "{addr}");
        }
        assert!(PRIVATE_OK.allows(ip("8.8.8.8")));
    }

    #[test]
    fn refusal_reads_as_a_sentence() {
        let problem = UrlProblem::Refused {
            addr: ip("10.0.0.1"),
        };
        assert_eq!(
            problem.to_string(),
            "url resolves to 10.0.0.1, a private address; \
             webhook endpoints must be publicly reachable"
        );
    }

    #[tokio::test]
    async fn syntax_problems_are_reported() {
        let cases = [
            ("ftp://example.com/hook", UrlProblem::Scheme),
            ("mailto:ops@example.com", UrlProblem::Scheme),
            (
                "https://user:pass@example.com/hook",
                UrlProblem::Credentials,
            ),
            ("https://user@example.com/hook", UrlProblem::Credentials),
            ("https://:pass@example.com/hook", UrlProblem::Credentials),
        ];
        for (url, problem) in cases {
            assert_eq!(PUBLIC.check_url(url).await, Err(problem), "{url}");
        }
        assert!(matches!(
            PUBLIC.check_url("not a url").await,
            Err(UrlProblem::Malformed(_))
        ));
        let long = format!("https://example.com/{}", "a".repeat(MAX_URL_LEN));
        assert_eq!(PUBLIC.check_url(&long).await, Err(UrlProblem::TooLong));
    }

    #[tokio::test]
    async fn ip_literals_are_judged_without_resolving() {
        let refused = [
            ("http://10.0.0.1/hook", "10.0.0.1"),
            ("http://127.0.0.1:8080/", "127.0.0.1"),
            ("http://0x7f000001/", "127.0.0.1"),
            ("http://2130706433/", "127.0.0.1"),
            ("http://169.254.169.254/latest/meta-data", "169.254.169.254"),
            ("http://[::1]/", "::1"),
            ("http://[::ffff:10.0.0.1]/", "::ffff:10.0.0.1"),
            ("http://[64:ff9b::a00:1]/", "64:ff9b::a00:1"),
        ];
        for (url, addr) in refused {
            assert_eq!(
                PUBLIC.check_url(url).await,
                Err(UrlProblem::Refused { addr: ip(addr) }),
                "{url}"
            );
        }
        let ok = PUBLIC.check_url("https://93.184.215.14/hook").await;
        assert_eq!(
            ok.map(|u| u.to_string()).as_deref(),
            Ok("https://93.184.215.14/hook")
        );
        assert!(PRIVATE_OK.check_url("http://127.0.0.1:8080/").await.is_ok());
    }

    #[tokio::test]
    async fn host_names_are_resolved_and_every_address_checked() {
        match PUBLIC.check_url("http://localhost:8080/hook").await {
            Err(UrlProblem::Refused { addr }) => assert!(addr.is_loopback(), "{addr}"),
            other => panic!("localhost: {other:?}"),
        }
        assert!(
            PRIVATE_OK
                .check_url("http://localhost:8080/hook")
                .await
                .is_ok()
        );
        assert_eq!(
            PUBLIC.check_url("https://no-such-host.invalid/hook").await,
            Err(UrlProblem::Unresolvable("no-such-host.invalid".into()))
        );
    }
}
