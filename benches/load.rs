//! Load benchmark for `createPayment`: fresh keys (every request charges) and replays (every
//! request answers from the stored outcome), at several concurrencies, on SQLite and
//! PostgreSQL. The gateway runs as its own process (the release binary, built-in sandbox);
//! the load comes from wrk (`benches/load.lua`) over loopback. Beside it, pgbench runs the SQL
//! statements of one create (`benches/create_payment.pgbench.sql`) at the same concurrencies
//! on the same PostgreSQL: the database's own limit on this machine. For reference it also
//! runs that script without the two announcements (`pg_notify`) a create makes for
//! subscriptions, which serialize commits in PostgreSQL.
//!
//! Run with `cargo bench --bench load` (needs `wrk` and `pgbench` on the PATH). Settings:
//! `LOAD_SECONDS` (default 10), `LOAD_CONCURRENCY` (default `1,8,32`), `LOAD_DATABASES`
//! (default `sqlite,postgres`), `LOAD_POSTGRES_URL` (default
//! `postgres://postgres@127.0.0.1:5432/test`).

mod common;

use std::process::Command;
use std::time::Duration;

use common::{BoxError, DIR, graphpay, start_gateway, wrk};

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

/// pgbench with the create script at `concurrency`: transactions (= creates) per second.
fn pgbench(
    script: &str,
    url: &str,
    schema: &str,
    account: &str,
    key_hash: &str,
    concurrency: usize,
    seconds: u64,
) -> Result<f64, BoxError> {
    let out = Command::new("pgbench")
        .args([
            "-n",
            "-M",
            "prepared",
            "-c",
            &concurrency.to_string(),
            "-j",
            &concurrency.min(2).to_string(),
            "-T",
            &seconds.to_string(),
        ])
        .args(["-f", script])
        .args([
            "-D",
            &format!("account={account}"),
            "-D",
            &format!("key_hash={key_hash}"),
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

fn run_id() -> String {
    ulid::Ulid::generate().to_string()
}

fn sha256_hex(text: &str) -> String {
    graphpay::domain::api_key::hash(text)
}

/// The pgbench script, and a copy without the announcements (written to `dir`).
fn pgbench_scripts(dir: &std::path::Path) -> Result<(String, String), BoxError> {
    let script = format!("{DIR}/benches/create_payment.pgbench.sql");
    let text = std::fs::read_to_string(&script)?;
    let announcement = "SELECT pg_notify('graphpay_payment_changes', repeat('x', 420))";
    if text.matches(announcement).count() != 2 {
        return Err("the pgbench script should announce twice".into());
    }
    let quiet = dir.join("create_payment_without_announcements.pgbench.sql");
    std::fs::write(&quiet, text.replace(announcement, "SELECT 1"))?;
    Ok((script, quiet.display().to_string()))
}

fn main() -> Result<(), BoxError> {
    let settings = settings();
    let scripts_dir = tempfile::tempdir()?;
    let (script, quiet_script) = pgbench_scripts(scripts_dir.path())?;
    let mut table = Vec::new();
    let mut ratios = Vec::new();
    for database in &settings.databases {
        let dir = tempfile::tempdir()?;
        let schema = format!(
            "bench_load_{}",
            ulid::Ulid::generate().to_string().to_lowercase()
        );
        let (name, env): (&str, Vec<(&str, String)>) = match database.as_str() {
            "sqlite" => (
                "SQLite",
                vec![(
                    "DATABASE_URL",
                    format!("sqlite://{}?mode=rwc", dir.path().join("load.db").display()),
                )],
            ),
            "postgres" => (
                "PostgreSQL",
                vec![
                    ("DATABASE_URL", settings.postgres_url.clone()),
                    ("DATABASE_SCHEMA", schema.clone()),
                ],
            ),
            other => return Err(format!("unknown database {other}").into()),
        };
        // All the load comes from one account: give it a budget the runs cannot exhaust.
        let env = [env, common::unthrottled()].concat();
        let created = graphpay(&env)
            .args(["account", "create", "--name", "load", "--json"])
            .output()?;
        let created: serde_json::Value = serde_json::from_slice(&created.stdout)?;
        let account = created["accountId"]
            .as_str()
            .ok_or("no account")?
            .to_string();
        let key = created["apiKey"].as_str().ok_or("no key")?.to_string();
        {
            // The keys that the replay runs cycle through.
            let gateway = start_gateway(&env)?;
            let make_replay_key = setup::replay_key_maker();
            for n in 0..200 {
                make_replay_key(&gateway.address, &key, n)?;
            }
        }
        for &c in &settings.concurrency {
            let gateway = start_gateway(&env)?;
            let creates = wrk(
                &gateway.address,
                "load.lua",
                &["create", &key, &run_id()],
                c,
                settings.seconds,
            )?;
            let replays = wrk(
                &gateway.address,
                "load.lua",
                &["replay", &key, &run_id()],
                c,
                settings.seconds,
            )?;
            // Stopped before pgbench runs, so that nothing else uses the machine meanwhile
            // (its listener would otherwise hear every one of pgbench's announcements).
            drop(gateway);
            let limits = if database == "postgres" {
                let run = |script: &str| {
                    pgbench(
                        script,
                        &settings.postgres_url,
                        &schema,
                        &account,
                        &sha256_hex(&key),
                        c,
                        settings.seconds,
                    )
                };
                Some((run(&script)?, run(&quiet_script)?))
            } else {
                None
            };
            for (kind, run) in [("create", &creates), ("replay", &replays)] {
                let beside = match (kind, limits) {
                    ("create", Some((tps, quiet))) => format!(
                        "{tps:.0} ({:.0}% of it) | {quiet:.0} ({:.0}% of it)",
                        100.0 * run.rps / tps,
                        100.0 * run.rps / quiet
                    ),
                    _ => " | ".to_string(),
                };
                let line = format!(
                    "| {name} | {kind} | {c} | {:.0} | {:.2} | {:.2} | {} | {beside} |",
                    run.rps, run.p50_ms, run.p99_ms, run.errors
                );
                eprintln!("{line}");
                table.push(line);
            }
            ratios.push(format!(
                "| {name} | {c} | {:.1}x |",
                replays.rps / creates.rps
            ));
        }
        if database == "postgres" {
            let status = Command::new("psql")
                .arg(&settings.postgres_url)
                .args([
                    "-qc",
                    &format!("DROP SCHEMA IF EXISTS \"{schema}\" CASCADE"),
                ])
                .status()?;
            if !status.success() {
                eprintln!("could not drop schema {schema}");
            }
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    println!(
        "| database | request | concurrency | requests/s | p50 ms | p99 ms | errors | pgbench creates/s (same SQL) | pgbench without announcements |"
    );
    println!("|---|---|---:|---:|---:|---:|---:|---|---|");
    for line in table {
        println!("{line}");
    }
    println!();
    println!("| database | concurrency | replays/s over creates/s |");
    println!("|---|---:|---:|");
    for line in ratios {
        println!("{line}");
    }
    Ok(())
}

/// The set-up requests, made from a runtime of their own.
mod setup {
    pub fn replay_key_maker() -> impl Fn(&str, &str, u64) -> Result<(), super::BoxError> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        graphpay::delivery::outbound::install_default_tls();
        let client = reqwest::Client::new();
        move |address, key, n| {
            let query = "mutation C($input: CreatePaymentInput!, $key: String!) { createPayment(input: $input, idempotencyKey: $key) { replayed } }";
            let body = serde_json::json!({"query": query, "variables": {
                "input": {"amount": 1000 + n, "currency": "USD", "source": "tok_visa"},
                "key": format!("replay-{n}"),
            }});
            let sent = runtime.block_on(
                client
                    .post(format!("{address}/graphql"))
                    .bearer_auth(key)
                    .json(&body)
                    .send(),
            )?;
            if !sent.status().is_success() {
                return Err(format!("set-up request failed: {}", sent.status()).into());
            }
            Ok(())
        }
    }
}
