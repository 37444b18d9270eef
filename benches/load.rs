//! Load benchmark for `createPayment`: fresh keys (every request charges) and replays (every
//! request answers from the stored outcome), at several concurrencies, on SQLite and
//! PostgreSQL. The gateway runs as its own process (the release binary, built-in sandbox);
//! the load comes from wrk (`benches/load.lua`) over loopback. Beside it, pgbench runs the SQL
//! statements of one create (`benches/create_payment.pgbench.sql`) at the same concurrencies
//! on the same PostgreSQL: the database's own limit on this machine.
//!
//! On PostgreSQL a last run at the highest concurrency creates payments while a `paymentUpdated`
//! subscriber is connected and a merchant webhook endpoint (a receiver in this process, on
//! loopback, for `SUCCEEDED` events) is registered, and reports how long changes take to reach
//! them: from the change's time (`updatedAt`, the event's `createdAt`, taken just before its
//! commit) to the frame or request received, p50 and p99.
//!
//! On PostgreSQL, authorize now and capture later at the highest concurrency (`load_captures`):
//! creates, authorizations and captures of those authorizations, with pgbench running the SQL
//! of one capture (`benches/capture_payment.pgbench.sql`) beside them (`LOAD_CAPTURES=0` skips
//! it).
//!
//! Then, on PostgreSQL, page reads on an account of 1,000,000 payments (`load_reads`): the
//! first page, the page at depth 900,000 and the first page with `totalCount`, at
//! `LOAD_READ_CONCURRENCY` (default `1,32`), with pgbench running the gateway's page statement
//! beside them (`LOAD_READ_ROWS`, default 1,000,000; 0 skips the reads).
//!
//! Run with `cargo bench --bench load` (needs `wrk` and `pgbench` on the PATH). Settings:
//! `LOAD_SECONDS` (default 10), `LOAD_CONCURRENCY` (default `1,8,32`), `LOAD_DATABASES`
//! (default `sqlite,postgres`), `LOAD_POSTGRES_URL` (default
//! `postgres://postgres@127.0.0.1:5432/test`).

mod common;
mod load_captures;
mod load_reads;

use std::time::Duration;

use common::{BoxError, DIR, drop_schema, graphpay, start_gateway, wrk};

struct Settings {
    seconds: u64,
    concurrency: Vec<usize>,
    databases: Vec<String>,
    postgres_url: String,
    /// Concurrencies of the page reads (PostgreSQL).
    read_concurrency: Vec<usize>,
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
        read_concurrency: env("LOAD_READ_CONCURRENCY", "1,32")
            .split(',')
            .filter_map(|c| c.trim().parse().ok())
            .collect(),
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
    let out = common::pgbench(url, schema)
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

fn main() -> Result<(), BoxError> {
    let settings = settings();
    let script = format!("{DIR}/benches/create_payment.pgbench.sql");
    let mut live_lines = Vec::new();
    let mut schemas_to_drop: Vec<String> = Vec::new();
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
            // Stopped before pgbench runs, so that nothing else uses the machine meanwhile.
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
                Some(run(&script)?)
            } else {
                None
            };
            for (kind, run) in [("create", &creates), ("replay", &replays)] {
                let beside = match (kind, limits) {
                    ("create", Some(tps)) => {
                        format!("{tps:.0} ({:.0}% of it)", 100.0 * run.rps / tps)
                    }
                    _ => String::new(),
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
        if database == "postgres"
            && let Some(&c) = settings.concurrency.iter().max()
        {
            // A schema of its own: pgbench's rows (placeholder snapshots) stay out of it.
            let live_schema = format!("{schema}_live");
            let env = [
                env.iter()
                    .filter(|(name, _)| *name != "DATABASE_SCHEMA")
                    .cloned()
                    .collect::<Vec<_>>(),
                vec![
                    ("DATABASE_SCHEMA", live_schema.clone()),
                    ("GRAPHPAY_WEBHOOKS_ALLOW_PRIVATE_ADDRESSES", "1".to_string()),
                ],
            ]
            .concat();
            let created = graphpay(&env)
                .args(["account", "create", "--name", "live", "--json"])
                .output()?;
            let created: serde_json::Value = serde_json::from_slice(&created.stdout)?;
            let key = created["apiKey"].as_str().ok_or("no key")?.to_string();
            schemas_to_drop.push(live_schema);
            let gateway = start_gateway(&env)?;
            let observers = live::Observers::start(&gateway.address, &key)?;
            let creates = wrk(
                &gateway.address,
                "load.lua",
                &["create", &key, &run_id()],
                c,
                settings.seconds,
            )?;
            let (frames, hooks) = observers.finish(creates.requests as usize);
            drop(gateway);
            let line = format!(
                "| {name} | {c} | {:.0} | {:.2} | {} | {} |",
                creates.rps,
                creates.p99_ms,
                frames.describe(),
                hooks.describe()
            );
            eprintln!("{line}");
            live_lines.push(line);
        }
        if database == "postgres" {
            schemas_to_drop.push(schema.clone());
            for schema in schemas_to_drop.drain(..) {
                drop_schema(&settings.postgres_url, &schema);
            }
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    println!(
        "| database | request | concurrency | requests/s | p50 ms | p99 ms | errors | pgbench creates/s (same SQL) |"
    );
    println!("|---|---|---:|---:|---:|---:|---:|---|");
    for line in table {
        println!("{line}");
    }
    println!();
    println!("| database | concurrency | replays/s over creates/s |");
    println!("|---|---:|---:|");
    for line in ratios {
        println!("{line}");
    }
    println!();
    println!(
        "| database | concurrency | creates/s | create p99 ms | subscription frames: received, lag p50 / p99 ms | webhooks (SUCCEEDED): received, lag p50 / p99 ms |"
    );
    println!("|---|---:|---:|---:|---|---|");
    for line in live_lines {
        println!("{line}");
    }
    let captures_wanted = std::env::var("LOAD_CAPTURES").map_or(true, |v| v != "0");
    if captures_wanted
        && settings.databases.iter().any(|d| d == "postgres")
        && let Some(&c) = settings.concurrency.iter().max()
    {
        let lines = load_captures::run(&settings.postgres_url, settings.seconds, c)?;
        println!();
        println!(
            "| database | request | concurrency | requests/s | p50 ms | p99 ms | errors | pgbench captures/s (same SQL) |"
        );
        println!("|---|---|---:|---:|---:|---:|---:|---|");
        for line in lines {
            println!("{line}");
        }
    }
    if settings.databases.iter().any(|d| d == "postgres") {
        let reads = load_reads::run(
            &settings.postgres_url,
            settings.seconds,
            &settings.read_concurrency,
        )?;
        println!();
        println!(
            "| PostgreSQL page read | concurrency | requests/s | p50 ms | p99 ms | gateway CPU ms per request | PostgreSQL CPU ms per request | gateway resident MiB | errors |"
        );
        println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
        for line in reads.lines {
            println!("{line}");
        }
    }
    Ok(())
}

/// A subscriber and a webhook receiver that time what reaches them during a run.
mod live {
    use std::sync::{Arc, Mutex};
    use std::time::Duration;

    use futures_util::{SinkExt, StreamExt};
    use graphpay::domain::time::Timestamp;
    use serde_json::{Value, json};
    use tokio_tungstenite::tungstenite::Message;
    use tokio_tungstenite::tungstenite::client::IntoClientRequest;

    use super::BoxError;

    /// Milliseconds from each change to its arrival.
    #[derive(Default)]
    pub struct Lags {
        pub lags_ms: Vec<f64>,
        pub expected: usize,
    }

    impl Lags {
        fn percentile(&self, p: f64) -> f64 {
            let mut sorted = self.lags_ms.clone();
            sorted.sort_by(f64::total_cmp);
            if sorted.is_empty() {
                return f64::NAN;
            }
            let at = ((p / 100.0) * (sorted.len() - 1) as f64).round() as usize;
            sorted[at]
        }

        pub fn describe(&self) -> String {
            format!(
                "{} of {}, {:.1} / {:.1}",
                self.lags_ms.len(),
                self.expected,
                self.percentile(50.0),
                self.percentile(99.0)
            )
        }
    }

    fn lag_since(rfc3339: &str) -> Option<f64> {
        let at = Timestamp::parse_rfc3339(rfc3339).ok()?;
        Some((Timestamp::now().micros() - at.micros()) as f64 / 1000.0)
    }

    pub struct Observers {
        runtime: tokio::runtime::Runtime,
        frames: Arc<Mutex<Vec<f64>>>,
        hooks: Arc<Mutex<Vec<f64>>>,
    }

    impl Observers {
        /// Registers a receiver for the account's SUCCEEDED events and subscribes to its
        /// payments; returns once both are in place.
        pub fn start(address: &str, key: &str) -> Result<Self, BoxError> {
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(1)
                .enable_all()
                .build()?;
            let frames: Arc<Mutex<Vec<f64>>> = Arc::default();
            let hooks: Arc<Mutex<Vec<f64>>> = Arc::default();
            let (address, key) = (address.to_string(), key.to_string());
            let (f, h) = (frames.clone(), hooks.clone());
            runtime.block_on(async move {
                let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
                let url = format!("http://{}/hook", listener.local_addr()?);
                let router = axum::Router::new().route(
                    "/hook",
                    axum::routing::post(move |body: axum::body::Bytes| {
                        let h = h.clone();
                        async move {
                            let body: Value = serde_json::from_slice(&body).unwrap_or_default();
                            if let Some(lag) = body["createdAt"].as_str().and_then(lag_since) {
                                h.lock().unwrap().push(lag);
                            }
                            "ok"
                        }
                    }),
                );
                tokio::spawn(async move {
                    let _ = axum::serve(listener, router).await;
                });
                graphpay::tls::install_default_provider();
                let client = reqwest::Client::new();
                let created: Value = client
                    .post(format!("{address}/graphql"))
                    .bearer_auth(&key)
                    .json(&json!({
                        "query": "mutation($url: String!) { createWebhookEndpoint(input: {url: $url, statuses: [SUCCEEDED]}) { endpoint { id } } }",
                        "variables": {"url": url},
                    }))
                    .send()
                    .await?
                    .json()
                    .await?;
                if created["errors"].is_array() {
                    return Err(format!("could not register the receiver: {created}").into());
                }
                let ws = format!("{}/graphql/ws", address.replace("http://", "ws://"));
                let mut request = ws.into_client_request()?;
                request
                    .headers_mut()
                    .insert("sec-websocket-protocol", "graphql-transport-ws".parse()?);
                let (mut socket, _) = tokio_tungstenite::connect_async(request).await?;
                let init = json!({"type": "connection_init",
                    "payload": {"Authorization": format!("Bearer {key}")}});
                socket.send(Message::text(init.to_string())).await?;
                let subscribe = json!({"id": "1", "type": "subscribe", "payload": {
                    "query": "subscription { paymentUpdated { updatedAt } }"}});
                socket.send(Message::text(subscribe.to_string())).await?;
                tokio::spawn(async move {
                    while let Some(Ok(message)) = socket.next().await {
                        let Ok(text) = message.to_text() else { continue };
                        let Ok(value) = serde_json::from_str::<Value>(text) else { continue };
                        if let Some(lag) = value["payload"]["data"]["paymentUpdated"]["updatedAt"]
                            .as_str()
                            .and_then(lag_since)
                        {
                            f.lock().unwrap().push(lag);
                        }
                    }
                });
                // Let the subscription be taken in before the load starts.
                tokio::time::sleep(Duration::from_millis(500)).await;
                Ok::<(), BoxError>(())
            })?;
            Ok(Self {
                runtime,
                frames,
                hooks,
            })
        }

        /// Waits (up to 10 s) for the stragglers, then reports. `creates` payments were
        /// made: each makes two changes and one SUCCEEDED event.
        pub fn finish(self, creates: usize) -> (Lags, Lags) {
            let deadline = std::time::Instant::now() + Duration::from_secs(10);
            while std::time::Instant::now() < deadline
                && (self.frames.lock().unwrap().len() < 2 * creates
                    || self.hooks.lock().unwrap().len() < creates)
            {
                std::thread::sleep(Duration::from_millis(100));
            }
            let frames = Lags {
                lags_ms: self.frames.lock().unwrap().clone(),
                expected: 2 * creates,
            };
            let hooks = Lags {
                lags_ms: self.hooks.lock().unwrap().clone(),
                expected: creates,
            };
            self.runtime.shutdown_background();
            (frames, hooks)
        }
    }
}

/// The set-up requests, made from a runtime of their own.
mod setup {
    pub fn replay_key_maker() -> impl Fn(&str, &str, u64) -> Result<(), super::BoxError> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        graphpay::tls::install_default_provider();
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
