//! Authorize now, capture later, on PostgreSQL, beside creates: at one concurrency, creates
//! (fresh keys), then authorizations (fresh keys, `captureMethod: MANUAL`) for twice the run's
//! seconds, then captures of those payments (a fresh key each) for the run's seconds. Beside
//! them pgbench runs the SQL statements of one capture (`benches/capture_payment.pgbench.sql`)
//! on authorized payments it seeds in a schema of its own.

use std::process::Command;

use super::common::{BoxError, DIR, drop_schema, graphpay, start_gateway, unthrottled, wrk};
use super::{pgbench, run_id, sha256_hex};

/// Authorized payments seeded for pgbench's captures, which pick among them at random.
const SEEDED: u64 = 500_000;

/// Runs the captures benchmark; returns the table's lines.
pub fn run(postgres_url: &str, seconds: u64, concurrency: usize) -> Result<Vec<String>, BoxError> {
    let schema = format!(
        "bench_capture_{}",
        ulid::Ulid::generate().to_string().to_lowercase()
    );
    let env = [
        vec![
            ("DATABASE_URL", postgres_url.to_string()),
            ("DATABASE_SCHEMA", schema.clone()),
        ],
        unthrottled(),
    ]
    .concat();
    let result = measure(postgres_url, &schema, &env, seconds, concurrency);
    drop_schema(postgres_url, &schema);
    drop_schema(postgres_url, &format!("{schema}_pgbench"));
    result
}

fn measure(
    postgres_url: &str,
    schema: &str,
    env: &[(&str, String)],
    seconds: u64,
    c: usize,
) -> Result<Vec<String>, BoxError> {
    let created = graphpay(env)
        .args(["account", "create", "--name", "captures", "--json"])
        .output()?;
    let created: serde_json::Value = serde_json::from_slice(&created.stdout)?;
    let key = created["apiKey"].as_str().ok_or("no key")?.to_string();

    let gateway = start_gateway(env)?;
    let creates = wrk(
        &gateway.address,
        "load.lua",
        &["create", &key, &run_id()],
        c,
        seconds,
    )?;
    let authorizes = wrk(
        &gateway.address,
        "load.lua",
        &["authorize", &key, &run_id()],
        c,
        2 * seconds,
    )?;
    let ids = tempfile::NamedTempFile::new()?;
    let listed = Command::new("psql")
        .arg(postgres_url)
        .args([
            "-qAtc",
            &format!(
                "SELECT id FROM \"{schema}\".payments WHERE status = 'REQUIRES_CAPTURE' ORDER BY id"
            ),
        ])
        .output()?;
    std::fs::write(ids.path(), &listed.stdout)?;
    let authorized = listed
        .stdout
        .split(|b| *b == b'\n')
        .filter(|l| !l.is_empty())
        .count();
    let path = ids.path().display().to_string();
    let threads = c.min(2).to_string();
    let captures = wrk(
        &gateway.address,
        "load.lua",
        &["capture", &key, &path, &threads],
        c,
        seconds,
    )?;
    drop(gateway);
    if captures.requests as usize > authorized {
        eprintln!(
            "captures: {} requests for {authorized} authorized payments; the rest answered errors",
            captures.requests
        );
    }

    eprintln!(
        "gateway at {c}: creates {:.0}/s, authorizations {:.0}/s, captures {:.0}/s ({} errors)",
        creates.rps, authorizes.rps, captures.rps, captures.errors
    );
    let (pg_account, pg_schema) = seed(postgres_url, schema)?;
    let limit = pgbench(
        &format!("{DIR}/benches/capture_payment.pgbench.sql"),
        postgres_url,
        &pg_schema,
        &pg_account,
        &sha256_hex(&key),
        c,
        seconds,
    )?;
    let line = |kind: &str, run: &super::common::Run, beside: String| {
        format!(
            "| PostgreSQL | {kind} | {c} | {:.0} | {:.2} | {:.2} | {} | {beside} |",
            run.rps, run.p50_ms, run.p99_ms, run.errors
        )
    };
    let lines = vec![
        line("create", &creates, String::new()),
        line("authorize", &authorizes, String::new()),
        line(
            "capture",
            &captures,
            format!(
                "{limit:.0} ({:.0}% of it); captures/s over creates/s: {:.2}",
                100.0 * captures.rps / limit,
                captures.rps / creates.rps
            ),
        ),
    ];
    for line in &lines {
        eprintln!("{line}");
    }
    Ok(lines)
}

/// A schema beside the gateway's, migrated, with [`SEEDED`] authorized payments (and the
/// sandbox's authorizations) of one account for pgbench's captures; returns the account and
/// the schema.
fn seed(postgres_url: &str, schema: &str) -> Result<(String, String), BoxError> {
    let pg_schema = format!("{schema}_pgbench");
    let env = vec![
        ("DATABASE_URL", postgres_url.to_string()),
        ("DATABASE_SCHEMA", pg_schema.clone()),
    ];
    let created = graphpay(&env)
        .args(["account", "create", "--name", "pgbench", "--json"])
        .output()?;
    let created: serde_json::Value = serde_json::from_slice(&created.stdout)?;
    let account = created["accountId"]
        .as_str()
        .ok_or("no account")?
        .to_string();
    // The counts' trigger is off while seeding (one row updated half a million times in one
    // transaction is slow) and the count written once; it is on again for pgbench's captures.
    let sql = format!(
        "SET search_path = \"{pg_schema}\";
         ALTER TABLE payments DISABLE TRIGGER payments_counted;
         INSERT INTO payments (id, account_id, amount, currency, status, amount_refunded, source,
             processor_key, version, created_at, updated_at, capture_method, amount_capturable,
             capture_before)
         SELECT 'pay_pgbcap_' || n, '{account}', 1000, 'USD', 'REQUIRES_CAPTURE', 0, 'tok_visa',
             'pay_pgbcap_' || n, 1, 1700000000000000 + n, 1700000000000000 + n, 'MANUAL', 1000,
             1900000000000000
         FROM generate_series(1, {SEEDED}) AS n;
         INSERT INTO sandbox_operations (idempotency_key, kind, reference, source, amount,
             currency, status, attempts, created_at)
         SELECT 'pay_pgbcap_' || n, 'authorization', 'ch_' || n, 'tok_visa', 1000, 'USD',
             'approved', 1, 1700000000000000 + n
         FROM generate_series(1, {SEEDED}) AS n;
         ALTER TABLE payments ENABLE TRIGGER payments_counted;
         INSERT INTO payment_counts (account_id, status, bucket, count)
         VALUES ('{account}', 'REQUIRES_CAPTURE', 0, {SEEDED});
         ANALYZE payments; ANALYZE sandbox_operations;"
    );
    let status = Command::new("psql")
        .arg(postgres_url)
        .args(["-qc", &sql])
        .status()?;
    if !status.success() {
        return Err("seeding pgbench's authorized payments failed".into());
    }
    Ok((account, pg_schema))
}
