//! A PostgreSQL database of a test's own, for tests that make the database refuse
//! connections or end them: the shared test database must not be disturbed.

use std::time::Duration;

use graphpay::persistence::{Db, DbConfig};

/// A PostgreSQL database made for one test, dropped (with its connections) when it ends.
pub struct OwnDatabase {
    admin: Db,
    admin_url: String,
    pub name: String,
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
    /// A new, empty database on the server at `server_url` (`postgres://user@host:port`).
    pub async fn create(server_url: &str) -> Self {
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

    /// Refuses new connections and ends every open one.
    pub async fn refuse_connections(&self) {
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

    /// Accepts connections again.
    pub async fn allow_connections(&self) {
        let sql = format!("ALTER DATABASE {} WITH ALLOW_CONNECTIONS true", self.name);
        self.admin.execute_unprepared(&sql).await.unwrap();
    }

    /// Refuses new connections, leaving the open ones be.
    pub async fn refuse_new_connections(&self) {
        let sql = format!("ALTER DATABASE {} WITH ALLOW_CONNECTIONS false", self.name);
        self.admin.execute_unprepared(&sql).await.unwrap();
    }

    /// Ends the connections to this database whose `application_name` is `name`.
    pub async fn terminate(&self, application_name: &str) {
        let sql = format!(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
             WHERE datname = '{}' AND application_name = '{application_name}'",
            self.name
        );
        self.admin.execute_unprepared(&sql).await.unwrap();
    }

    /// A URL of this database, as `server_url` with its name.
    pub fn url(&self, server_url: &str) -> String {
        format!("{server_url}/{}", self.name)
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
