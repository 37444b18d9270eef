//! Two documents measured in turn on one gateway, round after round, and the ratio of their
//! pages per second taken per round: a host whose speed moves by a fifth within minutes moves
//! both halves of a round alike, so the rounds' ratios agree where single figures measured
//! minutes apart do not.

use std::time::Duration;

use crate::common::{BoxError, Gateway, wrk};

/// Rounds of the pair (each document `seconds` long in every round).
const ROUNDS: usize = 5;

/// One measured wrk run of a document, with the gateway's CPU and memory beside it.
pub struct Measured {
    pub rps: f64,
    p50_ms: f64,
    p99_ms: f64,
    cpu_ms: f64,
    postgres_cpu_ms: f64,
    resident_mib: f64,
    errors: u64,
}

impl Measured {
    /// The run as a row of the page reads' table.
    pub fn line(&self, label: &str, c: usize) -> String {
        format!(
            "| {label} | {c} | {:.0} | {:.2} | {:.2} | {:.3} | {:.3} | {:.1} | {} |",
            self.rps,
            self.p50_ms,
            self.p99_ms,
            self.cpu_ms,
            self.postgres_cpu_ms,
            self.resident_mib,
            self.errors
        )
    }
}

/// Sends `args` (load.lua's mode, credential and argument) to `gateway` for `seconds` at
/// concurrency `c`.
pub fn measure(
    gateway: &Gateway,
    args: [&str; 3],
    c: usize,
    seconds: u64,
) -> Result<Measured, BoxError> {
    let before = gateway.cpu_time().unwrap_or_default();
    let postgres_before = postgres_cpu_time();
    let run = wrk(&gateway.address, "load.lua", &args, c, seconds)?;
    let cpu = gateway.cpu_time().unwrap_or_default() - before;
    let postgres = postgres_cpu_time().saturating_sub(postgres_before);
    let per_request = |time: Duration| time.as_secs_f64() * 1e3 / run.requests.max(1.0);
    Ok(Measured {
        rps: run.rps,
        p50_ms: run.p50_ms,
        p99_ms: run.p99_ms,
        cpu_ms: per_request(cpu),
        postgres_cpu_ms: per_request(postgres),
        resident_mib: gateway.resident_mib().unwrap_or_default(),
        errors: run.errors,
    })
}

/// CPU time (user + system) of this host's PostgreSQL processes (those named `postgres`, from
/// `/proc`, Linux) so far: a run's difference is the database's work for it, where the server
/// is on this host (its background processes' share included). A process that ends between
/// two readings takes its time with it, so a run's figure can only be low, never high.
fn postgres_cpu_time() -> Duration {
    let ticks: u64 = std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| std::fs::read_to_string(entry.path().join("stat")).ok())
        .filter_map(|stat| {
            let (name, rest) = stat.split_once(" (")?.1.rsplit_once(')')?;
            (name == "postgres").then_some(())?;
            let fields: Vec<&str> = rest.split_whitespace().collect();
            Some(fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?)
        })
        .sum();
    // The kernel counts in USER_HZ, 100 per second on Linux.
    Duration::from_millis(ticks * 10)
}

/// `first` and `second` (a label and load.lua's arguments each) in turn, [`ROUNDS`] times: a
/// row per run, and one with the median of the rounds' ratios of `second`'s pages per second
/// to `first`'s, with the lowest and highest.
pub fn run(
    gateway: &Gateway,
    c: usize,
    seconds: u64,
    first: (&str, [&str; 3]),
    second: (&str, [&str; 3]),
) -> Result<Vec<String>, BoxError> {
    let mut lines = Vec::new();
    let mut ratios = Vec::new();
    for round in 1..=ROUNDS {
        let mut rps = [0.0; 2];
        for (i, (label, args)) in [first, second].into_iter().enumerate() {
            let measured = measure(gateway, args, c, seconds)?;
            rps[i] = measured.rps;
            let line = measured.line(&format!("{label}, in turn (round {round})"), c);
            eprintln!("{line}");
            lines.push(line);
        }
        ratios.push(rps[1] / rps[0].max(1.0));
    }
    ratios.sort_by(f64::total_cmp);
    let line = format!(
        "| {} / {}, in turn: median of {ROUNDS} rounds' ratios (lowest-highest) | {c} | {:.2}x ({:.2}-{:.2}) | | | | | | |",
        second.0,
        first.0,
        ratios[ROUNDS / 2],
        ratios[0],
        ratios[ROUNDS - 1],
    );
    eprintln!("{line}");
    lines.push(line);
    Ok(lines)
}
