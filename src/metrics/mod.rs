//! Metrics for operators: the metric names, the functions the gateway's flows call to record
//! what happened, and (in `exporter`) the Prometheus endpoint that serves them.
//!
//! Recording goes through the `metrics` facade, so it costs nothing until `graphpay serve`
//! installs the Prometheus recorder (`--metrics-listen`). Every label value is bounded by the
//! code or the schema, never by what a client sends.

pub mod exporter;
pub mod replicas;

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
pub const BUDGET_CHECKS_TOTAL: &str = "graphpay_budget_checks_total";
pub const BUDGET_FALLBACKS_TOTAL: &str = "graphpay_budget_fallbacks_total";
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
/// Processor calls the open (or probing) circuit refused without calling the processor.
pub const PROCESSOR_BREAKER_REFUSED_TOTAL: &str = "graphpay_processor_breaker_refused_total";
/// Merchant webhook attempts, by `outcome`.
pub const WEBHOOK_ATTEMPTS_TOTAL: &str = "graphpay_webhook_attempts_total";
/// The change feed reader's lag, in events.
pub const FEED_LAG_EVENTS: &str = "graphpay_feed_lag_events";
/// Client connections closed at once because the connection limit was reached.
pub const CONNECTIONS_REFUSED_TOTAL: &str = "graphpay_connections_refused_total";
/// Client connections closed for overstaying a deadline, by `reason` (`header`, `idle`).
pub const CONNECTIONS_TIMED_OUT_TOTAL: &str = "graphpay_connections_timed_out_total";
/// Database pool connections, by `state` (`idle` or `in_use`).
pub const DB_POOL_CONNECTIONS: &str = "graphpay_db_pool_connections";
/// The database pool's size limit.
pub const DB_POOL_MAX_CONNECTIONS: &str = "graphpay_db_pool_max_connections";
/// The async runtime's worker threads (`serve --worker-threads`).
pub const RUNTIME_WORKER_THREADS: &str = "graphpay_runtime_worker_threads";
/// Subscriptions open now.
pub const SUBSCRIPTIONS_OPEN: &str = "graphpay_subscriptions_open";
/// Client connections open now.
pub const CONNECTIONS_OPEN: &str = "graphpay_connections_open";
/// Request documents parsed from their text: texts neither registered (trusted documents are
/// parsed once, at start-up) nor parsed before for an earlier request.
pub const DOCUMENTS_PARSED_TOTAL: &str = "graphpay_documents_parsed_total";
/// Request documents the schema's validation rules ran on: trusted documents and texts the
/// rules passed before skip them.
pub const DOCUMENTS_VALIDATED_TOTAL: &str = "graphpay_documents_validated_total";
/// The card lifecycle's steps (captures, voids, expiries), by `step` and `outcome`.
pub const LIFECYCLE_TOTAL: &str = "graphpay_payment_lifecycle_total";

/// The `operation` label of a request with no operation the schema knows: one that did not
/// parse, named no resolvable root field, or was refused before the schema saw it.
pub const UNKNOWN_OPERATION: &str = "unknown";
/// The `code` label of a request answered without errors.
pub const OK: &str = "OK";

/// The processor operations, the `operation` label of the processor metrics.
pub const PROCESSOR_OPERATIONS: [&str; 7] = [
    "charge",
    "refund",
    "lookup_charge",
    "authorize",
    "capture",
    "void",
    "lookup_capture",
];
/// The (`step`, `outcome`) pairs of [`LIFECYCLE_TOTAL`].
pub const LIFECYCLE_STEPS: [(&str, &str); 10] = [
    ("authorize", "approved"),
    ("capture", "succeeded"),
    ("capture", "refused"),
    ("void", "succeeded"),
    ("void", "refused"),
    ("authorization_expiry", "voided"),
    ("customer_action", "required"),
    ("customer_action", "approved"),
    ("customer_action", "declined"),
    ("customer_action", "expired"),
];
/// The `outcome` label of [`PROCESSOR_ATTEMPTS_TOTAL`].
pub const PROCESSOR_OUTCOMES: [&str; 4] = ["ok", "retryable", "circuit_open", "fatal"];
/// The operations an idempotency key is claimed for, the `operation` label of
/// [`IDEMPOTENCY_KEY_CONFLICTS_TOTAL`].
pub const KEY_OPERATIONS: [&str; 5] = [
    "createPayment",
    "confirmPayment",
    "refundPayment",
    "capturePayment",
    "cancelPayment",
];
/// The `outcome` label of [`WEBHOOK_ATTEMPTS_TOTAL`].
pub const WEBHOOK_OUTCOMES: [&str; 3] = ["acknowledged", "retrying", "gave_up"];
/// The `reason` label of [`CONNECTIONS_TIMED_OUT_TOTAL`].
pub const TIMEOUT_REASONS: [&str; 2] = ["header", "idle"];

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

/// A request's cost taken from a budget kept in `store` (`redis`, or `local`: this instance's
/// own, without Redis or while it cannot be reached).
pub fn record_budget_check(store: &'static str) {
    counter!(BUDGET_CHECKS_TOTAL, "store" => store).increment(1);
}

/// A call to Redis for the shared budget that failed, so the local budget was used.
pub fn record_budget_fallback() {
    counter!(BUDGET_FALLBACKS_TOTAL).increment(1);
}

/// A request's document parsed from its text.
pub fn record_document_parsed() {
    counter!(DOCUMENTS_PARSED_TOTAL).increment(1);
}

/// A request's document run through the schema's validation rules.
pub fn record_document_validated() {
    counter!(DOCUMENTS_VALIDATED_TOTAL).increment(1);
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

/// A processor call refused by the open circuit.
pub fn record_breaker_refusal() {
    counter!(PROCESSOR_BREAKER_REFUSED_TOTAL).increment(1);
}

/// A merchant webhook attempt that ended in `outcome`, one of [`WEBHOOK_OUTCOMES`].
pub fn record_webhook_attempt(outcome: &'static str) {
    counter!(WEBHOOK_ATTEMPTS_TOTAL, "outcome" => outcome).increment(1);
}

/// The change feed reader's lag, in events.
pub fn record_feed_lag(events: u64) {
    gauge!(FEED_LAG_EVENTS).set(events as f64);
}

/// A connection closed at once because the connection limit was reached.
pub fn record_connection_refused() {
    counter!(CONNECTIONS_REFUSED_TOTAL).increment(1);
}

/// A connection closed for overstaying its deadline; `reason` is one of [`TIMEOUT_REASONS`].
pub fn record_connection_timed_out(reason: &'static str) {
    counter!(CONNECTIONS_TIMED_OUT_TOTAL, "reason" => reason).increment(1);
}

/// Registers every counter at 0, with each of its bounded label values, so that each family is
/// in the first scrape and `rate()` and absence alerts work before the first event. Requests
/// are registered as `OK` for each of `root_fields` (the schema's root fields) and `unknown`;
/// their error codes appear with their first occurrence.
pub fn register_counters<'a>(root_fields: impl IntoIterator<Item = &'a str>) {
    for operation in root_fields.into_iter().chain([UNKNOWN_OPERATION]) {
        counter!(REQUESTS_TOTAL, "operation" => operation.to_string(), "code" => OK).increment(0);
    }
    for name in [
        QUERY_COST_SPENT_TOTAL,
        THROTTLED_REQUESTS_TOTAL,
        BUDGET_FALLBACKS_TOTAL,
        PAYMENTS_CREATED_TOTAL,
        IDEMPOTENCY_REPLAYS_TOTAL,
        PROCESSOR_BREAKER_REFUSED_TOTAL,
        CONNECTIONS_REFUSED_TOTAL,
        DOCUMENTS_PARSED_TOTAL,
        DOCUMENTS_VALIDATED_TOTAL,
    ] {
        counter!(name).increment(0);
    }
    for operation in KEY_OPERATIONS {
        counter!(IDEMPOTENCY_KEY_CONFLICTS_TOTAL, "operation" => operation).increment(0);
    }
    for operation in PROCESSOR_OPERATIONS {
        for outcome in PROCESSOR_OUTCOMES {
            counter!(PROCESSOR_ATTEMPTS_TOTAL, "operation" => operation, "outcome" => outcome)
                .increment(0);
        }
        counter!(PROCESSOR_RETRIES_TOTAL, "operation" => operation).increment(0);
    }
    for outcome in WEBHOOK_OUTCOMES {
        counter!(WEBHOOK_ATTEMPTS_TOTAL, "outcome" => outcome).increment(0);
    }
    for reason in TIMEOUT_REASONS {
        counter!(CONNECTIONS_TIMED_OUT_TOTAL, "reason" => reason).increment(0);
    }
    for store in ["redis", "local"] {
        counter!(BUDGET_CHECKS_TOTAL, "store" => store).increment(0);
    }
    for (step, outcome) in LIFECYCLE_STEPS {
        counter!(LIFECYCLE_TOTAL, "step" => step, "outcome" => outcome).increment(0);
    }
    replicas::register();
}

/// A step of the card lifecycle and how it ended, one of [`LIFECYCLE_STEPS`].
pub fn record_lifecycle(step: &'static str, outcome: &'static str) {
    counter!(LIFECYCLE_TOTAL, "step" => step, "outcome" => outcome).increment(1);
}

/// What the database pool holds now.
pub fn record_pool(idle: u32, in_use: u32, max: u32) {
    gauge!(DB_POOL_CONNECTIONS, "state" => "idle").set(f64::from(idle));
    gauge!(DB_POOL_CONNECTIONS, "state" => "in_use").set(f64::from(in_use));
    gauge!(DB_POOL_MAX_CONNECTIONS).set(f64::from(max));
}

/// Records the worker threads of the runtime this is called on.
pub fn record_runtime() {
    let workers = tokio::runtime::Handle::current().metrics().num_workers();
    gauge!(RUNTIME_WORKER_THREADS).set(workers as f64);
}

/// The HELP lines of every metric.
fn describe() {
    replicas::describe();
    describe_counter!(
        LIFECYCLE_TOTAL,
        "Card lifecycle steps (captures, voids, expiries), by step and outcome"
    );
    describe_counter!(
        REQUESTS_TOTAL,
        "GraphQL requests over HTTP and subscription starts, by first root field and error code"
    );
    describe_histogram!(
        REQUEST_DURATION_SECONDS,
        "Time to answer a GraphQL request or start a subscription, in seconds"
    );
    describe_counter!(
        DOCUMENTS_PARSED_TOTAL,
        "Request documents parsed from their text (neither registered nor parsed before)"
    );
    describe_counter!(
        DOCUMENTS_VALIDATED_TOTAL,
        "Request documents the schema's validation rules ran on (neither registered nor passed before)"
    );
    describe_counter!(QUERY_COST_SPENT_TOTAL, "Query cost points spent");
    describe_counter!(
        THROTTLED_REQUESTS_TOTAL,
        "Requests refused because the account's cost budget was spent"
    );
    describe_counter!(
        BUDGET_CHECKS_TOTAL,
        "Requests charged to a cost budget, by where it is kept (redis: shared by every \
         instance; local: this instance's own)"
    );
    describe_counter!(
        BUDGET_FALLBACKS_TOTAL,
        "Calls to Redis for the shared budget that failed (the local budget was used)"
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
    describe_counter!(
        PROCESSOR_BREAKER_REFUSED_TOTAL,
        "Processor calls refused by the open circuit without calling the processor"
    );
    describe_counter!(
        WEBHOOK_ATTEMPTS_TOTAL,
        "Merchant webhook attempts, by outcome"
    );
    describe_gauge!(
        FEED_LAG_EVENTS,
        "The change feed reader's lag: newest position in the log minus the newest read"
    );
    describe_counter!(
        CONNECTIONS_REFUSED_TOTAL,
        "Client connections closed at once because the connection limit was reached"
    );
    describe_counter!(
        CONNECTIONS_TIMED_OUT_TOTAL,
        "Client connections closed for overstaying a deadline, by reason"
    );
    describe_gauge!(
        DB_POOL_CONNECTIONS,
        "Database pool connections, idle or in use"
    );
    describe_gauge!(DB_POOL_MAX_CONNECTIONS, "Database pool size limit");
    describe_gauge!(
        RUNTIME_WORKER_THREADS,
        "Worker threads of the runtime that answers requests"
    );
    describe_gauge!(SUBSCRIPTIONS_OPEN, "Subscriptions open");
    describe_gauge!(CONNECTIONS_OPEN, "Client connections open");
}
