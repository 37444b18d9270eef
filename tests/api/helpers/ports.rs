//! Ports for processes a test starts, stops and starts again on the same port.
//!
//! A port taken from the kernel (`bind` to port 0) and released lies in its ephemeral range,
//! which every outgoing connection on the machine also draws from: while a test's process is
//! down, one of the thousands of connections the other tests open can take its port, and the
//! restart then fails to listen. The ports handed out here lie outside that range, where the
//! kernel never assigns one on its own.

use std::sync::atomic::{AtomicU32, Ordering};

/// Where the ports handed out begin, below the kernel's ephemeral range.
const FIRST: u32 = 20_000;

/// A port on 127.0.0.1 that is free now and that no outgoing connection or `bind` to port 0
/// can take later; each call in this process gets a different one.
pub fn free_port() -> u16 {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let (low, high) = ephemeral_range();
    // Below the range if there is room there, above it otherwise.
    let (first, span) = if low > FIRST + 1_000 {
        (FIRST, low - FIRST)
    } else {
        (high + 1, 65_536 - (high + 1))
    };
    assert!(
        span >= 1_000,
        "no ports outside the ephemeral range {low}-{high}"
    );
    // Test processes running side by side start at different places.
    let start = std::process::id() % span;
    for _ in 0..span {
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let port = (first + (start + n) % span) as u16;
        if std::net::TcpListener::bind(("127.0.0.1", port)).is_ok() {
            return port;
        }
    }
    panic!("no free port between {first} and {}", first + span - 1);
}

/// The kernel's ephemeral port range (`net.ipv4.ip_local_port_range`), or Linux's default.
fn ephemeral_range() -> (u32, u32) {
    std::fs::read_to_string("/proc/sys/net/ipv4/ip_local_port_range")
        .ok()
        .and_then(|text| {
            let mut bounds = text.split_whitespace().map(|n| n.parse::<u32>().ok());
            Some((bounds.next()??, bounds.next()??))
        })
        .unwrap_or((32_768, 60_999))
}

#[test]
fn ports_lie_outside_the_ephemeral_range_and_differ() {
    let (low, high) = ephemeral_range();
    let ports: Vec<u16> = (0..20).map(|_| free_port()).collect();
    for port in &ports {
        assert!(
            u32::from(*port) < low || u32::from(*port) > high,
            "{port} lies in {low}-{high}"
        );
    }
    let distinct: std::collections::HashSet<_> = ports.iter().collect();
    assert_eq!(distinct.len(), ports.len(), "{ports:?}");
}
