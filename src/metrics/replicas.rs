//! The metrics of reads on replicas.

use ::metrics::{counter, describe_counter, describe_gauge, gauge};

/// GraphQL reads over HTTP, by the `target` that answered them (`primary`, `replica`), when
/// replicas are configured.
pub const READS_TOTAL: &str = "graphpay_reads_total";
/// Reads that could have gone to a replica and went to the primary, by `reason`.
pub const READ_FALLBACKS_TOTAL: &str = "graphpay_read_fallbacks_total";
/// How far behind the primary each `replica` is known to be, in seconds (+Inf: not known).
pub const REPLICA_LAG_SECONDS: &str = "graphpay_replica_lag_seconds";
/// Whether each `replica` answered its last check (1) or not (0).
pub const REPLICA_UP: &str = "graphpay_replica_up";

/// The `reason`s of [`READ_FALLBACKS_TOTAL`].
pub const FALLBACK_REASONS: [&str; 5] = [
    // No replica within the lag bound (a read without a token).
    "lagging",
    // No replica has replayed as far as the read's token.
    "behind_token",
    // The token sent is not one.
    "unknown_token",
    // No replica answered its last check.
    "unavailable",
    // The replica failed the read (a recovery conflict, or it went away); answered again on
    // the primary within the same request.
    "replica_error",
];

/// A read answered by `target`.
pub fn record_read(target: &'static str) {
    counter!(READS_TOTAL, "target" => target).increment(1);
}

/// A read sent to the primary instead of a replica, for `reason`.
pub fn record_fallback(reason: &'static str) {
    counter!(READ_FALLBACKS_TOTAL, "reason" => reason).increment(1);
}

/// What the last check of a replica found.
pub fn record_replica(label: &str, up: bool, lag_seconds: f64) {
    gauge!(REPLICA_UP, "replica" => label.to_string()).set(if up { 1.0 } else { 0.0 });
    gauge!(REPLICA_LAG_SECONDS, "replica" => label.to_string()).set(lag_seconds);
}

/// The HELP lines, and every series at 0 so that a scrape shows them before the first read.
pub(super) fn describe() {
    describe_counter!(
        READS_TOTAL,
        "GraphQL reads over HTTP by the server that answered them (primary, replica)"
    );
    describe_counter!(
        READ_FALLBACKS_TOTAL,
        "Reads sent to the primary instead of a replica, by reason"
    );
    describe_gauge!(
        REPLICA_LAG_SECONDS,
        "How far behind the primary each replica is known to be, in seconds"
    );
    describe_gauge!(REPLICA_UP, "Whether each replica answered its last check");
}

/// Every series of the read counters at 0.
pub fn register() {
    for target in ["primary", "replica"] {
        counter!(READS_TOTAL, "target" => target).increment(0);
    }
    for reason in FALLBACK_REASONS {
        counter!(READ_FALLBACKS_TOTAL, "reason" => reason).increment(0);
    }
}
