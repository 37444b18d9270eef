//! Metrics for operators: the metric names, the functions the gateway's flows call to record
//! what happened, and (in `exporter`) the Prometheus endpoint that serves them.
//!
//! Recording goes through the `metrics` facade, so it costs nothing until `graphpay serve`
//! installs the Prometheus recorder (`--metrics-listen`). Every label value is bounded by the
//! code or the schema, never by what a client sends.

pub mod exporter;

use std::time::Duration;

use ::metrics::{counter, describe_counter, describe_gauge, describe_histogram, gauge, histogram};

/// GraphQL requests over HTTP and subscription starts, by `operation` and `code`.
pub const REQUESTS_TOTAL: &str = "graphpay_requests_total";
/// How long those took, in seconds, by `operation` and `code`.
pub const REQUEST_DURATION_SECONDS: &str = "graphpay_request_duration_seconds";
/// Query cost points spent against accounts' budgets.
pub const QUERY_COST_SPENT_TOTAL: &str = "graphpay_query_cost_spent_total";
/// Requests refused because the account's cost budget was spent.
pub const THROTTLED_REQUESTS_TOTAL: &str = "graphpay_throttled_requests_total";
/// Payments created (replays create none).
pub const PAYMENTS_CREATED_TOTAL: &str = "graphpay_payments_created_total";
/// Requests answered with the stored outcome of an earlier request with the same key.
pub const IDEMPOTENCY_REPLAYS_TOTAL: &str = "graphpay_idempotency_replays_total";
/// Keys presented again with a different request (`IDEMPOTENCY_KEY_REUSED`), by `operation`.
pub const IDEMPOTENCY_KEY_CONFLICTS_TOTAL: &str = "graphpay_idempotency_key_conflicts_total";
/// Processor attempts, by `operation` and `outcome`.
pub const PROCESSOR_ATTEMPTS_TOTAL: &str = "graphpay_processor_attempts_total";
/// Processor retries (attempts after the first), by `operation`.
pub const PROCESSOR_RETRIES_TOTAL: &str = "graphpay_processor_retries_total";
/// How long each processor attempt took, in seconds, by `operation`.
pub const PROCESSOR_ATTEMPT_DURATION_SECONDS: &str = "graphpay_processor_attempt_duration_seconds";
/// The processor circuit breaker: 0 closed, 1 open, 2 half-open.
pub const PROCESSOR_BREAKER_STATE: &str = "graphpay_processor_breaker_state";
/// Database pool connections, by `state` (`idle` or `in_use`).
pub const DB_POOL_CONNECTIONS: &str = "graphpay_db_pool_connections";
/// The database pool's size limit.
pub const DB_POOL_MAX_CONNECTIONS: &str = "graphpay_db_pool_max_connections";
/// Subscriptions open now.
pub const SUBSCRIPTIONS_OPEN: &str = "graphpay_subscriptions_open";
/// Client connections open now.
pub const CONNECTIONS_OPEN: &str = "graphpay_connections_open";

/// The `operation` label of a request with no operation the schema knows: one that did not
/// parse, named no resolvable root field, or was refused before the schema saw it.
pub const UNKNOWN_OPERATION: &str = "unknown";
/// The `code` label of a request answered without errors.
pub const OK: &str = "OK";

/// Values of [`PROCESSOR_BREAKER_STATE`].
pub mod breaker_state {
    pub const CLOSED: f64 = 0.0;
    pub const OPEN: f64 = 1.0;
    pub const HALF_OPEN: f64 = 2.0;
}

/// A GraphQL request (or subscription start) answered with `code` after `elapsed`.
pub fn record_request(operation: &str, code: &str, elapsed: Duration) {
    let labels = [
        ("operation", operation.to_string()),
        ("code", code.to_string()),
    ];
    counter!(REQUESTS_TOTAL, &labels).increment(1);
    histogram!(REQUEST_DURATION_SECONDS, &labels).record(elapsed.as_secs_f64());
}

/// Query cost points charged to an account's budget.
pub fn record_cost_spent(points: u64) {
    counter!(QUERY_COST_SPENT_TOTAL).increment(points);
}

/// A request refused with `THROTTLED`.
pub fn record_throttled() {
    counter!(THROTTLED_REQUESTS_TOTAL).increment(1);
}

pub fn record_payment_created() {
    counter!(PAYMENTS_CREATED_TOTAL).increment(1);
}

pub fn record_idempotency_replay() {
    counter!(IDEMPOTENCY_REPLAYS_TOTAL).increment(1);
}

/// A key presented with a different request; `operation` is the key's operation name.
pub fn record_idempotency_key_conflict(operation: &str) {
    counter!(IDEMPOTENCY_KEY_CONFLICTS_TOTAL, "operation" => operation.to_string()).increment(1);
}

/// One processor attempt of `operation` (`charge`, `refund`, `lookup_charge`) that ended in
/// `outcome` (`ok`, `retryable`, `circuit_open`, `fatal`).
pub fn record_processor_attempt(operation: &'static str, outcome: &'static str, elapsed: Duration) {
    counter!(PROCESSOR_ATTEMPTS_TOTAL, "operation" => operation, "outcome" => outcome).increment(1);
    histogram!(PROCESSOR_ATTEMPT_DURATION_SECONDS, "operation" => operation)
        .record(elapsed.as_secs_f64());
}

/// A processor operation about to be tried again.
pub fn record_processor_retry(operation: &'static str) {
    counter!(PROCESSOR_RETRIES_TOTAL, "operation" => operation).increment(1);
}

/// The circuit breaker's state, one of [`breaker_state`].
pub fn record_breaker_state(state: f64) {
    gauge!(PROCESSOR_BREAKER_STATE).set(state);
}

/// What the database pool holds now.
pub fn record_pool(idle: u32, in_use: u32, max: u32) {
    gauge!(DB_POOL_CONNECTIONS, "state" => "idle").set(f64::from(idle));
    gauge!(DB_POOL_CONNECTIONS, "state" => "in_use").set(f64::from(in_use));
    gauge!(DB_POOL_MAX_CONNECTIONS).set(f64::from(max));
}

/// The HELP lines of every metric.
fn describe() {
    describe_counter!(
        REQUESTS_TOTAL,
        "GraphQL requests over HTTP and subscription starts, by first root field and error code"
    );
    describe_histogram!(
        REQUEST_DURATION_SECONDS,
        "Time to answer a GraphQL request or start a subscription, in seconds"
    );
    describe_counter!(QUERY_COST_SPENT_TOTAL, "Query cost points spent");
    describe_counter!(
        THROTTLED_REQUESTS_TOTAL,
        "Requests refused because the account's cost budget was spent"
    );
    describe_counter!(PAYMENTS_CREATED_TOTAL, "Payments created");
    describe_counter!(
        IDEMPOTENCY_REPLAYS_TOTAL,
        "Requests answered with the stored outcome of an earlier one with the same key"
    );
    describe_counter!(
        IDEMPOTENCY_KEY_CONFLICTS_TOTAL,
        "Idempotency keys presented again with a different request"
    );
    describe_counter!(PROCESSOR_ATTEMPTS_TOTAL, "Processor attempts, by outcome");
    describe_counter!(
        PROCESSOR_RETRIES_TOTAL,
        "Processor attempts after the first"
    );
    describe_histogram!(
        PROCESSOR_ATTEMPT_DURATION_SECONDS,
        "Time of one processor attempt, in seconds"
    );
    describe_gauge!(
        PROCESSOR_BREAKER_STATE,
        "Processor circuit breaker: 0 closed, 1 open, 2 half-open"
    );
    describe_gauge!(
        DB_POOL_CONNECTIONS,
        "Database pool connections, idle or in use"
    );
    describe_gauge!(DB_POOL_MAX_CONNECTIONS, "Database pool size limit");
    describe_gauge!(SUBSCRIPTIONS_OPEN, "Subscriptions open");
    describe_gauge!(CONNECTIONS_OPEN, "Client connections open");
}
