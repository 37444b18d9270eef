//! Load benchmark for `createPayment`: fresh keys (every request charges) and replays (every
//! request answers from the stored outcome), at several concurrencies, on SQLite and
//! PostgreSQL, over real HTTP against the real gateway with the built-in sandbox. Beside it,
//! pgbench runs the SQL statements of one create (`benches/create_payment.pgbench.sql`) at the
//! same concurrencies on the same PostgreSQL: the database's own limit on this machine.
//!
//! Run with `cargo bench --bench load`. Settings (environment):
//! - `LOAD_SECONDS` (default 10): how long each measurement runs;
//! - `LOAD_CONCURRENCY` (default `1,8,32`): client connections, each sending requests
//!   back to back;
//! - `LOAD_DATABASES` (default `sqlite,postgres`);
//! - `LOAD_POSTGRES_URL` (default `postgres://postgres@127.0.0.1:5432/test`).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use graphpay::config::Config;
use graphpay::persistence::{Db, DbConfig, accounts};
use graphpay::startup::Application;
use hdrhistogram::Histogram;
use serde_json::json;
use tokio::sync::oneshot;

type BoxError = Box<dyn std::error::Error + Send + Sync>;

const CREATE: &str = "mutation Create($input: CreatePaymentInput!, $key: String!) { createPayment(input: $input, idempotencyKey: $key) { replayed payment { id status amount } } }";

struct Settings {
    seconds: u64,
    concurrency: Vec<usize>,
    databases: Vec<String>,
    postgres_url: String,
}

fn settings() -> Settings {
    let env =
        |name: &str, default: &str| std::env::var(name).unwrap_or_else(|_| default.to_string());
    Settings {
        seconds: env("LOAD_SECONDS", "10").parse().unwrap_or(10),
        concurrency: env("LOAD_CONCURRENCY", "1,8,32")
            .split(',')
            .filter_map(|c| c.trim().parse().ok())
            .collect(),
        databases: env("LOAD_DATABASES", "sqlite,postgres")
            .split(',')
            .map(|s| s.trim().to_string())
            .collect(),
        postgres_url: env(
            "LOAD_POSTGRES_URL",
            "postgres://postgres@127.0.0.1:5432/test",
        ),
    }
}

/// What one measurement produced.
struct Measurement {
    requests: u64,
    errors: u64,
    seconds: f64,
    histogram: Histogram<u64>,
}

impl Measurement {
    fn rps(&self) -> f64 {
        self.requests as f64 / self.seconds
    }
    fn ms(&self, quantile: f64) -> f64 {
        self.histogram.value_at_quantile(quantile) as f64 / 1000.0
    }
}

/// `concurrency` clients, each with its own connection, send requests back to back for
/// `seconds`; `body(client, n)` makes the n-th request body of a client.
async fn drive(
    address: &str,
    key: &str,
    concurrency: usize,
    seconds: u64,
    body: Arc<dyn Fn(usize, u64) -> serde_json::Value + Send + Sync>,
) -> Result<Measurement, BoxError> {
    let deadline = Instant::now() + Duration::from_secs(seconds);
    let errors = Arc::new(AtomicU64::new(0));
    let started = Instant::now();
    let mut workers = Vec::new();
    for client_id in 0..concurrency {
        let (address, key, body, errors) = (
            address.to_string(),
            key.to_string(),
            body.clone(),
            errors.clone(),
        );
        workers.push(tokio::spawn(async move {
            let http = reqwest::Client::builder()
                .pool_max_idle_per_host(1)
                .build()
                .expect("client");
            let mut histogram =
                Histogram::<u64>::new_with_bounds(1, 60_000_000, 3).expect("histogram");
            let mut n = 0u64;
            while Instant::now() < deadline {
                let sent = Instant::now();
                let response = http
                    .post(format!("{address}/graphql"))
                    .bearer_auth(&key)
                    .json(&body(client_id, n))
                    .send()
                    .await;
                let ok = match response {
                    Ok(r) => r
                        .json::<serde_json::Value>()
                        .await
                        .map(|v| v.get("errors").is_none())
                        .unwrap_or(false),
                    Err(_) => false,
                };
                histogram.saturating_record(sent.elapsed().as_micros() as u64);
                if !ok {
                    errors.fetch_add(1, Ordering::Relaxed);
                }
                n += 1;
            }
            histogram
        }));
    }
    let mut histogram = Histogram::<u64>::new_with_bounds(1, 60_000_000, 3)?;
    for worker in workers {
        histogram.add(worker.await?)?;
    }
    Ok(Measurement {
        requests: histogram.len(),
        errors: errors.load(Ordering::Relaxed),
        seconds: started.elapsed().as_secs_f64(),
        histogram,
    })
}

struct Gateway {
    address: String,
    key: String,
    account_id: String,
    key_hash: String,
    server_db: Db,
    _stop: oneshot::Sender<()>,
}

async fn start_gateway(database: DbConfig) -> Result<Gateway, BoxError> {
    let mut config = Config::with_database(database.clone());
    config.database.max_connections = 40;
    let app = Application::build(config).await?;
    let address = format!("http://{}", app.local_addr());
    let server_db = app.db();
    let (tx, rx) = oneshot::channel::<()>();
    tokio::spawn(app.run_until(async {
        let _ = rx.await;
    }));
    let db = Db::connect(&database).await?;
    let created = accounts::create(&db, "load").await?;
    let keys = accounts::list_keys(&db, &created.account.id).await?;
    Ok(Gateway {
        address,
        key: created.api_key,
        account_id: created.account.id,
        key_hash: keys[0].key_hash.clone(),
        server_db,
        _stop: tx,
    })
}

fn input(n: u64) -> serde_json::Value {
    json!({"amount": 1000 + (n % 5000) as i64, "currency": "USD", "source": "tok_visa"})
}

/// pgbench with the create script at `concurrency`: transactions (= creates) per second.
fn pgbench(
    url: &str,
    schema: &str,
    gateway: &Gateway,
    concurrency: usize,
    seconds: u64,
) -> Result<f64, BoxError> {
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/benches/create_payment.pgbench.sql"
    );
    let out = std::process::Command::new("pgbench")
        .args([
            "-n",
            "-c",
            &concurrency.to_string(),
            "-j",
            &concurrency.min(2).to_string(),
            "-T",
            &seconds.to_string(),
        ])
        .args([
            "-f",
            script,
            "-D",
            &format!("account={}", gateway.account_id),
            "-D",
            &format!("key_hash={}", gateway.key_hash),
        ])
        .arg(url)
        .env("PGOPTIONS", format!("-c search_path={schema}"))
        .output()?;
    let text =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    if !out.status.success() {
        return Err(format!("pgbench failed: {text}").into());
    }
    text.lines()
        .find(|l| l.starts_with("tps = "))
        .and_then(|l| l.split_whitespace().nth(2))
        .and_then(|v| v.parse().ok())
        .ok_or_else(|| format!("no tps in pgbench output: {text}").into())
}

#[tokio::main]
async fn main() -> Result<(), BoxError> {
    let settings = settings();
    let mut lines = Vec::new();
    let mut limits = Vec::new();
    for database in &settings.databases {
        let dir = tempfile::tempdir()?;
        let schema = format!(
            "bench_load_{}",
            ulid::Ulid::generate().to_string().to_lowercase()
        );
        let (name, db_config) = match database.as_str() {
            "sqlite" => (
                "SQLite",
                DbConfig {
                    url: format!("sqlite://{}?mode=rwc", dir.path().join("load.db").display()),
                    schema: None,
                    max_connections: 40,
                    busy_timeout: Duration::from_secs(30),
                },
            ),
            "postgres" => (
                "PostgreSQL",
                DbConfig {
                    url: settings.postgres_url.clone(),
                    schema: Some(schema.clone()),
                    max_connections: 40,
                    busy_timeout: Duration::from_secs(30),
                },
            ),
            other => return Err(format!("unknown database {other}").into()),
        };
        let gateway = start_gateway(db_config.clone()).await?;

        // Statements one create and one replay cost, read off the gateway's own pool.
        let probe = reqwest::Client::new();
        let before = gateway.server_db.statements_run();
        let vars = json!({"query": CREATE, "variables": {"input": input(0), "key": "probe"}});
        probe
            .post(format!("{}/graphql", gateway.address))
            .bearer_auth(&gateway.key)
            .json(&vars)
            .send()
            .await?;
        let create_statements = gateway.server_db.statements_run() - before;
        let before = gateway.server_db.statements_run();
        probe
            .post(format!("{}/graphql", gateway.address))
            .bearer_auth(&gateway.key)
            .json(&vars)
            .send()
            .await?;
        let replay_statements = gateway.server_db.statements_run() - before;
        eprintln!(
            "{name}: a create runs {create_statements} statements, a replay {replay_statements}"
        );

        for &c in &settings.concurrency {
            let run = ulid::Ulid::generate().to_string();
            let replay_run = run.clone();
            let creates = drive(&gateway.address, &gateway.key, c, settings.seconds, Arc::new(move |client, n| {
                json!({"query": CREATE, "variables": {"input": input(n), "key": format!("{run}-{client}-{n}")}})
            }))
            .await?;
            // Replays of keys that exist: each client cycles through the first 200 of its own.
            let replays = drive(&gateway.address, &gateway.key, c, settings.seconds, Arc::new(move |client, n| {
                let n = n % 200;
                json!({"query": CREATE, "variables": {"input": input(n), "key": format!("{replay_run}-{client}-{n}")}})
            }))
            .await?;
            let limit = if database == "postgres" {
                Some(pgbench(
                    &settings.postgres_url,
                    &schema,
                    &gateway,
                    c,
                    settings.seconds,
                )?)
            } else {
                None
            };
            for (kind, m) in [("create", &creates), ("replay", &replays)] {
                let line = format!(
                    "| {name} | {kind} | {c} | {:.0} | {:.2} | {:.2} | {} | {} |",
                    m.rps(),
                    m.ms(0.5),
                    m.ms(0.99),
                    m.errors,
                    match (kind, limit) {
                        ("create", Some(tps)) =>
                            format!("{:.0} ({:.0}% of it)", tps, 100.0 * m.rps() / tps),
                        _ => "".to_string(),
                    }
                );
                eprintln!("{line}");
                lines.push(line);
            }
            let ratio = replays.rps() / creates.rps();
            limits.push(format!("| {name} | {c} | {ratio:.1}x |"));
        }
        if database == "postgres" {
            let db = Db::connect(&DbConfig {
                schema: None,
                ..db_config
            })
            .await?;
            db.execute_unprepared(&format!("DROP SCHEMA IF EXISTS \"{schema}\" CASCADE"))
                .await?;
        }
    }
    println!(
        "| database | request | concurrency | requests/s | p50 ms | p99 ms | errors | pgbench creates/s (same SQL) |"
    );
    println!("|---|---|---:|---:|---:|---:|---:|---|");
    for line in lines {
        println!("{line}");
    }
    println!();
    println!("| database | concurrency | replays/s over creates/s |");
    println!("|---|---:|---:|");
    for line in limits {
        println!("{line}");
    }
    Ok(())
}
