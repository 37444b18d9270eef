//! The test harness: starts the real gateway on an ephemeral port, against a fresh SQLite file
//! or a fresh PostgreSQL schema, and talks HTTP to it.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use graphpay::config::Config;
use graphpay::domain::status::PaymentStatus;
use graphpay::domain::time::Timestamp;
use graphpay::persistence::payments::{self, NewPayment, Payment};
use graphpay::persistence::{Db, DbConfig, accounts};
use graphpay::service::payments::PaymentService;
use graphpay::service::throttle::ThrottleSettings;
use graphpay::startup::Application;
use serde_json::{Value, json};
use tokio::sync::oneshot;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

/// Defines each test once and runs it on SQLite and on PostgreSQL. The PostgreSQL variant is
/// compiled as ignored (and so reported as not run) unless `TEST_DATABASE_URL` was set when the
/// tests were built.
#[macro_export]
macro_rules! on_both_backends {
    ($(async fn $name:ident($app:ident: TestApp) $body:block)*) => {$(
        mod $name {
            #[allow(unused_imports)]
            use super::*;

            async fn body($app: $crate::helpers::TestApp) $body

            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn sqlite() {
                body($crate::helpers::TestApp::spawn($crate::helpers::Backend::Sqlite).await).await
            }

            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            #[cfg_attr(not(pg_tests), ignore = "TEST_DATABASE_URL is not set: PostgreSQL test NOT run")]
            async fn postgres() {
                body($crate::helpers::TestApp::spawn($crate::helpers::Backend::Postgres).await).await
            }
        }
    )*};
}

/// Runs each named `async fn(Backend)` on SQLite and on PostgreSQL, for tests that start
/// their gateway with a configuration of their own.
#[macro_export]
macro_rules! on_both_backends_fn {
    ($($name:ident),* $(,)?) => {$(
        mod $name {
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn sqlite() {
                super::$name($crate::helpers::Backend::Sqlite).await
            }

            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            #[cfg_attr(not(pg_tests), ignore = "TEST_DATABASE_URL is not set: PostgreSQL test NOT run")]
            async fn postgres() {
                super::$name($crate::helpers::Backend::Postgres).await
            }
        }
    )*};
}

/// The query-cost budget (points, and points per second) of gateways started by tests.
pub const TEST_BUDGET: u64 = 1_000_000_000;

/// Where a test's database lives; dropped with the test.
enum TestDatabase {
    Sqlite { _dir: tempfile::TempDir },
    Postgres { url: String, schema: String },
}

impl Drop for TestDatabase {
    fn drop(&mut self) {
        if let TestDatabase::Postgres { url, schema } = self {
            let (url, schema) = (url.clone(), schema.clone());
            // Dropping runs inside the test's runtime; clean up from a thread of our own.
            let _ = std::thread::spawn(move || {
                let rt = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build();
                if let Ok(rt) = rt {
                    rt.block_on(drop_pg_schema(&url, &schema));
                }
            })
            .join();
        }
    }
}

async fn drop_pg_schema(url: &str, schema: &str) {
    let config = DbConfig {
        url: url.to_string(),
        schema: None,
        max_connections: 1,
        busy_timeout: Duration::from_secs(5),
        acquire_timeout: Duration::from_secs(30),
    };
    if let Ok(db) = Db::connect(&config).await {
        let _ =
            graphpay_test_sql(&db, &format!("DROP SCHEMA IF EXISTS \"{schema}\" CASCADE")).await;
        let _ = db.close().await;
    }
}

async fn graphpay_test_sql(db: &Db, sql: &str) -> Result<(), String> {
    db.execute_unprepared(sql).await.map_err(|e| e.to_string())
}

/// The PostgreSQL server the tests use; required when the suite was built with it.
pub fn postgres_url() -> String {
    std::env::var("TEST_DATABASE_URL").unwrap_or_else(|_| {
        panic!("TEST_DATABASE_URL must point at a PostgreSQL server to run the PostgreSQL tests")
    })
}

/// A fresh, empty database configuration for one test.
fn fresh_database(backend: Backend) -> (DbConfig, TestDatabase) {
    let suffix = ulid::Ulid::generate().to_string().to_lowercase();
    match backend {
        Backend::Sqlite => {
            let dir = tempfile::tempdir().expect("temp dir");
            let path: PathBuf = dir.path().join("graphpay.db");
            let config = DbConfig {
                url: format!("sqlite://{}?mode=rwc", path.display()),
                schema: None,
                max_connections: 8,
                busy_timeout: Duration::from_secs(30),
                acquire_timeout: Duration::from_secs(30),
            };
            (config, TestDatabase::Sqlite { _dir: dir })
        }
        Backend::Postgres => {
            let url = postgres_url();
            let schema = format!("gpt_{suffix}");
            let config = DbConfig {
                url: url.clone(),
                schema: Some(schema.clone()),
                max_connections: 8,
                busy_timeout: Duration::from_secs(30),
                acquire_timeout: Duration::from_secs(30),
            };
            (config, TestDatabase::Postgres { url, schema })
        }
    }
}

struct Running {
    address: String,
    server_db: Db,
    payments: PaymentService,
    demo: Option<(String, String)>,
    shutdown: oneshot::Sender<()>,
    server: tokio::task::JoinHandle<()>,
}

async fn start(config: Config) -> Running {
    let app = Application::build(config)
        .await
        .expect("the gateway starts");
    let address = format!("http://{}", app.local_addr());
    let demo = app.demo.clone();
    let (server_db, payments) = (app.db(), app.payments());
    let (tx, rx) = oneshot::channel::<()>();
    let server = tokio::spawn(async move {
        app.run_until(async {
            let _ = rx.await;
        })
        .await
        .expect("the gateway runs");
    });
    Running {
        address,
        server_db,
        payments,
        demo,
        shutdown: tx,
        server,
    }
}

/// A running gateway and a database handle to arrange test data with.
pub struct TestApp {
    pub address: String,
    pub db: Db,
    pub db_config: DbConfig,
    pub config: Config,
    /// The server's own pool, to count the statements it runs.
    pub server_db: Db,
    /// The server's payment service (to run reconciliation on demand).
    pub payments: PaymentService,
    pub http: reqwest::Client,
    /// Set when the server created the demo account at start-up.
    pub demo: Option<(String, String)>,
    shutdown: Option<oneshot::Sender<()>>,
    server: Option<tokio::task::JoinHandle<()>>,
    _database: Arc<TestDatabase>,
}

impl TestApp {
    pub async fn spawn(backend: Backend) -> Self {
        Self::spawn_with(backend, |_| {}).await
    }

    /// Starts a gateway whose configuration `adjust` may change first.
    pub async fn spawn_with(backend: Backend, adjust: impl FnOnce(&mut Config)) -> Self {
        let (db_config, database) = fresh_database(backend);
        let mut config = Config::with_database(db_config.clone());
        // Tests that are not about the query-cost budget send bursts (hundreds of concurrent
        // creates, page walks) that the production budget would rightly throttle; they get
        // one large enough for their traffic. The budget's own tests set theirs in `adjust`.
        config.throttle = ThrottleSettings::new(TEST_BUDGET, TEST_BUDGET);
        adjust(&mut config);
        let running = start(config.clone()).await;
        let db = Db::connect(&db_config)
            .await
            .expect("test database connection");
        TestApp {
            address: running.address,
            server_db: running.server_db,
            payments: running.payments,
            db,
            db_config,
            config,
            http: reqwest::Client::new(),
            demo: running.demo,
            shutdown: Some(running.shutdown),
            server: Some(running.server),
            _database: Arc::new(database),
        }
    }

    /// Stops this gateway and starts a new one on the same database (at a new address).
    #[allow(dead_code)]
    pub async fn restart(&mut self) {
        self.stop().await;
        let running = start(self.config.clone()).await;
        self.address = running.address;
        self.server_db = running.server_db;
        self.payments = running.payments;
        self.shutdown = Some(running.shutdown);
        self.server = Some(running.server);
    }

    /// Another gateway instance sharing this one's database.
    #[allow(dead_code)]
    pub async fn another_instance(&self) -> TestApp {
        let running = start(self.config.clone()).await;
        TestApp {
            address: running.address,
            server_db: running.server_db,
            payments: running.payments,
            db: self.db.clone(),
            db_config: self.db_config.clone(),
            config: self.config.clone(),
            http: reqwest::Client::new(),
            demo: None,
            shutdown: Some(running.shutdown),
            server: Some(running.server),
            _database: self._database.clone(),
        }
    }

    /// Stops the server and waits for requests in flight to finish.
    #[allow(dead_code)]
    pub async fn stop(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        if let Some(server) = self.server.take() {
            let _ = server.await;
        }
    }

    pub fn backend(&self) -> Backend {
        match self.db.backend() {
            graphpay::persistence::Backend::Sqlite => Backend::Sqlite,
            graphpay::persistence::Backend::Postgres => Backend::Postgres,
        }
    }

    /// A new account and its API key.
    pub async fn account(&self, name: &str) -> (String, String) {
        let created = accounts::create(&self.db, name)
            .await
            .expect("account created");
        (created.account.id, created.api_key)
    }

    /// Stores a payment directly, with a chosen creation time.
    pub async fn insert_payment(
        &self,
        account_id: &str,
        amount: i64,
        created_at: Timestamp,
    ) -> Payment {
        payments::insert(
            &self.db,
            NewPayment {
                account_id: account_id.to_string(),
                amount,
                currency: "USD".to_string(),
                source: "tok_visa".to_string(),
                description: None,
                status: PaymentStatus::Succeeded,
                created_at,
            },
        )
        .await
        .expect("payment stored")
    }

    /// Stores many payments directly (one chunked transaction per 500).
    pub async fn insert_payments(&self, new: Vec<NewPayment>) -> Vec<String> {
        payments::insert_many(&self.db, new)
            .await
            .expect("payments stored")
    }

    /// Posts a GraphQL request; returns the HTTP status and the JSON body.
    pub async fn post(&self, key: Option<&str>, query: &str, variables: Value) -> (u16, Value) {
        let mut request = self
            .http
            .post(format!("{}/graphql", self.address))
            .json(&json!({"query": query, "variables": variables}));
        if let Some(key) = key {
            request = request.bearer_auth(key);
        }
        let response = request.send().await.expect("request sent");
        let status = response.status().as_u16();
        (status, response.json().await.expect("a JSON body"))
    }

    /// Runs a query that must succeed; returns `data`.
    pub async fn query(&self, key: &str, query: &str, variables: Value) -> Value {
        let (status, body) = self.post(Some(key), query, variables).await;
        assert_eq!(status, 200, "{body}");
        assert!(body.get("errors").is_none(), "unexpected errors: {body}");
        body["data"].clone()
    }

    /// Runs a query that must fail; returns the first error's code.
    pub async fn error_code(&self, key: &str, query: &str, variables: Value) -> String {
        let (_, body) = self.post(Some(key), query, variables).await;
        first_error_code(&body)
    }

    /// Posts a processor webhook signed with the gateway's secret, `age` seconds old.
    #[allow(dead_code)]
    pub async fn webhook(&self, event: &Value, age: i64) -> (u16, Value) {
        let stored = graphpay::persistence::settings::get_or_insert(
            &self.db,
            "processor_webhook_secret",
            String::new,
        )
        .await
        .unwrap();
        let secret = self.config.webhook_secret.clone().unwrap_or(stored);
        let body = serde_json::to_vec(event).unwrap();
        let at = Timestamp::now().micros() / 1_000_000 - age;
        let signature = graphpay::domain::webhook::sign(secret.as_bytes(), at, &body);
        self.raw_webhook(Some(&signature), body).await
    }

    /// Posts a webhook body with the given signature header, as is.
    #[allow(dead_code)]
    pub async fn raw_webhook(&self, signature: Option<&str>, body: Vec<u8>) -> (u16, Value) {
        let mut request = self
            .http
            .post(format!("{}/webhooks/processor", self.address))
            .body(body);
        if let Some(signature) = signature {
            request = request.header("graphpay-signature", signature);
        }
        let response = request.send().await.unwrap();
        (
            response.status().as_u16(),
            response.json().await.unwrap_or(Value::Null),
        )
    }

    pub async fn get(&self, path: &str) -> reqwest::Response {
        self.http
            .get(format!("{}{path}", self.address))
            .send()
            .await
            .expect("request sent")
    }
}

impl Drop for TestApp {
    fn drop(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
    }
}

/// Posts a GraphQL request over a connection of its own (for concurrency tests, where every
/// request must be a separate client); returns the JSON body.
pub async fn post_on_new_connection(
    address: String,
    key: String,
    query: &str,
    variables: Value,
) -> Value {
    reqwest::Client::new()
        .post(format!("{address}/graphql"))
        .bearer_auth(key)
        .json(&json!({"query": query, "variables": variables}))
        .send()
        .await
        .expect("request sent")
        .json()
        .await
        .expect("a JSON body")
}

/// The `extensions.code` of a response's first error.
pub fn first_error_code(body: &Value) -> String {
    body["errors"][0]["extensions"]["code"]
        .as_str()
        .unwrap_or_else(|| panic!("expected an error with a code, got {body}"))
        .to_string()
}

/// A gateway run as a process of its own (`graphpay serve` on a fresh SQLite file), for tests
/// of what is process-wide, such as the metrics recorder, or of the process itself.
#[allow(dead_code)]
pub struct GatewayProcess {
    /// `http://host:port` of the API.
    pub address: String,
    /// The API key of the demo account the gateway created on its empty database.
    pub key: String,
    /// `http://host:port` of the metrics endpoint, when the gateway serves one.
    pub metrics_address: Option<String>,
    pub database_url: String,
    pub http: reqwest::Client,
    child: std::process::Child,
    stderr: Arc<std::sync::Mutex<String>>,
    _dir: tempfile::TempDir,
}

/// Variables that configure the gateway; the child does not inherit them from the test's
/// environment, so that only what a test passes applies.
const GATEWAY_ENV_PREFIXES: &[&str] = &[
    "GRAPHPAY_",
    "DATABASE_",
    "SQLITE_",
    "PROCESSOR_",
    "SANDBOX_",
    "LOG_FORMAT",
];

#[allow(dead_code)]
impl GatewayProcess {
    /// Starts `graphpay serve` on a free port with a fresh database, with `env` set on top of
    /// the defaults; returns once the gateway has printed its address and the demo key.
    pub fn start(env: &[(&str, &str)]) -> Self {
        use std::io::{BufRead, BufReader, Read};
        use std::process::{Command, Stdio};

        let dir = tempfile::tempdir().expect("temp dir");
        let database_url = format!(
            "sqlite://{}?mode=rwc",
            dir.path().join("graphpay.db").display()
        );
        let mut command = Command::new(env!("CARGO_BIN_EXE_graphpay"));
        command.arg("serve");
        for (name, _) in std::env::vars() {
            if GATEWAY_ENV_PREFIXES.iter().any(|p| name.starts_with(p)) {
                command.env_remove(name);
            }
        }
        command
            .env("DATABASE_URL", &database_url)
            .env("GRAPHPAY_LISTEN", "127.0.0.1:0")
            .env("RUST_LOG", "warn")
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = command.spawn().expect("graphpay starts");

        let stderr = Arc::new(std::sync::Mutex::new(String::new()));
        let mut err_pipe = child.stderr.take().expect("stderr");
        let collected = stderr.clone();
        std::thread::spawn(move || {
            let mut chunk = [0u8; 4096];
            while let Ok(n @ 1..) = err_pipe.read(&mut chunk) {
                let text = String::from_utf8_lossy(&chunk[..n]);
                collected
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .push_str(&text);
            }
        });
        // Lines go to the test until it has what it needs; the reader keeps draining stdout.
        let (lines_tx, lines) = std::sync::mpsc::channel::<String>();
        let out_pipe = child.stdout.take().expect("stdout");
        std::thread::spawn(move || {
            for line in BufReader::new(out_pipe).lines().map_while(Result::ok) {
                let _ = lines_tx.send(line);
            }
        });

        let deadline = std::time::Instant::now() + Duration::from_secs(60);
        let (mut address, mut key, mut metrics_address) = (None, None, None);
        while address.is_none() || key.is_none() {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            let Ok(line) = lines.recv_timeout(left) else {
                let _ = child.kill();
                let _ = child.wait();
                let logs = stderr.lock().unwrap_or_else(|e| e.into_inner()).clone();
                panic!("the gateway did not print its address and key; its log:\n{logs}");
            };
            let last = line
                .split_whitespace()
                .last()
                .unwrap_or_default()
                .to_string();
            if line.starts_with("graphpay is listening on ") {
                address = Some(last);
            } else if line.starts_with("metrics: ") {
                metrics_address = Some(last.trim_end_matches("/metrics").to_string());
            } else if line.starts_with("its API key ") {
                key = Some(last);
            }
        }
        GatewayProcess {
            address: address.unwrap_or_default(),
            key: key.unwrap_or_default(),
            metrics_address,
            database_url,
            http: reqwest::Client::new(),
            child,
            stderr,
            _dir: dir,
        }
    }

    /// Posts a GraphQL request with the demo key; returns the HTTP status and the JSON body.
    pub async fn post(&self, query: &str, variables: Value) -> (u16, Value) {
        self.post_as(Some(&self.key), query, variables).await
    }

    /// Posts a GraphQL request with `key` (or none).
    pub async fn post_as(&self, key: Option<&str>, query: &str, variables: Value) -> (u16, Value) {
        let mut request = self
            .http
            .post(format!("{}/graphql", self.address))
            .json(&json!({"query": query, "variables": variables}));
        if let Some(key) = key {
            request = request.bearer_auth(key);
        }
        let response = request.send().await.expect("request sent");
        let status = response.status().as_u16();
        (status, response.json().await.unwrap_or(Value::Null))
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Whether the process is still running.
    pub fn is_alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// Kills the process (SIGKILL) and waits for it.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// What the gateway has logged so far (stderr).
    pub fn logs(&self) -> String {
        self.stderr
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// The TCP ports the process listens on, read from `/proc` (Linux only).
    #[cfg(target_os = "linux")]
    pub fn listening_ports(&self) -> Vec<u16> {
        let pid = self.pid();
        let sockets: std::collections::HashSet<String> =
            std::fs::read_dir(format!("/proc/{pid}/fd"))
                .expect("the process's file descriptors")
                .filter_map(|fd| std::fs::read_link(fd.ok()?.path()).ok())
                .filter_map(|target| {
                    let target = target.to_string_lossy();
                    let inode = target.strip_prefix("socket:[")?.strip_suffix(']')?;
                    Some(inode.to_string())
                })
                .collect();
        let mut ports = Vec::new();
        for table in ["tcp", "tcp6"] {
            let text =
                std::fs::read_to_string(format!("/proc/{pid}/net/{table}")).unwrap_or_default();
            for line in text.lines().skip(1) {
                let fields: Vec<&str> = line.split_whitespace().collect();
                // local address, state (0A is LISTEN) and inode
                if let [_, local, _, "0A", _, _, _, _, _, inode, ..] = fields[..]
                    && sockets.contains(inode)
                    && let Some(port) = local.rsplit(':').next()
                    && let Ok(port) = u16::from_str_radix(port, 16)
                {
                    ports.push(port);
                }
            }
        }
        ports.sort_unstable();
        ports.dedup();
        ports
    }
}

impl Drop for GatewayProcess {
    fn drop(&mut self) {
        self.kill();
    }
}
