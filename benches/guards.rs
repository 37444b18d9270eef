//! What the query limits, cost and budget cost a page read: the release gateway, on
//! PostgreSQL with 10,000 payments in one account, answers the first page of 50 (cursors and
//! `pageInfo`) under wrk at concurrency 32, in alternating rounds with the limits on (the
//! account's budget large enough never to throttle, but taken and refunded on every request)
//! and off (`GRAPHPAY_UNLIMITED_QUERIES`, a setting that only a build with the feature
//! `test-support` has, as `cargo bench` builds the gateway). Rounds alternate so that drift
//! weighs on both alike.
//!
//! Then, in this process, the checks themselves: the text scan, parse, shape check and cost
//! plan of that page's document, and the refusal of hostile documents (deep nesting, fragment
//! fan-out), each timed over many runs.
//!
//! Run with `cargo bench --bench guards` (needs `wrk`). Settings: `GUARDS_SECONDS` (default
//! 10), `GUARDS_ROUNDS` (default 6), `GUARDS_MODES` (default `on,redis,off`),
//! `GUARDS_POSTGRES_URL` (default `postgres://postgres@127.0.0.1:5432/test`),
//! `GUARDS_REDIS_URL` (default `redis://127.0.0.1:6379/`).

mod common;

use std::time::Instant;

use async_graphql::Variables;
use async_graphql::parser::parse_query;
use common::{BoxError, Seeded, drop_schema, median, page_round, seeded_account, unthrottled};
use graphpay::graphql::limits::QueryLimits;
use graphpay::graphql::limits::cost::{Plan, TypeTable};
use graphpay::graphql::limits::shape::ShapeRefusal;
use graphpay::graphql::limits::{lexical, shape};
use graphpay::graphql::operation;

const PAGE: &str = "query Page { payments(first: 50) { edges { cursor node { id amount currency status createdAt } } pageInfo { hasNextPage endCursor } } }";
const ROWS: i64 = 10_000;

fn env(name: &str, default: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| default.to_string())
}

fn main() -> Result<(), BoxError> {
    let seconds: u64 = env("GUARDS_SECONDS", "10").parse()?;
    let rounds: usize = env("GUARDS_ROUNDS", "6").parse()?;
    let url = env(
        "GUARDS_POSTGRES_URL",
        "postgres://postgres@127.0.0.1:5432/test",
    );
    let Seeded {
        schema,
        database,
        key,
    } = seeded_account(&url, "guards", ROWS)?;

    let modes: Vec<String> = env("GUARDS_MODES", "on,redis,off")
        .split(',')
        .map(|m| m.trim().to_string())
        .filter(|m| !m.is_empty())
        .collect();
    let redis = env("GUARDS_REDIS_URL", "redis://127.0.0.1:6379/");
    // Rounds rotate the order of the modes so that drift over time weighs on all alike.
    // Beside throughput, the gateway's own CPU time per request, read from the kernel, is the
    // steadier figure: it does not depend on what else the machine does.
    println!(
        "| round | limits | requests/s | p50 ms | p99 ms | errors | gateway CPU µs per request |"
    );
    println!("|---:|---|---:|---:|---:|---:|---:|");
    let mut runs: Vec<Vec<(f64, f64)>> = vec![Vec::new(); modes.len()];
    for round in 1..=rounds {
        for step in 0..modes.len() {
            let index = (step + round - 1) % modes.len();
            let mode = modes[index].as_str();
            let mut settings = [database.clone(), unthrottled()].concat();
            match mode {
                "off" => settings.push(("GRAPHPAY_UNLIMITED_QUERIES", "true".into())),
                "redis" => settings.push(("GRAPHPAY_REDIS_URL", redis.clone())),
                _ => {}
            }
            let (run, cpu) = page_round(&settings, &key, mode, seconds)?;
            let cpu_per_request = cpu.as_secs_f64() * 1e6 / run.requests.max(1.0);
            runs[index].push((run.rps, cpu_per_request));
            println!(
                "| {round} | {mode} | {:.0} | {:.2} | {:.2} | {} | {cpu_per_request:.0} |",
                run.rps, run.p50_ms, run.p99_ms, run.errors
            );
        }
    }
    println!();
    for (mode, runs) in modes.iter().zip(&runs) {
        println!(
            "median for {mode}: {:.0} requests/s, gateway CPU {:.0} µs per request",
            median(runs.iter().map(|r| r.0).collect()),
            median(runs.iter().map(|r| r.1).collect()),
        );
    }
    println!();
    checks_in_process();

    drop_schema(&url, &schema);
    Ok(())
}

/// Mean time of `f` over `runs` runs, in microseconds.
fn time(runs: u32, mut f: impl FnMut()) -> f64 {
    f();
    let started = Instant::now();
    for _ in 0..runs {
        f();
    }
    started.elapsed().as_secs_f64() * 1e6 / f64::from(runs)
}

fn checks_in_process() {
    let limits = QueryLimits::default();
    let table = TypeTable::from_sdl(&graphpay::graphql::sdl());
    let variables = Variables::default();
    let admit = |text: &str| -> Result<u64, String> {
        lexical::check(text, limits.text).map_err(|r| r.message())?;
        let doc = parse_query(text).map_err(|e| e.to_string())?;
        shape::check(&doc, limits.shape).map_err(|r| r.message())?;
        let operation =
            operation::find(&doc, None).map_err(|r| ShapeRefusal::from(&r).message())?;
        Ok(Plan::new(&table, &doc, operation.definition, &variables).requested())
    };
    let parse_only = |text: &str| {
        let _ = parse_query(text);
    };
    let mut fan_out = String::from("fragment F0 on Query { viewer { id name } }\n");
    for k in 1..=24 {
        fan_out.push_str(&format!(
            "fragment F{k} on Query {{ ...F{p} a{k}: viewer {{ id }} ...F{p} }}\n",
            p = k - 1
        ));
    }
    fan_out.push_str("{ ...F24 }");
    let deep = format!(
        "{{ nodes(ids: {}\"x\"{}) {{ id }} }}",
        "[".repeat(2_000),
        "]".repeat(2_000)
    );
    println!("| check | document | outcome | µs per run |");
    println!("|---|---|---|---:|");
    println!(
        "| parse only (for scale) | the page | | {:.1} |",
        time(20_000, || parse_only(PAGE))
    );
    for (name, text) in [
        ("the page", PAGE),
        ("fragment fan-out, 24 levels", fan_out.as_str()),
        ("2,000 nested lists", deep.as_str()),
    ] {
        let outcome = match admit(text) {
            Ok(cost) => format!("admitted, cost {cost}"),
            Err(refusal) => format!("refused: {refusal}"),
        };
        println!(
            "| text, parse, shape, cost | {name} | {outcome} | {:.1} |",
            time(20_000, || {
                let _ = admit(text);
            })
        );
    }
}
