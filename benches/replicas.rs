//! Page reads with a streaming replica: the release gateway, on PostgreSQL with 10,000
//! payments in one account, answers the first page of 50 (cursors and `pageInfo`) under wrk at
//! concurrency 32, in alternating rounds without replicas (every read on the primary) and with
//! one (`GRAPHPAY_REPLICA_URLS`: reads without a token go to the replica while it lags less
//! than a second). Beside pages per second and latency: the CPU time the gateway and each
//! PostgreSQL server spent per page, read from the kernel (the server's postmaster and all its
//! processes, including those that exited).
//!
//! Run with `cargo bench --bench replicas` (needs `wrk` and a replica: `.ci/replica start`).
//! Settings: `REPLICAS_SECONDS` (default 10), `REPLICAS_ROUNDS` (default 4),
//! `REPLICAS_POSTGRES_URL` (default `postgres://postgres@127.0.0.1:5432/test`),
//! `REPLICAS_REPLICA_URL` (default `postgres://postgres@127.0.0.1:5433/test`).

mod common;

use std::process::Command;
use std::time::Duration;

use common::{BoxError, Seeded, drop_schema, median, page_round, seeded_account, unthrottled};

const ROWS: i64 = 10_000;

fn env(name: &str, default: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| default.to_string())
}

/// CPU time used so far by the PostgreSQL server at `url`: its postmaster's own and its
/// reaped children's, plus that of its live children, from `/proc` (Linux, same machine).
fn server_cpu(url: &str) -> Result<Duration, BoxError> {
    let output = Command::new("psql")
        .args([url, "-XAtc", "SHOW data_directory"])
        .output()?;
    let data = String::from_utf8(output.stdout)?.trim().to_string();
    let pid: u32 = std::fs::read_to_string(format!("{data}/postmaster.pid"))?
        .lines()
        .next()
        .ok_or("empty postmaster.pid")?
        .trim()
        .parse()?;
    let fields = |pid: u32| -> Option<Vec<u64>> {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        let rest = stat.rsplit_once(')')?.1;
        Some(
            rest.split_whitespace()
                .map(|f| f.parse::<i64>().unwrap_or(0).max(0) as u64)
                .collect(),
        )
    };
    // After the command: state (0), ppid (1), ..., utime (11), stime (12), cutime (13),
    // cstime (14).
    let own = fields(pid).ok_or("no postmaster")?;
    let mut ticks = own[11] + own[12] + own[13] + own[14];
    for entry in std::fs::read_dir("/proc")? {
        let Some(child) = entry?
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        if let Some(f) = fields(child).filter(|f| f.get(1) == Some(&u64::from(pid))) {
            ticks += f[11] + f[12];
        }
    }
    Ok(Duration::from_millis(ticks * 10))
}

fn main() -> Result<(), BoxError> {
    let seconds: u64 = env("REPLICAS_SECONDS", "10").parse()?;
    let rounds: usize = env("REPLICAS_ROUNDS", "4").parse()?;
    let url = env(
        "REPLICAS_POSTGRES_URL",
        "postgres://postgres@127.0.0.1:5432/test",
    );
    let replica = env(
        "REPLICAS_REPLICA_URL",
        "postgres://postgres@127.0.0.1:5433/test",
    );
    let Seeded {
        schema,
        database,
        key,
    } = seeded_account(&url, "replicas", ROWS)?;
    // The replica has the seed before the first round.
    std::thread::sleep(Duration::from_secs(2));

    println!(
        "| round | reads on | pages/s | p50 ms | p99 ms | errors | gateway CPU µs/page | primary CPU µs/page | replica CPU µs/page |"
    );
    println!("|---:|---|---:|---:|---:|---:|---:|---:|---:|");
    let modes = ["primary", "replica"];
    let mut runs: Vec<Vec<[f64; 4]>> = vec![Vec::new(); modes.len()];
    for round in 1..=rounds {
        for step in 0..modes.len() {
            let index = (step + round - 1) % modes.len();
            let mode = modes[index];
            let mut settings = [database.clone(), unthrottled()].concat();
            if mode == "replica" {
                settings.push(("GRAPHPAY_REPLICA_URLS", replica.clone()));
            }
            let (primary_before, replica_before) = (server_cpu(&url)?, server_cpu(&replica)?);
            let (run, gateway_cpu) = page_round(&settings, &key, mode, seconds)?;
            // The gateway's connections' server processes have exited and been counted.
            std::thread::sleep(Duration::from_millis(500));
            let primary_cpu = server_cpu(&url)?.saturating_sub(primary_before);
            let replica_cpu = server_cpu(&replica)?.saturating_sub(replica_before);
            let per_page = |cpu: Duration| cpu.as_secs_f64() * 1e6 / run.requests.max(1.0);
            let figures = [
                run.rps,
                per_page(gateway_cpu),
                per_page(primary_cpu),
                per_page(replica_cpu),
            ];
            runs[index].push(figures);
            println!(
                "| {round} | {mode} | {:.0} | {:.2} | {:.2} | {} | {:.0} | {:.0} | {:.0} |",
                run.rps, run.p50_ms, run.p99_ms, run.errors, figures[1], figures[2], figures[3]
            );
        }
    }
    println!();
    for (mode, runs) in modes.iter().zip(&runs) {
        let column = |i: usize| median(runs.iter().map(|r| r[i]).collect());
        println!(
            "median with reads on {mode}: {:.0} pages/s; CPU per page: gateway {:.0} µs, \
             primary {:.0} µs, replica {:.0} µs",
            column(0),
            column(1),
            column(2),
            column(3)
        );
    }
    drop_schema(&url, &schema);
    Ok(())
}
