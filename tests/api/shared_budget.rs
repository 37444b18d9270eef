//! One cost budget across gateway instances, kept in Redis: two gateway processes on one
//! database and one Redis server (started by the test on a port of its own, so it can be
//! stopped and started again) throttle an account together; with Redis gone each goes on
//! with its own budget, and shares again once Redis is back. Compiled as ignored when
//! `redis-server` was missing at build time; fails when it is missing at run time.

use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::{Value, json};

use crate::helpers::prerequisites::REDIS_SERVER;
use crate::helpers::{GatewayProcess, first_error_code};

const QUERY: &str = "{ viewer { id } }";
const CAPACITY: u64 = 20;

/// A Redis server of the test's own, keeping nothing on disk.
struct RedisServer {
    port: u16,
    child: Option<Child>,
}

impl RedisServer {
    fn start() -> Self {
        let port = crate::helpers::free_port();
        let mut server = Self { port, child: None };
        server.restart();
        server
    }

    fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.port)
    }

    /// Starts the server (again) on its port; returns once it accepts connections.
    fn restart(&mut self) {
        let child = Command::new(REDIS_SERVER)
            .args(["--port", &self.port.to_string(), "--bind", "127.0.0.1"])
            .args(["--save", "", "--appendonly", "no"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("{REDIS_SERVER} does not start: {e}"));
        self.child = Some(child);
        for _ in 0..100 {
            if std::net::TcpStream::connect(("127.0.0.1", self.port)).is_ok() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        panic!("redis-server did not listen on {}", self.port);
    }

    fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        self.stop();
    }
}

fn env(redis: &RedisServer) -> Vec<(&'static str, String)> {
    vec![
        ("GRAPHPAY_REDIS_URL", redis.url()),
        ("GRAPHPAY_RATE_LIMIT_CAPACITY", CAPACITY.to_string()),
        ("GRAPHPAY_RATE_LIMIT_RESTORE_RATE", "1".into()),
        ("GRAPHPAY_METRICS_LISTEN", "127.0.0.1:0".into()),
        ("RUST_LOG", "warn,graphpay::graphql::limits=info".into()),
    ]
}

fn start(env: &[(&'static str, String)], shared_database: Option<&str>) -> GatewayProcess {
    let mut env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    match shared_database {
        None => GatewayProcess::start(&env),
        Some(url) => {
            env.push(("DATABASE_URL", url));
            GatewayProcess::start_on_shared_database(&env)
        }
    }
}

/// What an answer says is left of the budget.
fn available(body: &Value) -> u64 {
    body["extensions"]["cost"]["throttleStatus"]["currentlyAvailable"]
        .as_u64()
        .unwrap_or_else(|| panic!("no budget in {body}"))
}

/// Sends `QUERY` through `gateway` with `key` until it is throttled; the last answer.
async fn spend_all(gateway: &GatewayProcess, key: &str) -> Value {
    for _ in 0..3 * CAPACITY {
        let (status, body) = gateway.post_as(Some(key), QUERY, json!({})).await;
        if status == 429 {
            assert_eq!(first_error_code(&body), "THROTTLED");
            return body;
        }
        assert_eq!(status, 200, "{body}");
    }
    panic!("never throttled after {} requests", 3 * CAPACITY);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(redis_tests),
    ignore = "REDIS test NOT run: redis-server is missing (apt-get install redis-server)"
)]
async fn two_instances_share_one_budget_and_fall_back_to_their_own_without_redis() {
    assert!(
        std::path::Path::new(REDIS_SERVER).is_file(),
        "{REDIS_SERVER} went missing"
    );
    let mut redis = RedisServer::start();
    let env = env(&redis);
    let a = start(&env, None);
    let b = start(&env, Some(&a.database_url));
    let key = a.key.clone();

    // What a result did not use goes back to the shared bucket (with the instance's next
    // call, or its flush within half a second).
    let (_, page) = a
        .post_as(
            Some(&key),
            "{ payments(first: 9) { nodes { id } } }",
            json!({}),
        )
        .await;
    let cost = &page["extensions"]["cost"];
    let requested = cost["requestedQueryCost"].as_u64().unwrap();
    assert!(
        requested > cost["actualQueryCost"].as_u64().unwrap(),
        "{page}"
    );
    tokio::time::sleep(Duration::from_millis(800)).await;
    let (_, seen) = b.post_as(Some(&key), QUERY, json!({})).await;
    assert!(
        available(&seen).abs_diff(available(&page)) <= 2,
        "the refund reached the shared bucket: {page} then {seen}"
    );

    // Spent through one instance: throttled through the other, which reports the same
    // budget within one request's cost.
    let last = spend_all(&a, &key).await;
    let (status, body) = b.post_as(Some(&key), QUERY, json!({})).await;
    assert_eq!(status, 429, "the budget is shared: {body}");
    assert!(
        available(&body).abs_diff(available(&last)) <= 2,
        "{last} vs {body}"
    );
    assert!(
        a.metric("graphpay_budget_checks_total{store=\"redis\"}")
            .await
            >= 10.0
    );

    // Redis stopped: each instance serves on its own budget, and says so once.
    redis.stop();
    for gateway in [&a, &b] {
        for _ in 0..3 {
            let (status, body) = gateway.post_as(Some(&key), QUERY, json!({})).await;
            assert_eq!(status, 200, "served without Redis: {body}");
        }
    }
    assert!(a.metric("graphpay_budget_fallbacks_total").await >= 1.0);
    assert!(
        a.metric("graphpay_budget_checks_total{store=\"local\"}")
            .await
            >= 1.0
    );
    let warned = a.logs().matches("Redis cannot be reached").count();
    assert_eq!(warned, 1, "one warning per outage:\n{}", a.logs());

    // Redis back (empty): shared again once an instance tries it, within a second.
    redis.restart();
    tokio::time::sleep(Duration::from_millis(1_200)).await;
    a.post_as(Some(&key), QUERY, json!({})).await;
    b.post_as(Some(&key), QUERY, json!({})).await;
    spend_all(&b, &key).await;
    let (status, body) = a.post_as(Some(&key), QUERY, json!({})).await;
    assert_eq!(status, 429, "shared again: {body}");
    assert!(a.logs().contains("Redis answers again"), "{}", a.logs());
}
