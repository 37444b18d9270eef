//! One wrk run of a document against a gateway, with the gateway's and PostgreSQL's CPU per
//! request and the gateway's memory beside it: a row of the page reads' table.

use std::time::Duration;

use crate::common::{BoxError, Gateway, wrk};

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
