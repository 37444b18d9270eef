//! Page reads on a large account: 1,000,000 payments in one account (and 50,000 in another,
//! and 20 in each of 2,000 small ones), PostgreSQL, the release gateway. Over HTTP with wrk at
//! each concurrency: the first page of 50 (cursors and `pageInfo`), the page at depth 900,000
//! (after a cursor made for that row) and the first page with `totalCount`; the gateway's CPU
//! per request and its resident memory after each run, from `/proc`; beside them, pgbench
//! running the gateway's own page statement (`-M prepared`). Each concurrency
//! starts a fresh gateway and warms it with 2 s of first pages, and each document is sent for
//! 2 s before its measured run, neither measured.
//!
//! One payment in ten of the large account carries the metadata entry `campaign: spring`:
//! the first page filtered by it is measured beside the same page unfiltered (the same
//! document with and without the filter), and the two page statements' `EXPLAIN (ANALYZE,
//! BUFFERS)` are printed.
//!
//! One payment in a thousand of the large account failed: the dashboard's list filtered by
//! its status menu (`FAILED`; `FAILED` or `REFUNDED`) is measured beside the unfiltered list.
//!
//! A third account's event log (the changes of 200 payments made through the API) is read a
//! page of 50 at a time, with and without each event's payment.
//!
//! The first page and the dashboard's list by `documentId` are then sent in turn, five rounds
//! (`alternated.rs`), each round's ratio of their pages per second taken, and the median
//! printed with the lowest and highest.
//!
//! Settings: `LOAD_READ_ROWS` (default 1,000,000; 0 skips the reads), and the load
//! benchmark's `LOAD_SECONDS`, `LOAD_POSTGRES_URL`.

use std::time::Duration;

use graphpay::domain::cursor::CursorCodec;
use graphpay::domain::paging::{Order, PageSize, PaymentFilter, Position, fingerprint};
use graphpay::persistence::payment_pages::{
    PageQuery, PaymentColumns, PaymentDetail, counted_page_sql, page_sql,
};
use graphpay::persistence::{Backend, Db, DbConfig};

use super::common::{BoxError, DIR, drop_schema, graphpay, start_gateway, unthrottled, wrk};

mod alternated;
mod measured;

/// Where the seeded rows' times start (2026-01-01), 1 ms apart.
const BASE_MICROS: i64 = 1_767_225_600_000_000;
const DEPTH: i64 = 900_000;

/// Small accounts seeded beside the large ones, and payments in each.
const SMALL_ACCOUNTS: i64 = 2_000;
const SMALL_PAYMENTS: i64 = 20;

/// The `n`th small account's id.
fn small_account_sql(n: &str) -> String {
    format!("'acct_' || upper(lpad(to_hex({n}), 26, '0'))")
}

/// The `n`th payment's id: `pay_` and 26 characters of a ULID's alphabet, in `n` order.
fn id_sql(n: &str) -> String {
    format!("'pay_' || upper(lpad(to_hex({n}), 26, '0'))")
}

fn id_of(n: i64) -> String {
    format!("pay_{n:026X}")
}

pub struct ReadRun {
    pub lines: Vec<String>,
}

pub fn run(url: &str, seconds: u64, concurrency: &[usize]) -> Result<ReadRun, BoxError> {
    let rows: i64 = std::env::var("LOAD_READ_ROWS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1_000_000);
    let mut lines = Vec::new();
    if rows == 0 {
        return Ok(ReadRun { lines });
    }
    let schema = format!(
        "bench_reads_{}",
        ulid::Ulid::generate().to_string().to_lowercase()
    );
    let result = measure(url, &schema, rows, seconds, concurrency, &mut lines);
    drop_schema(url, &schema);
    result.map(|()| ReadRun { lines })
}

fn measure(
    url: &str,
    schema: &str,
    rows: i64,
    seconds: u64,
    concurrency: &[usize],
    lines: &mut Vec<String>,
) -> Result<(), BoxError> {
    let env = [
        vec![
            ("DATABASE_URL", url.to_string()),
            ("DATABASE_SCHEMA", schema.to_string()),
            ("GRAPHPAY_TRUSTED_DOCUMENTS", format!("{DIR}/{MANIFEST}")),
        ],
        unthrottled(),
    ]
    .concat();
    let mut accounts = Vec::new();
    for name in ["reads", "other", "events"] {
        let created = graphpay(&env)
            .args(["account", "create", "--name", name, "--json"])
            .output()?;
        let created: serde_json::Value = serde_json::from_slice(&created.stdout)?;
        accounts.push((
            created["accountId"]
                .as_str()
                .ok_or("no account")?
                .to_string(),
            created["apiKey"].as_str().ok_or("no key")?.to_string(),
        ));
    }
    let (account, key) = accounts[0].clone();
    // The gateway makes its cursor secret when it first starts; a client token, as the
    // dashboard holds one, is made there too.
    let first = start_gateway(&env)?;
    let token = client_token(&first.address, &key)?;
    let other = accounts[1].0.clone();
    let events_key = accounts[2].1.clone();
    log_events(&first.address, &events_key)?;
    drop(first);

    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let (cursor, statements) = runtime.block_on(async {
        let db = Db::connect(&DbConfig {
            url: url.to_string(),
            schema: Some(schema.to_string()),
            max_connections: 2,
            busy_timeout: Duration::from_secs(30),
            acquire_timeout: Duration::from_secs(30),
        })
        .await?;
        let started = std::time::Instant::now();
        // One statement per account inserts all its rows in one transaction, where the count
        // trigger would update the same counter row a million times over (each update of a
        // row its own transaction already updated costs more than the one before): the
        // trigger is off while seeding and the counts are made afterwards, as the migration
        // that adds them does.
        db.execute_unprepared("ALTER TABLE payments DISABLE TRIGGER payments_counted")
            .await?;
        for (owner, from, count) in [(&account, 1, rows), (&other, rows + 1, rows / 20)] {
            db.execute_unprepared(&format!(
                "INSERT INTO payments (id, account_id, amount, currency, status, amount_refunded, \
                 source, description, failure_code, failure_message, processor_key, \
                 processor_ref, version, created_at, updated_at) \
                 SELECT {id}, '{owner}', 1000 + g % 5000, 'USD', \
                 CASE WHEN g % 1000 = 500 THEN 'FAILED' ELSE 'SUCCEEDED' END, 0, 'tok_visa', \
                 NULL, NULL, NULL, 'pk_' || g, 'ch_' || g, 1, {BASE_MICROS} + g * 1000, \
                 {BASE_MICROS} + g * 1000 FROM generate_series({from}, {last}) AS g",
                id = id_sql("g"),
                last = from + count - 1,
            ))
            .await?;
        }
        // Many small accounts beside the two large ones, as a gateway of many merchants
        // holds: their status counts fill `payment_counts` beyond a page, so that the list's
        // `totalCount` reads its account's counts through the table's key, as it does there.
        let first_small = rows + rows / 20 + 1;
        db.execute_unprepared(&format!(
            "INSERT INTO accounts (id, name, created_at) \
             SELECT {small}, 'small ' || a, {BASE_MICROS} \
             FROM generate_series(1, {SMALL_ACCOUNTS}) AS a",
            small = small_account_sql("a"),
        ))
        .await?;
        db.execute_unprepared(&format!(
            "INSERT INTO payments (id, account_id, amount, currency, status, amount_refunded, \
             source, description, failure_code, failure_message, processor_key, \
             processor_ref, version, created_at, updated_at) \
             SELECT {id}, {small}, 1000, 'USD', \
             (ARRAY['SUCCEEDED', 'FAILED', 'REFUNDED'])[1 + g % 3], \
             CASE WHEN g % 3 = 2 THEN 1000 ELSE 0 END, 'tok_visa', NULL, NULL, NULL, \
             'pk_' || g, 'ch_' || g, 1, {BASE_MICROS} + g * 1000, {BASE_MICROS} + g * 1000 \
             FROM generate_series({first_small}, {last}) AS g",
            id = id_sql("g"),
            small = small_account_sql(&format!("(g - {first_small}) / {SMALL_PAYMENTS} + 1")),
            last = first_small + SMALL_ACCOUNTS * SMALL_PAYMENTS - 1,
        ))
        .await?;
        // One payment in ten of the large account carries `campaign: spring`.
        db.execute_unprepared(&format!(
            "UPDATE payments SET metadata = '{{\"campaign\":\"spring\"}}' \
             WHERE account_id = '{account}' AND created_at % 10000 = 0"
        ))
        .await?;
        db.execute_unprepared(&format!(
            "INSERT INTO payment_metadata (account_id, key, value, created_at, payment_id) \
             SELECT account_id, 'campaign', 'spring', created_at, id FROM payments \
             WHERE account_id = '{account}' AND created_at % 10000 = 0"
        ))
        .await?;
        db.execute_unprepared("VACUUM ANALYZE payment_metadata")
            .await?;
        db.execute_unprepared(
            "INSERT INTO payment_counts (account_id, status, bucket, count) \
             SELECT account_id, status, 0, COUNT(*) FROM payments GROUP BY account_id, status \
             ON CONFLICT (account_id, status, bucket) \
             DO UPDATE SET count = payment_counts.count + excluded.count",
        )
        .await?;
        db.execute_unprepared("ALTER TABLE payments ENABLE TRIGGER payments_counted")
            .await?;
        db.execute_unprepared("VACUUM ANALYZE payments").await?;
        db.execute_unprepared("VACUUM ANALYZE payment_counts")
            .await?;
        // The event log's table is analyzed too, as autovacuum would have done on a server
        // that has run for a while: without its statistics, its page is planned for a table
        // it thinks empty.
        db.execute_unprepared("VACUUM ANALYZE payment_events")
            .await?;
        eprintln!(
            "reads: seeded {rows} + {} + {} payments in {:.1} s",
            rows / 20,
            SMALL_ACCOUNTS * SMALL_PAYMENTS,
            started.elapsed().as_secs_f64()
        );
        // The cursor of the row just above depth 900,000 (newest first), signed like the
        // gateway's own.
        let secret = db
            .query_text("SELECT secret FROM signing_keys WHERE kid = 0")
            .await?;
        let secret = secret
            .first()
            .and_then(|r| r.first())
            .ok_or("no cursor secret")?
            .clone();
        let n = rows - DEPTH + 1;
        let position = Position {
            key: BASE_MICROS + n * 1000,
            id: id_of(n),
        };
        let order = Order::default();
        let cursor = CursorCodec::new(secret.as_bytes())
            .encode(&position, fingerprint(&PaymentFilter::default(), order));
        let statement = page_sql(
            Backend::Postgres,
            &PageQuery {
                account_id: account.clone(),
                filter: PaymentFilter::default(),
                order,
                size: PageSize::First(50),
                after: Some(position),
                before: None,
                // What the gateway reads for the selection the load sends.
                columns: PaymentColumns::LISTING,
                amount_range_size: None,
            },
        );
        for (label, filter) in [
            ("unfiltered", PaymentFilter::default()),
            ("filtered by campaign: spring", spring()),
        ] {
            let sql = page_sql(
                Backend::Postgres,
                &PageQuery {
                    account_id: account.clone(),
                    filter,
                    order,
                    size: PageSize::First(50),
                    after: None,
                    before: None,
                    columns: PaymentColumns::LISTING,
                    amount_range_size: None,
                },
            );
            let plan = db
                .query_text(&format!("EXPLAIN (ANALYZE, BUFFERS) {sql}"))
                .await?;
            eprintln!("reads: the first page {label}:\n{sql}");
            for row in plan {
                eprintln!("    {}", row.join(" "));
            }
        }
        // The first page as the benchmark selection reads it, and as the dashboard's list
        // reads it (its description and reference, and `totalCount`): the database's own
        // limit for each, beside the gateway's rows above.
        let first = |columns| PageQuery {
            account_id: account.clone(),
            filter: PaymentFilter::default(),
            order,
            size: PageSize::First(50),
            after: None,
            before: None,
            columns,
            amount_range_size: None,
        };
        let listed = PaymentColumns::LISTING
            .with(PaymentDetail::Description)
            .with(PaymentDetail::Reference);
        let statements = vec![
            ("the page statement at depth 900,000", statement),
            (
                "the first page's statement",
                page_sql(Backend::Postgres, &first(PaymentColumns::LISTING)),
            ),
            (
                "the dashboard list's statement (with totalCount)",
                counted_page_sql(Backend::Postgres, &first(listed)),
            ),
        ];
        Ok::<_, BoxError>((cursor, statements))
    })?;

    let bodies = Bodies::write(schema, &id_of(rows))?;
    let dash = "-".to_string();
    // The gateway as it starts by default (a thread per core), then the documents the
    // dashboard sends and the first page again with a core left to PostgreSQL and wrk, on this
    // host (`--worker-threads` one fewer than the cores, at least one).
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let core_left = [
        env.clone(),
        vec![(
            "GRAPHPAY_WORKER_THREADS",
            cores.saturating_sub(1).max(1).to_string(),
        )],
    ]
    .concat();
    for (threads, env, every_document) in [
        ("", &env, true),
        (", a core left to PostgreSQL", &core_left, false),
    ] {
        for &c in concurrency {
            let gateway = start_gateway(env)?;
            // Unmeasured: the pool opens its connections and the first documents are parsed, so
            // the runs below measure the steady state.
            wrk(&gateway.address, "load.lua", &["page", &key, "-"], c, 2)?;
            for (label, mode, credential, arg, _) in [
                ("first page", "page", &key, &dash, true),
                ("page at depth 900,000", "deep", &key, &cursor, false),
                ("first page + totalCount", "count", &key, &dash, false),
                (
                    "dashboard list, by documentId",
                    "body",
                    &token,
                    &bodies.list_by_id,
                    true,
                ),
                (
                    "dashboard list, as text",
                    "body",
                    &key,
                    &bodies.list_as_text,
                    true,
                ),
                (
                    "payment details, by documentId",
                    "body",
                    &token,
                    &bodies.details_by_id,
                    true,
                ),
                (
                    "dashboard list, by documentId, status FAILED (0.1%)",
                    "body",
                    &token,
                    &bodies.list_failed,
                    false,
                ),
                (
                    "dashboard list, by documentId, status FAILED or REFUNDED (0.1%)",
                    "body",
                    &token,
                    &bodies.list_failed_or_refunded,
                    false,
                ),
                (
                    "first page, unfiltered",
                    "body",
                    &key,
                    &bodies.unfiltered,
                    false,
                ),
                ("event log page", "body", &events_key, &bodies.events, false),
                (
                    "event log page, each event's payment",
                    "body",
                    &events_key,
                    &bodies.events_with_payment,
                    false,
                ),
                (
                    "first page, filtered by one metadata entry (10%)",
                    "body",
                    &key,
                    &bodies.filtered,
                    false,
                ),
                // The first row again, last: the first rows have come out lowest in every run,
                // and a figure measured once at the start of a run may owe that to its place.
                (
                    "first page, measured again last",
                    "page",
                    &key,
                    &dash,
                    false,
                ),
            ]
            .into_iter()
            .filter(|&(.., again_per_core)| every_document || again_per_core)
            {
                let (credential, arg): (&str, &str) = (credential, arg);
                // Unmeasured: each document is first sent for 2 s, so that every run measures the
                // steady state (its statement prepared on the pool's connections and planned, its
                // rows' pages in memory), not the first requests of a document.
                wrk(&gateway.address, "load.lua", &[mode, credential, arg], c, 2)?;
                let measured = measured::measure(&gateway, [mode, credential, arg], c, seconds)?;
                let line = measured.line(&format!("{label}{threads}"), c);
                eprintln!("{line}");
                lines.push(line);
            }
            if every_document {
                // The dashboard's list against the first page, sent in turn: one figure each,
                // measured minutes apart, moves with this host's speed by more than the two
                // differ.
                lines.extend(alternated::run(
                    &gateway,
                    c,
                    seconds,
                    ("first page", ["page", &key, &dash]),
                    (
                        "dashboard list, by documentId",
                        ["body", &token, &bodies.list_by_id],
                    ),
                )?);
            }
        }
    }
    // The gateway's page statements, as pgbench runs them.
    let script = std::env::temp_dir().join(format!("{schema}.pgbench.sql"));
    for (label, statement) in &statements {
        std::fs::write(&script, format!("{statement};\n"))?;
        for &c in concurrency {
            let out = super::common::pgbench(url, schema)
                .args(["-n", "-M", "prepared", "-c", &c.to_string()])
                .args(["-j", &c.min(2).to_string(), "-T", &seconds.to_string()])
                .arg("-f")
                .arg(&script)
                .arg(url)
                .output()?;
            let text = String::from_utf8_lossy(&out.stdout);
            let tps = text
                .lines()
                .find(|l| l.starts_with("tps = "))
                .and_then(|l| l.split_whitespace().nth(2))
                .and_then(|tps| tps.parse::<f64>().ok())
                .map_or_else(|| "?".to_string(), |tps| format!("{tps:.0}"));
            let latency = text
                .lines()
                .find(|l| l.starts_with("latency average"))
                .and_then(|l| l.split_whitespace().nth(3))
                .unwrap_or("?");
            let line =
                format!("| pgbench: {label} | {c} | {tps} | (average {latency}) | | | | | 0 |");
            eprintln!("{line}");
            lines.push(line);
        }
    }
    let _ = std::fs::remove_file(&script);
    bodies.remove();
    Ok(())
}

/// The dashboard's trusted documents (`examples/dashboard`), as relay-compiler writes them.
const MANIFEST: &str = "examples/dashboard/persisted-documents.json";

/// The request bodies of the dashboard's own documents, in files `load.lua` reads: its list
/// (`PaymentListPaginationQuery`, a page of 50) by `documentId` and as text, and its payment
/// details (`PaymentDetailsQuery`) by `documentId`.
struct Bodies {
    list_by_id: String,
    list_as_text: String,
    details_by_id: String,
    /// The list filtered as the dashboard's status menu filters it, by `documentId`: by
    /// `FAILED` (one payment in a thousand of the large account), and by `FAILED` or
    /// `REFUNDED` (which the large account holds none of).
    list_failed: String,
    list_failed_or_refunded: String,
    /// The benchmark's page document with a `filter` variable: without it, and with one
    /// metadata entry.
    unfiltered: String,
    filtered: String,
    /// A page of 50 of the event log: each event's id, type and time, and the same with the
    /// payment as each change left it.
    events: String,
    events_with_payment: String,
}

/// The metadata entry one payment in ten carries.
fn spring() -> PaymentFilter {
    PaymentFilter {
        metadata: graphpay::domain::merchant_data::Metadata::parse(vec![(
            "campaign".to_string(),
            "spring".to_string(),
        )])
        .unwrap_or_default(),
        ..PaymentFilter::default()
    }
}

const EVENTS_PAGE: &str = "query Events { events(first: 50) { edges { cursor node { id type createdAt } } pageInfo { hasNextPage endCursor } } }";

const EVENTS_WITH_PAYMENT: &str = "query Events { events(first: 50) { edges { cursor node { id type createdAt payment { id status amount currency description } } } pageInfo { hasNextPage endCursor } } }";

const FILTERED_PAGE: &str = "query Page($filter: PaymentFilter) { payments(first: 50, filter: $filter) { edges { cursor node { id amount currency status createdAt } } pageInfo { hasNextPage endCursor } } }";

impl Bodies {
    fn write(schema: &str, payment: &str) -> Result<Self, BoxError> {
        let manifest: serde_json::Map<String, serde_json::Value> =
            serde_json::from_slice(&std::fs::read(format!("{DIR}/{MANIFEST}"))?)?;
        let find = |operation: &str| {
            manifest
                .iter()
                .find(|(_, text)| {
                    text.as_str()
                        .is_some_and(|t| t.starts_with(&format!("query {operation}")))
                })
                .map(|(id, text)| (id.clone(), text.as_str().unwrap_or_default().to_string()))
                .ok_or_else(|| format!("{operation} is not in {MANIFEST}"))
        };
        let (list_id, list_text) = find("PaymentListPaginationQuery")?;
        let (details_id, _) = find("PaymentDetailsQuery")?;
        let page = serde_json::json!({"count": 50});
        let file = |name: &str, body: serde_json::Value| -> Result<String, BoxError> {
            let path = std::env::temp_dir().join(format!("{schema}.{name}.json"));
            std::fs::write(&path, body.to_string())?;
            Ok(path.display().to_string())
        };
        Ok(Bodies {
            list_by_id: file(
                "list",
                serde_json::json!({"documentId": list_id, "variables": page}),
            )?,
            list_as_text: file(
                "text",
                serde_json::json!({"query": list_text, "variables": page}),
            )?,
            list_failed: file(
                "failed",
                serde_json::json!({"documentId": list_id, "variables":
                    {"count": 50, "filter": {"status": ["FAILED"]}}}),
            )?,
            list_failed_or_refunded: file(
                "failed-refunded",
                serde_json::json!({"documentId": list_id, "variables":
                    {"count": 50, "filter": {"status": ["FAILED", "REFUNDED"]}}}),
            )?,
            details_by_id: file(
                "details",
                serde_json::json!({"documentId": details_id, "variables": {"id": payment}}),
            )?,
            unfiltered: file(
                "unfiltered",
                serde_json::json!({"query": FILTERED_PAGE, "variables": {"filter": null}}),
            )?,
            filtered: file(
                "filtered",
                serde_json::json!({"query": FILTERED_PAGE, "variables": {"filter":
                    {"metadata": [{"key": "campaign", "value": "spring"}]}}}),
            )?,
            events: file("events", serde_json::json!({ "query": EVENTS_PAGE }))?,
            events_with_payment: file(
                "events-payment",
                serde_json::json!({ "query": EVENTS_WITH_PAYMENT }),
            )?,
        })
    }

    fn remove(&self) {
        for path in [
            &self.list_by_id,
            &self.list_as_text,
            &self.details_by_id,
            &self.list_failed,
            &self.list_failed_or_refunded,
            &self.unfiltered,
            &self.filtered,
            &self.events,
            &self.events_with_payment,
        ] {
            let _ = std::fs::remove_file(path);
        }
    }
}

/// Payments made through the API for the account whose secret key is `key`: 200, each
/// charged at once, so that its event log holds their changes (two or more each), read
/// oldest first in pages of 50.
fn log_events(address: &str, key: &str) -> Result<(), BoxError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let client = reqwest::Client::new();
        for n in 0..200 {
            let answer: serde_json::Value = client
                .post(format!("{address}/graphql"))
                .bearer_auth(key)
                .json(&serde_json::json!({
                    "query": "mutation($input: CreatePaymentInput!, $key: String!) { createPayment(input: $input, idempotencyKey: $key) { payment { status } } }",
                    "variables": {"key": format!("events-{n}"), "input": {"amount": 1000 + n,
                        "currency": "USD", "source": "tok_visa", "description": format!("order {n}")}}
                }))
                .send()
                .await?
                .json()
                .await?;
            if answer["data"]["createPayment"]["payment"]["status"] != "SUCCEEDED" {
                return Err(format!("a payment for the event log failed: {answer}").into());
            }
        }
        Ok(())
    })
}

/// A client token of the account whose secret key is `key`, reading payments for a day, as
/// the dashboard is given one.
fn client_token(address: &str, key: &str) -> Result<String, BoxError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let answer: serde_json::Value = reqwest::Client::new()
            .post(format!("{address}/graphql"))
            .bearer_auth(key)
            .json(&serde_json::json!({"query": "mutation { createClientToken(input: {scopes: [PAYMENTS_READ], ttlSeconds: 86400}) { token } }"}))
            .send()
            .await?
            .json()
            .await?;
        answer["data"]["createClientToken"]["token"]
            .as_str()
            .map(str::to_string)
            .ok_or_else(|| format!("no client token: {answer}").into())
    })
}
