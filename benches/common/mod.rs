//! What the benchmarks share: the release gateway as its own process, and wrk runs.

// Each benchmark compiles this module on its own and uses only part of it.
#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use graphpay::domain::currency::Currency;
use graphpay::domain::money::MinorUnits;
use graphpay::domain::status::PaymentStatus;
use graphpay::domain::time::Timestamp;
use graphpay::persistence::payments::{NewPayment, insert_many};
use graphpay::persistence::{Db, DbConfig};

pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

pub const BIN: &str = env!("CARGO_BIN_EXE_graphpay");
pub const DIR: &str = env!("CARGO_MANIFEST_DIR");

/// The gateway process; killed when dropped.
pub struct Gateway {
    child: Child,
    pub address: String,
}

impl Gateway {
    /// CPU time the gateway process has used so far (user + system), from `/proc` (Linux).
    pub fn cpu_time(&self) -> Option<Duration> {
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", self.child.id())).ok()?;
        // Fields after the command name (which may hold spaces) start at field 3.
        let rest = stat.rsplit_once(')')?.1;
        let fields: Vec<&str> = rest.split_whitespace().collect();
        let ticks: u64 =
            fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
        // The kernel counts in USER_HZ, 100 per second on Linux.
        Some(Duration::from_millis(ticks * 10))
    }

    /// The gateway's resident memory now, in MiB (`VmRSS` from `/proc`, Linux).
    pub fn resident_mib(&self) -> Option<f64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).ok()?;
        let kib: f64 = status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))?
            .split_whitespace()
            .next()?
            .parse()
            .ok()?;
        Some(kib / 1024.0)
    }
}

impl Drop for Gateway {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn graphpay(env: &[(&str, String)]) -> Command {
    let mut command = Command::new(BIN);
    command
        .env("RUST_LOG", "warn")
        .env_remove("DATABASE_SCHEMA");
    for (name, value) in env {
        command.env(name, value);
    }
    command
}

pub fn start_gateway(env: &[(&str, String)]) -> Result<Gateway, BoxError> {
    let mut child = graphpay(env)
        .args([
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--no-demo",
            "--database-max-connections",
            "40",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()?;
    let mut line = String::new();
    let mut reader = BufReader::new(child.stdout.take().ok_or("no stdout")?);
    reader.read_line(&mut line)?;
    let address = line
        .split_whitespace()
        .last()
        .ok_or("no address")?
        .to_string();
    // Keep reading what the gateway prints, so that it never writes into a closed pipe.
    std::thread::spawn(move || for _ in reader.lines() {});
    wait_until_ready(&address)?;
    Ok(Gateway { child, address })
}

/// Polls `/readyz` until the gateway answers 200 (at most 10 s).
fn wait_until_ready(address: &str) -> Result<(), BoxError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        graphpay::tls::install_default_provider();
        let client = reqwest::Client::new();
        for _ in 0..100 {
            let ready = client.get(format!("{address}/readyz")).send().await;
            if ready.is_ok_and(|r| r.status().is_success()) {
                return Ok(());
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        Err("the gateway never became ready".into())
    })
}

/// One wrk run's figures.
pub struct Run {
    /// Requests answered.
    pub requests: f64,
    pub rps: f64,
    pub p50_ms: f64,
    pub p99_ms: f64,
    pub errors: u64,
}

/// Runs wrk with `benches/<script>` and its arguments against `/graphql`.
pub fn wrk(
    address: &str,
    script: &str,
    args: &[&str],
    connections: usize,
    seconds: u64,
) -> Result<Run, BoxError> {
    let mode = args.first().copied().unwrap_or(script);
    let threads = connections.min(2);
    let out = Command::new("wrk")
        .args([
            "-t",
            &threads.to_string(),
            "-c",
            &connections.to_string(),
            "-d",
            &format!("{seconds}s"),
        ])
        .args(["--timeout", "10s", "-s", &format!("{DIR}/benches/{script}")])
        .arg(format!("{address}/graphql"))
        .arg("--")
        .args(args)
        .output()?;
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    let complaints = String::from_utf8_lossy(&out.stderr);
    if !complaints.trim().is_empty() {
        eprintln!(
            "wrk ({mode}, {connections}): first failed response: {}",
            complaints.trim()
        );
    }
    let line = text
        .lines()
        .find(|l| l.starts_with("RESULT "))
        .ok_or_else(|| format!("wrk said: {text}"))?;
    let field = |name: &str| -> f64 {
        line.split_whitespace()
            .find_map(|kv| kv.strip_prefix(&format!("{name}=")))
            .and_then(|v| v.parse().ok())
            .unwrap_or(0.0)
    };
    Ok(Run {
        requests: field("requests"),
        rps: field("requests") / (field("duration_us") / 1e6),
        p50_ms: field("p50_us") / 1000.0,
        p99_ms: field("p99_us") / 1000.0,
        errors: field("errors") as u64,
    })
}

/// `pgbench` for `url` in `schema`, over TLS exactly when the gateway's own connections to
/// `url` are (`graphpay::persistence::without_tls`): its figures are the database's limit for
/// the same kind of connection.
pub fn pgbench(url: &str, schema: &str) -> Command {
    let mut command = Command::new("pgbench");
    command.env("PGOPTIONS", format!("-c search_path={schema}"));
    if graphpay::persistence::without_tls(url) {
        command.env("PGSSLMODE", "disable");
    }
    command
}

/// Drops a benchmark's PostgreSQL schema (with `psql`); says so when it could not.
pub fn drop_schema(url: &str, schema: &str) {
    let status = Command::new("psql")
        .arg(url)
        .args([
            "-qc",
            &format!("DROP SCHEMA IF EXISTS \"{schema}\" CASCADE"),
        ])
        .status();
    if !status.is_ok_and(|s| s.success()) {
        eprintln!("could not drop schema {schema}");
    }
}

/// Settings that give an account a query-cost budget no benchmark run exhausts (the budget
/// is still taken and refunded on every request).
pub fn unthrottled() -> Vec<(&'static str, String)> {
    vec![
        ("GRAPHPAY_RATE_LIMIT_CAPACITY", "1000000000000".to_string()),
        (
            "GRAPHPAY_RATE_LIMIT_RESTORE_RATE",
            "1000000000000".to_string(),
        ),
    ]
}

/// One round of first-page reads (`load.lua`'s `page`) for `key` on a gateway started with
/// `settings`: wrk's figures and the gateway's CPU time over the run; the gateway is stopped
/// before it returns.
pub fn page_round(
    settings: &[(&str, String)],
    key: &str,
    label: &str,
    seconds: u64,
) -> Result<(Run, Duration), BoxError> {
    let gateway = start_gateway(settings)?;
    let before = gateway.cpu_time().unwrap_or_default();
    let run = wrk(
        &gateway.address,
        "load.lua",
        &["page", key, label],
        32,
        seconds,
    )?;
    let cpu = gateway
        .cpu_time()
        .unwrap_or_default()
        .saturating_sub(before);
    Ok((run, cpu))
}

/// The median of `values` (the upper one of an even count).
pub fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// A benchmark's own schema on a PostgreSQL server, with one account (made with the CLI).
pub struct Seeded {
    pub schema: String,
    /// The gateway's settings for that schema.
    pub database: Vec<(&'static str, String)>,
    /// The account's API key.
    pub key: String,
}

/// A schema of its own on the server at `url` (`bench_<name>_<ulid>`), with an account holding
/// `rows` payments.
pub fn seeded_account(url: &str, name: &str, rows: i64) -> Result<Seeded, BoxError> {
    let schema = format!(
        "bench_{name}_{}",
        ulid::Ulid::generate().to_string().to_lowercase()
    );
    let database = vec![
        ("DATABASE_URL", url.to_string()),
        ("DATABASE_SCHEMA", schema.clone()),
    ];
    let created = graphpay(&database)
        .args(["account", "create", "--name", name, "--json"])
        .output()?;
    let created: serde_json::Value = serde_json::from_slice(&created.stdout)?;
    let account = created["accountId"].as_str().ok_or("no account")?;
    let key = created["apiKey"].as_str().ok_or("no key")?.to_string();
    seed_payments(url, &schema, account, rows)?;
    Ok(Seeded {
        schema,
        database,
        key,
    })
}

/// Inserts `rows` succeeded payments into `account`, a second apart, and analyzes the table
/// (so the planner knows its size at once, as it would on a server that has run for a while).
pub fn seed_payments(url: &str, schema: &str, account: &str, rows: i64) -> Result<(), BoxError> {
    let runtime = tokio::runtime::Runtime::new()?;
    runtime.block_on(async {
        let db = Db::connect(&DbConfig {
            url: url.to_string(),
            schema: Some(schema.to_string()),
            max_connections: 2,
            busy_timeout: std::time::Duration::from_secs(10),
            acquire_timeout: std::time::Duration::from_secs(30),
        })
        .await?;
        let start = Timestamp::now().micros() - rows * 1_000_000;
        let payments = (0..rows)
            .map(|i| NewPayment {
                account_id: account.to_string(),
                amount: MinorUnits::parse(100 + i % 5_000).expect("an amount"),
                currency: Currency::parse("USD").expect("a currency"),
                source: "tok_visa".into(),
                description: None,
                reference: None,
                metadata: Default::default(),
                status: PaymentStatus::Succeeded,
                capture_method: Default::default(),
                return_url: None,
                created_at: Timestamp::from_micros(start + i * 1_000_000),
            })
            .collect();
        insert_many(&db, payments).await?;
        db.execute_unprepared("ANALYZE payments").await?;
        db.close().await?;
        Ok::<(), BoxError>(())
    })
}
