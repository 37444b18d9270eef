//! The gateway under test, in this process: started on an ephemeral port against a fresh
//! SQLite file or a fresh PostgreSQL schema, with a database handle to arrange data with.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use graphpay::config::Config;
use graphpay::domain::status::PaymentStatus;
use graphpay::domain::time::Timestamp;
use graphpay::graphql::limits::budget::ThrottleSettings;
use graphpay::persistence::payments::{self, NewPayment, Payment};
use graphpay::persistence::{Db, DbConfig, accounts};
use graphpay::service::payments::PaymentService;
use graphpay::startup::Application;
use serde_json::{Value, json};
use tokio::sync::oneshot;

use super::{Backend, first_error_code};

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
        // The gateway's background tasks may still be finishing a round. A drop that waits for
        // a lock gives up after a while and is tried again, rather than queueing in front of
        // their statements for good.
        let _ = graphpay_test_sql(&db, "SET lock_timeout = '2s'").await;
        let drop = format!("DROP SCHEMA IF EXISTS \"{schema}\" CASCADE");
        for _ in 0..15 {
            if graphpay_test_sql(&db, &drop).await.is_ok() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
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
        graphpay::tls::install_default_provider();
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

    /// A gateway on the PostgreSQL database at `url` (a test's own: its default schema), with
    /// a small pool that gives up on the database within a second.
    #[allow(dead_code)]
    pub async fn spawn_on(url: String) -> Self {
        Self::spawn_with(Backend::Postgres, |c| {
            c.database = DbConfig {
                url,
                schema: None,
                max_connections: 4,
                busy_timeout: Duration::from_secs(5),
                acquire_timeout: Duration::from_secs(1),
            };
        })
        .await
    }

    /// A gateway whose sandbox never sends webhooks on its own during a test; the webhooks a
    /// test sends are signed with `whsec_test`.
    pub async fn quiet(backend: Backend) -> Self {
        Self::spawn_with(backend, |c: &mut Config| {
            c.sandbox_webhook_delay = Duration::from_secs(3600);
            c.webhook_secret = Some("whsec_test".into());
        })
        .await
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
        self.another_instance_with(|_| {}).await
    }

    /// Another gateway instance sharing this one's database, its configuration changed by
    /// `adjust` first.
    #[allow(dead_code)]
    pub async fn another_instance_with(&self, adjust: impl FnOnce(&mut Config)) -> TestApp {
        let mut config = self.config.clone();
        adjust(&mut config);
        let running = start(config.clone()).await;
        TestApp {
            address: running.address,
            server_db: running.server_db,
            payments: running.payments,
            db: self.db.clone(),
            db_config: self.db_config.clone(),
            config,
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

    /// Waits until the gateway's pool has run no statement for a while (at most 10 s), for a
    /// test that counts the statements of its requests: the gateway's timer runs its first
    /// round (sweeps, reconciliation, folding the status counts) on the same pool as it
    /// starts, and a slow machine may still be running it when the test begins to count.
    pub async fn statements_settled(&self) {
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        let mut seen = self.server_db.statements_run();
        while std::time::Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(250)).await;
            let now = self.server_db.statements_run();
            if now == seen {
                return;
            }
            seen = now;
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
            super::usd_payment(account_id, amount, PaymentStatus::Succeeded, created_at),
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

    /// Stores `rows` succeeded USD payments of `account_id` in one statement: payment `g`
    /// (counted from one) created `g` ms after `base` (microseconds), of `amount_sql` (an
    /// expression of `g`).
    /// On PostgreSQL the account's status counts are made as the migration that adds them
    /// does, not by the trigger once per row.
    pub async fn bulk_succeeded(&self, account_id: &str, rows: i64, amount_sql: &str, base: i64) {
        const COLUMNS: &str = "id, account_id, amount, currency, status, amount_refunded, \
            source, description, failure_code, failure_message, processor_key, processor_ref, \
            version, created_at, updated_at";
        let values = format!(
            "'{account_id}', {amount_sql}, 'USD', 'SUCCEEDED', 0, 'tok_visa', NULL, NULL, NULL, \
             'pk_' || g, 'ch_' || g, 1, {base} + g * 1000, {base} + g * 1000"
        );
        let sql = match self.backend() {
            Backend::Postgres => format!(
                "ALTER TABLE payments DISABLE TRIGGER payments_counted; \
                 INSERT INTO payments ({COLUMNS}) \
                 SELECT 'pay_' || upper(lpad(to_hex(g), 26, '0')), {values} \
                 FROM generate_series(1, {rows}) AS g; \
                 ALTER TABLE payments ENABLE TRIGGER payments_counted; \
                 INSERT INTO payment_counts (account_id, status, bucket, count) \
                 VALUES ('{account_id}', 'SUCCEEDED', 0, {rows}) \
                 ON CONFLICT (account_id, status, bucket) \
                 DO UPDATE SET count = payment_counts.count + excluded.count"
            ),
            Backend::Sqlite => format!(
                "WITH RECURSIVE s(g) AS (SELECT 1 UNION ALL SELECT g + 1 FROM s WHERE g < {rows}) \
                 INSERT INTO payments ({COLUMNS}) \
                 SELECT printf('pay_%026X', g), {values} FROM s"
            ),
        };
        self.db
            .execute_unprepared(&sql)
            .await
            .expect("payments stored");
    }

    /// A handle on this gateway's database with one connection for page reads and one for the
    /// rest, so that a statement prepared on either is the one run there next.
    pub async fn two_connections(&self) -> Db {
        Db::connect(&DbConfig {
            max_connections: 2,
            ..self.db_config.clone()
        })
        .await
        .expect("connected")
    }

    /// Posts a GraphQL request; returns the HTTP status and the JSON body.
    pub async fn post(&self, key: Option<&str>, query: &str, variables: Value) -> (u16, Value) {
        self.post_json(key, json!({"query": query, "variables": variables}))
            .await
    }

    /// Posts `body` (a GraphQL request as JSON); returns the HTTP status and the JSON body.
    pub async fn post_json(&self, key: Option<&str>, body: Value) -> (u16, Value) {
        let mut request = self
            .http
            .post(format!("{}/graphql", self.address))
            .json(&body);
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
        let signature = graphpay::domain::processor_event::sign(secret.as_bytes(), at, &body);
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
