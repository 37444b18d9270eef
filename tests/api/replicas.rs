//! Reads on a PostgreSQL streaming replica (`TEST_REPLICA_URL`, made by `.ci/replica start`):
//! read your writes with consistency tokens while the replica's replay is paused, the lag
//! bound for reads without one, pages and cursors across primary and replica, a replica
//! stopped mid-run, one that stops answering (behind a relay that passes nothing), and a
//! recovery conflict answered by the primary. Which server answered a
//! read is read from the gateway's metrics (`graphpay_reads_total{target}`).
//!
//! These tests pause, stop and restart the one replica, so they take turns: each holds a
//! PostgreSQL advisory lock on the primary for as long as it runs. Compiled as ignored unless
//! `TEST_REPLICA_URL` was set when the tests were built.

use std::time::{Duration, Instant};

use graphpay::persistence::{Db, DbConfig};
use serde_json::{Value, json};

use crate::helpers::{CREATE, GatewayProcess, input, postgres_url};

const HEADER: &str = "graphpay-consistency-token";
/// Held by the test that has the replica.
const REPLICA_LOCK: i64 = 0x6770_7265_706c_6963;
const READ: &str = "query P($id: ID!) { payment(id: $id) { id status amount } }";
const PAGE: &str = "query Page($after: String) {
  payments(first: 4, after: $after) {
    edges { cursor node { id amount status } }
    pageInfo { hasNextPage endCursor }
  }
}";
const READS_ON_REPLICA: &str = "graphpay_reads_total{target=\"replica\"}";
const REPLICA_ERRORS: &str = "graphpay_read_fallbacks_total{reason=\"replica_error\"}";

fn replica_url() -> String {
    std::env::var("TEST_REPLICA_URL")
        .expect("TEST_REPLICA_URL must name a streaming replica of TEST_DATABASE_URL's server")
}

fn config(url: String, schema: Option<String>) -> DbConfig {
    DbConfig {
        url,
        schema,
        max_connections: 2,
        busy_timeout: Duration::from_secs(5),
        acquire_timeout: Duration::from_secs(10),
    }
}

/// Runs `.ci/replica <command>` (start: make sure it runs and replays; stop).
async fn control(command: &'static str) {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/.ci/replica");
    let output = tokio::task::spawn_blocking(move || {
        std::process::Command::new("bash")
            .args([script, command])
            .output()
            .expect(".ci/replica runs")
    })
    .await
    .unwrap();
    assert!(
        output.status.success(),
        ".ci/replica {command}: {}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

/// The replica, for this test alone; a schema of its own on the primary.
struct Held {
    primary: Db,
    schema: String,
    _lock: Db,
}

impl Held {
    async fn take() -> Held {
        let lock = Db::connect(&config(postgres_url(), None)).await.unwrap();
        lock.execute_unprepared(&format!("SELECT pg_advisory_lock({REPLICA_LOCK})"))
            .await
            .unwrap();
        // Running and replaying, whatever an earlier test left behind.
        control("start").await;
        let schema = format!("gpt_{}", ulid::Ulid::generate().to_string().to_lowercase());
        let primary = Db::connect(&config(postgres_url(), Some(schema.clone())))
            .await
            .unwrap();
        Held {
            primary,
            schema,
            _lock: lock,
        }
    }

    fn gateway(&self, max_lag_ms: u64) -> GatewayProcess {
        self.gateway_on(&replica_url(), max_lag_ms)
    }

    /// A gateway whose replica is at `replica` (the replica, or a way to it).
    fn gateway_on(&self, replica: &str, max_lag_ms: u64) -> GatewayProcess {
        GatewayProcess::start(&[
            ("DATABASE_URL", postgres_url().as_str()),
            ("DATABASE_SCHEMA", self.schema.as_str()),
            ("GRAPHPAY_REPLICA_URLS", replica),
            (
                "GRAPHPAY_REPLICA_MAX_LAG_MS",
                max_lag_ms.to_string().as_str(),
            ),
            ("GRAPHPAY_METRICS_LISTEN", "127.0.0.1:0"),
            ("RUST_LOG", "warn,graphpay=info"),
        ])
    }

    async fn replica(&self) -> Db {
        Db::connect(&config(replica_url(), None)).await.unwrap()
    }

    /// Pauses the replica's replay; returns once it is paused.
    async fn pause(&self) {
        let replica = self.replica().await;
        replica
            .execute_unprepared("SELECT pg_wal_replay_pause()")
            .await
            .unwrap();
        for _ in 0..100 {
            let state = replica
                .query_text("SELECT pg_get_wal_replay_pause_state()::text AS s")
                .await
                .unwrap();
            if state[0][0] == "paused" {
                return;
            }
            // Replay pauses at its next record: write one.
            self.primary
                .execute_unprepared("SELECT pg_switch_wal()")
                .await
                .ok();
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        panic!("the replica's replay did not pause");
    }

    async fn resume(&self) {
        self.replica()
            .await
            .execute_unprepared("SELECT pg_wal_replay_resume()")
            .await
            .unwrap();
    }

    async fn finish(self) {
        self.resume().await;
        let _ = self
            .primary
            .execute_unprepared(&format!(
                "DROP SCHEMA IF EXISTS \"{}\" CASCADE",
                self.schema
            ))
            .await;
    }
}

/// A read through `gateway` (with `token` in the header, if any): its answer, and whether the
/// replica answered it.
async fn read(
    gateway: &GatewayProcess,
    token: Option<&str>,
    query: &str,
    variables: Value,
) -> (Value, bool) {
    let before = gateway.metric(READS_ON_REPLICA).await;
    let headers: Vec<(&str, &str)> = token.map(|t| (HEADER, t)).into_iter().collect();
    let (status, _, body) = gateway
        .exchange(Some(&gateway.key), &headers, query, variables)
        .await;
    assert_eq!(status, 200, "{body}");
    assert!(body.get("errors").is_none(), "{body}");
    let on_replica = gateway.metric(READS_ON_REPLICA).await > before;
    (body, on_replica)
}

/// Reads through `gateway` until the replica answers one (it is checked every 0.1 s).
async fn until_on_replica(
    gateway: &GatewayProcess,
    token: Option<&str>,
    query: &str,
    variables: Value,
) -> Value {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let (body, on_replica) = read(gateway, token, query, variables.clone()).await;
        if on_replica {
            return body;
        }
        assert!(
            Instant::now() < deadline,
            "the replica never answered; the gateway's log:\n{}",
            gateway.logs()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Creates a payment through `gateway`; its id and the answer's consistency token.
async fn create(gateway: &GatewayProcess, key: &str) -> (String, String) {
    let variables = json!({"input": input(1_250, "tok_visa"), "key": key});
    let (status, headers, body) = gateway
        .exchange(Some(&gateway.key), &[], CREATE, variables)
        .await;
    assert_eq!(status, 200, "{body}");
    let token = headers
        .get(HEADER)
        .expect("a mutation's answer carries a token")
        .to_str()
        .unwrap()
        .to_string();
    assert_eq!(body["extensions"]["consistency"]["token"], token.as_str());
    let id = body["data"]["createPayment"]["payment"]["id"]
        .as_str()
        .unwrap_or_else(|| panic!("{body}"))
        .to_string();
    (id, token)
}

macro_rules! replica_tests {
    ($($name:ident),* $(,)?) => {$(
        #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
        #[cfg_attr(
            not(replica_tests),
            ignore = "TEST_REPLICA_URL is not set: REPLICA test NOT run"
        )]
        async fn $name() {
            let held = Held::take().await;
            self::bodies::$name(&held).await;
            held.finish().await;
        }
    )*};
}

replica_tests!(
    reads_see_their_writes_while_replay_is_paused,
    pages_and_cursors_are_the_same_on_replica_and_primary,
    a_replica_stopped_mid_run_fails_no_read,
    a_recovery_conflict_is_answered_by_the_primary,
    a_replica_that_hangs_fails_no_read,
);

/// A TCP relay to the replica that can be frozen: it then passes no byte either way (a
/// replica behind a network that drops packets), keeping every connection open.
struct Relay {
    port: u16,
    frozen: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

impl Relay {
    async fn start(to: u16) -> Relay {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let frozen = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let relay_frozen = frozen.clone();
        tokio::spawn(async move {
            while let Ok((client, _)) = listener.accept().await {
                let Ok(server) = tokio::net::TcpStream::connect(("127.0.0.1", to)).await else {
                    continue;
                };
                let (client_read, client_write) = client.into_split();
                let (server_read, server_write) = server.into_split();
                tokio::spawn(pump(client_read, server_write, relay_frozen.clone()));
                tokio::spawn(pump(server_read, client_write, relay_frozen.clone()));
            }
        });
        Relay { port, frozen }
    }

    fn freeze(&self, frozen: bool) {
        self.frozen
            .store(frozen, std::sync::atomic::Ordering::Relaxed);
    }
}

/// Copies `from` to `to`, holding what it read while frozen.
async fn pump(
    mut from: tokio::net::tcp::OwnedReadHalf,
    mut to: tokio::net::tcp::OwnedWriteHalf,
    frozen: std::sync::Arc<std::sync::atomic::AtomicBool>,
) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut buffer = vec![0u8; 16 * 1024];
    loop {
        while frozen.load(std::sync::atomic::Ordering::Relaxed) {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let Ok(n @ 1..) = from.read(&mut buffer).await else {
            return;
        };
        while frozen.load(std::sync::atomic::Ordering::Relaxed) {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        if to.write_all(&buffer[..n]).await.is_err() {
            return;
        }
    }
}

mod bodies {
    use super::*;

    pub async fn reads_see_their_writes_while_replay_is_paused(held: &Held) {
        let gateway = held.gateway(10_000);
        until_on_replica(&gateway, None, "{ viewer { id } }", json!({})).await;
        held.pause().await;
        let (id, token) = create(&gateway, "paused-1").await;
        let vars = json!({"id": id});

        // With the token: the replica has not replayed the write, so the primary answers.
        let behind = "graphpay_read_fallbacks_total{reason=\"behind_token\"}";
        let before = gateway.metric(behind).await;
        let (seen, on_replica) = read(&gateway, Some(&token), READ, vars.clone()).await;
        assert!(!on_replica);
        assert_eq!(seen["data"]["payment"]["id"], id.as_str(), "{seen}");
        assert_eq!(gateway.metric(behind).await, before + 1.0);

        // Without: the replica, while its lag is within the bound (10 s here), which has not
        // seen the payment yet.
        let (stale, on_replica) = read(&gateway, None, READ, vars.clone()).await;
        assert!(on_replica, "a read without a token within the bound");
        assert_eq!(stale["data"]["payment"], Value::Null, "{stale}");

        // In a batch, a read after a mutation sees the mutation's writes.
        let batch = json!([
            {"query": CREATE, "variables": {"input": input(900, "tok_visa"), "key": "paused-2"}},
            {"query": "{ payments(first: 1) { nodes { id } } }"},
        ]);
        let answers: Value = gateway
            .http
            .post(format!("{}/graphql", gateway.address))
            .bearer_auth(&gateway.key)
            .json(&batch)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        let second = &answers[0]["data"]["createPayment"]["payment"]["id"];
        assert!(second.is_string(), "{answers}");
        assert_eq!(
            &answers[1]["data"]["payments"]["nodes"][0]["id"], second,
            "{answers}"
        );

        // What became of a request sent with a key is read on the primary, whole, token or
        // not: a client whose create timed out has no token.
        let record =
            "query R($key: String!) { idempotencyRecord(key: $key) { state payment { id } } }";
        let (record, on_replica) = read(&gateway, None, record, json!({"key": "paused-1"})).await;
        assert!(!on_replica);
        assert_eq!(
            record["data"]["idempotencyRecord"]["payment"]["id"],
            id.as_str(),
            "{record}"
        );

        // Past the bound: the primary.
        tokio::time::sleep(Duration::from_millis(10_300)).await;
        let lagging = "graphpay_read_fallbacks_total{reason=\"lagging\"}";
        let before = gateway.metric(lagging).await;
        let (fresh, on_replica) = read(&gateway, None, READ, vars.clone()).await;
        assert!(!on_replica, "a replica past the bound answers no read");
        assert_eq!(fresh["data"]["payment"]["id"], id.as_str(), "{fresh}");
        assert_eq!(gateway.metric(lagging).await, before + 1.0);
        assert!(gateway.metric("graphpay_replica_lag_seconds{").await >= 10.0);

        // Replay resumed: reads with the token go to the replica again, and see the write.
        held.resume().await;
        let seen = until_on_replica(&gateway, Some(&token), READ, vars).await;
        assert_eq!(seen["data"]["payment"]["id"], id.as_str(), "{seen}");
        let deadline = Instant::now() + Duration::from_secs(20);
        while gateway.metric("graphpay_replica_lag_seconds{").await >= 1.0 {
            assert!(Instant::now() < deadline, "the replica never caught up");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    pub async fn pages_and_cursors_are_the_same_on_replica_and_primary(held: &Held) {
        let gateway = held.gateway(1_000);
        let mut token = String::new();
        for n in 0..14 {
            token = create(&gateway, &format!("page-{n}")).await.1;
        }
        // A header that is not a token sends a read to the primary.
        let primary = Some("not-a-token");
        let page = |on: Option<String>, after: Value| {
            let gateway = &gateway;
            async move {
                let vars = json!({"after": after});
                let body = match on.as_deref() {
                    Some(token) => until_on_replica(gateway, Some(token), PAGE, vars).await,
                    None => {
                        let (body, on_replica) = read(gateway, primary, PAGE, vars).await;
                        assert!(!on_replica);
                        body
                    }
                };
                body["data"]["payments"].clone()
            }
        };
        // Three walks: all on the primary, all on the replica, and switching at every page,
        // each page's cursor taken to the other server.
        let mut walks = Vec::new();
        for choose in [
            |_: usize| false,
            |_: usize| true,
            |n: usize| n.is_multiple_of(2),
        ] {
            let (mut edges, mut after, mut n) = (Vec::new(), Value::Null, 0);
            loop {
                let on = choose(n).then(|| token.clone());
                let got = page(on, after).await;
                edges.extend(got["edges"].as_array().unwrap().iter().cloned());
                if got["pageInfo"]["hasNextPage"] != json!(true) {
                    break;
                }
                after = got["pageInfo"]["endCursor"].clone();
                n += 1;
            }
            walks.push(edges);
        }
        // The event log reads the same on either, once both have every writer of these events
        // behind them (the log shows only events below the oldest transaction still running,
        // and other tests' transactions run on the same server).
        let events = "{ events(first: 50) { edges { cursor node { id type } } } }";
        let mut tries = 0;
        loop {
            let (on_primary, _) = read(&gateway, primary, events, json!({})).await;
            let on_replica = until_on_replica(&gateway, Some(&token), events, json!({})).await;
            let edges = on_primary["data"]["events"]["edges"]
                .as_array()
                .unwrap()
                .len();
            if on_primary["data"] == on_replica["data"] && edges >= 14 {
                break;
            }
            tries += 1;
            assert!(tries < 50, "{on_primary}\n{on_replica}");
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        assert_eq!(walks[0].len(), 14);
        assert_eq!(
            walks[0], walks[1],
            "replica and primary give the same pages"
        );
        assert_eq!(walks[0], walks[2], "cursors work on either");
    }

    pub async fn a_replica_stopped_mid_run_fails_no_read(held: &Held) {
        let gateway = std::sync::Arc::new(held.gateway(1_000));
        let (id, _) = create(&gateway, "stop-1").await;
        until_on_replica(&gateway, None, READ, json!({"id": id})).await;
        let running = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
        let readers: Vec<_> = (0..4)
            .map(|_| {
                let (gateway, running, id) = (gateway.clone(), running.clone(), id.clone());
                tokio::spawn(async move {
                    let mut answered = 0;
                    while running.load(std::sync::atomic::Ordering::Relaxed) {
                        let (status, body) = gateway.post(READ, json!({"id": id})).await;
                        assert_eq!(status, 200, "{body}");
                        assert!(body.get("errors").is_none(), "{body}");
                        assert_eq!(body["data"]["payment"]["id"], id.as_str(), "{body}");
                        answered += 1;
                    }
                    answered
                })
            })
            .collect();
        tokio::time::sleep(Duration::from_millis(500)).await;
        control("stop").await;
        tokio::time::sleep(Duration::from_millis(2_000)).await;
        control("start").await;
        tokio::time::sleep(Duration::from_millis(500)).await;
        running.store(false, std::sync::atomic::Ordering::Relaxed);
        let mut answered = 0;
        for reader in readers {
            answered += reader.await.expect("every read answered in full");
        }
        assert!(answered > 20, "{answered} reads");
        let logs = gateway.logs();
        assert!(logs.contains("a replica takes no reads"), "{logs}");
        let fallbacks = gateway.metric(REPLICA_ERRORS).await
            + gateway
                .metric("graphpay_read_fallbacks_total{reason=\"unavailable\"}")
                .await;
        assert!(fallbacks >= 1.0, "reads went to the primary meanwhile");
        // Back: it takes reads again.
        until_on_replica(&gateway, None, READ, json!({"id": id})).await;
    }

    pub async fn a_recovery_conflict_is_answered_by_the_primary(held: &Held) {
        let gateway = held.gateway(5_000);
        let (id, _) = create(&gateway, "conflict-1").await;
        until_on_replica(&gateway, None, READ, json!({"id": id})).await;
        // Reads of payments take 3 s on the replica (and no time on the primary), so that the
        // primary's VACUUM FULL below comes while one runs there.
        held.primary
            .execute_unprepared(
                "ALTER TABLE payments RENAME TO payments_data;
                 CREATE VIEW payments AS SELECT p.* FROM payments_data p,
                   (SELECT pg_sleep(CASE WHEN pg_is_in_recovery() THEN 3 ELSE 0 END)) s;",
            )
            .await
            .unwrap();
        let replica = held.replica().await;
        let view = format!(
            "SELECT to_regclass('\"{}\".payments_data')::text AS t",
            held.schema
        );
        for _ in 0..100 {
            if !replica.query_text(&view).await.unwrap()[0][0].is_empty() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let conflicts = "SELECT (confl_lock + confl_snapshot)::text FROM pg_stat_database_conflicts \
                         WHERE datname = current_database()";
        let conflicts_before: i64 = replica.query_text(conflicts).await.unwrap()[0][0]
            .parse()
            .unwrap();
        let errors_before = gateway.metric(REPLICA_ERRORS).await;

        let reading = tokio::spawn({
            let http = reqwest::Client::new();
            let url = format!("{}/graphql", gateway.address);
            let key = gateway.key.clone();
            let id = id.clone();
            async move {
                http.post(url)
                    .bearer_auth(key)
                    .json(&json!({"query": READ, "variables": {"id": id}}))
                    .send()
                    .await
                    .unwrap()
                    .json::<Value>()
                    .await
                    .unwrap()
            }
        });
        // Running on the replica (asleep in the view) before the primary takes its lock.
        let running = "SELECT count(*)::text FROM pg_stat_activity \
                       WHERE application_name = 'graphpay-replica-reads' AND state = 'active' \
                       AND query LIKE '%payments%'";
        let deadline = Instant::now() + Duration::from_secs(10);
        while replica.query_text(running).await.unwrap()[0][0] == "0" {
            assert!(
                Instant::now() < deadline,
                "the read never ran on the replica"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        held.primary
            .execute_unprepared("VACUUM FULL payments_data")
            .await
            .unwrap();
        let answer = reading.await.unwrap();
        assert!(answer.get("errors").is_none(), "{answer}");
        assert_eq!(answer["data"]["payment"]["id"], id.as_str(), "{answer}");
        assert_eq!(gateway.metric(REPLICA_ERRORS).await, errors_before + 1.0);
        // The replica did cancel the read for the conflict.
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let now: i64 = replica.query_text(conflicts).await.unwrap()[0][0]
                .parse()
                .unwrap();
            if now > conflicts_before {
                break;
            }
            assert!(
                Instant::now() < deadline,
                "no recovery conflict was counted"
            );
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }

    pub async fn a_replica_that_hangs_fails_no_read(held: &Held) {
        let port: u16 = url::Url::parse(&replica_url())
            .unwrap()
            .port()
            .unwrap_or(5432);
        let relay = Relay::start(port).await;
        let through = format!("postgres://postgres@127.0.0.1:{}/test", relay.port);
        let gateway = std::sync::Arc::new(held.gateway_on(&through, 1_000));
        let (id, _) = create(&gateway, "hang-1").await;
        until_on_replica(&gateway, None, READ, json!({"id": id})).await;
        let errors_before = gateway.metric(REPLICA_ERRORS).await;
        // Reads in flight when the replica stops answering: each is answered by the primary
        // once its time on the replica is up; later ones go to the primary once the checks
        // find the replica silent.
        relay.freeze(true);
        let readers: Vec<_> = (0..4)
            .map(|_| {
                let (gateway, id) = (gateway.clone(), id.clone());
                tokio::spawn(async move {
                    for _ in 0..3 {
                        let (status, body) = gateway.post(READ, json!({"id": id})).await;
                        assert_eq!(status, 200, "{body}");
                        assert!(body.get("errors").is_none(), "{body}");
                        assert_eq!(body["data"]["payment"]["id"], id.as_str(), "{body}");
                    }
                })
            })
            .collect();
        for reader in readers {
            reader.await.expect("every read answered in full");
        }
        let logs = gateway.logs();
        assert!(logs.contains("a replica takes no reads"), "{logs}");
        assert!(logs.contains("took too long"), "{logs}");
        assert_eq!(gateway.metric("graphpay_replica_up{").await, 0.0);
        // Back: it takes reads again.
        relay.freeze(false);
        until_on_replica(&gateway, None, READ, json!({"id": id})).await;
        assert!(
            gateway.metric(REPLICA_ERRORS).await > errors_before,
            "the reads sent to the silent replica were answered again by the primary"
        );
    }
}
