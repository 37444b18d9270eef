//! Tests of `address`.

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
