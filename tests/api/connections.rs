//! Hostile and unlucky clients at the connection level: slow headers, bodies that never come,
//! idle keep-alive, WebSockets that never say hello, too many connections, and a database that
//! goes away. Each test waits for the gateway to act (the socket closes, a close frame comes)
//! within a generous bound, never for a measured time.

use std::time::Duration;

use graphpay::persistence::{Db, DbConfig, accounts};
use serde_json::{Value, json};
use tokio::net::TcpStream;

use crate::helpers::{Backend, TestApp, first_error_code};

/// How long a test waits for the gateway to do what it must; far above the deadlines the
/// tests configure (about a second), so a loaded machine does not fail them.
const BOUND: Duration = Duration::from_secs(10);

/// A TCP forwarder in front of PostgreSQL that can be taken down (its port then refuses
/// connections and every forwarded connection is cut) and brought back on the same port.
struct Forwarder {
    port: u16,
    target: String,
    running: Option<tokio::task::JoinHandle<()>>,
}

impl Forwarder {
    async fn start(target: &str) -> Self {
        let mut forwarder = Forwarder {
            port: 0,
            target: target.to_string(),
            running: None,
        };
        forwarder.resume().await;
        forwarder
    }

    async fn resume(&mut self) {
        let socket = tokio::net::TcpSocket::new_v4().unwrap();
        socket.set_reuseaddr(true).unwrap();
        socket
            .bind(([127, 0, 0, 1], self.port).into())
            .expect("the forwarder's port is free");
        let listener = socket.listen(64).unwrap();
        self.port = listener.local_addr().unwrap().port();
        let target = self.target.clone();
        self.running = Some(tokio::spawn(async move {
            let mut forwarded = tokio::task::JoinSet::new();
            while let Ok((mut client, _)) = listener.accept().await {
                let target = target.clone();
                forwarded.spawn(async move {
                    if let Ok(mut server) = TcpStream::connect(target).await {
                        let _ = tokio::io::copy_bidirectional(&mut client, &mut server).await;
                    }
                });
            }
        }));
    }

    /// Closes the port and cuts every forwarded connection (they are the task's).
    async fn take_down(&mut self) {
        if let Some(running) = self.running.take() {
            running.abort();
            let _ = running.await;
        }
    }
}

impl Drop for Forwarder {
    fn drop(&mut self) {
        if let Some(running) = self.running.take() {
            running.abort();
        }
    }
}

/// A PostgreSQL database made for one test, dropped (with its connections) when it ends.
struct OwnDatabase {
    admin: Db,
    admin_url: String,
    name: String,
}

fn admin_config(url: String) -> DbConfig {
    DbConfig {
        url,
        schema: None,
        max_connections: 1,
        busy_timeout: Duration::from_secs(5),
        acquire_timeout: Duration::from_secs(10),
    }
}

impl OwnDatabase {
    async fn create(server_url: &str) -> Self {
        let admin_url = format!("{server_url}/postgres");
        let admin = Db::connect(&admin_config(admin_url.clone()))
            .await
            .expect("the postgres database");
        let name = format!(
            "gpt_down_{}",
            ulid::Ulid::generate().to_string().to_lowercase()
        );
        admin
            .execute_unprepared(&format!("CREATE DATABASE {name}"))
            .await
            .unwrap();
        OwnDatabase {
            admin,
            admin_url,
            name,
        }
    }

    async fn refuse_connections(&self) {
        let name = &self.name;
        let sql = [
            format!("ALTER DATABASE {name} WITH ALLOW_CONNECTIONS false"),
            format!(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{name}'"
            ),
        ];
        for statement in sql {
            self.admin.execute_unprepared(&statement).await.unwrap();
        }
    }

    async fn allow_connections(&self) {
        let sql = format!("ALTER DATABASE {} WITH ALLOW_CONNECTIONS true", self.name);
        self.admin.execute_unprepared(&sql).await.unwrap();
    }
}

impl Drop for OwnDatabase {
    fn drop(&mut self) {
        let (url, sql) = (
            self.admin_url.clone(),
            format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.name),
        );
        // Dropping runs inside the test's runtime; clean up from a thread of our own.
        let _ = std::thread::spawn(move || {
            if let Ok(rt) = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
            {
                rt.block_on(async {
                    if let Ok(admin) = Db::connect(&admin_config(url)).await {
                        let _ = admin.execute_unprepared(&sql).await;
                        let _ = admin.close().await;
                    }
                });
            }
        })
        .join();
    }
}

/// `/readyz`'s status; the client gives up after `BOUND`, far below the 30 s a pool used
/// to wait for a database that is down.
async fn readiness(app: &TestApp, client: &reqwest::Client) -> u16 {
    client
        .get(format!("{}/readyz", app.address))
        .send()
        .await
        .expect("/readyz answers in time")
        .status()
        .as_u16()
}

async fn viewer(app: &TestApp, client: &reqwest::Client, key: &str) -> Value {
    client
        .post(format!("{}/graphql", app.address))
        .bearer_auth(key)
        .json(&json!({"query": "{ viewer { id } }"}))
        .send()
        .await
        .expect("the query answers in time")
        .json()
        .await
        .expect("a JSON body")
}

async fn ready_again(app: &TestApp, client: &reqwest::Client) {
    let ready = tokio::time::timeout(BOUND, async {
        while readiness(app, client).await != 200 {
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    })
    .await;
    assert!(ready.is_ok(), "/readyz never answered 200 again");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[cfg_attr(
    not(pg_tests),
    ignore = "TEST_DATABASE_URL is not set: PostgreSQL test NOT run"
)]
async fn a_database_that_goes_away_is_reported_promptly_and_its_return_is_seen() {
    let url = crate::helpers::postgres_url();
    let server_url = url.rsplit_once('/').expect("a URL with a database").0;
    let address = server_url.rsplit_once('@').map_or(server_url, |(_, a)| a);
    let address = address.trim_start_matches("postgres://").to_string();
    let database = OwnDatabase::create(server_url).await;
    let mut forwarder = Forwarder::start(&address).await;
    let user = server_url.trim_start_matches("postgres://");
    let user = user.rsplit_once('@').map_or("postgres", |(u, _)| u);
    let via_forwarder = format!(
        "postgres://{user}@127.0.0.1:{}/{}",
        forwarder.port, database.name
    );
    let app = TestApp::spawn_with(Backend::Postgres, |c| {
        c.database = DbConfig {
            url: via_forwarder,
            schema: None,
            max_connections: 4,
            busy_timeout: Duration::from_secs(5),
            acquire_timeout: Duration::from_secs(1),
        };
    })
    .await;
    let key = accounts::create(&app.server_db, "Alice")
        .await
        .unwrap()
        .api_key;
    let client = reqwest::Client::builder().timeout(BOUND).build().unwrap();
    assert_eq!(readiness(&app, &client).await, 200);
    assert!(viewer(&app, &client, &key).await["data"]["viewer"]["id"].is_string());

    // The database refuses connections, and the ones open are ended.
    database.refuse_connections().await;
    assert_eq!(readiness(&app, &client).await, 503);
    assert_eq!(
        first_error_code(&viewer(&app, &client, &key).await),
        "INTERNAL"
    );
    database.allow_connections().await;
    ready_again(&app, &client).await;

    // The server cannot be reached at all: connections are refused until the pool gives up.
    forwarder.take_down().await;
    assert_eq!(readiness(&app, &client).await, 503);
    assert_eq!(
        first_error_code(&viewer(&app, &client, &key).await),
        "INTERNAL"
    );
    forwarder.resume().await;
    ready_again(&app, &client).await;
    assert!(viewer(&app, &client, &key).await["data"]["viewer"]["id"].is_string());
}
