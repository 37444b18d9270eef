//! `graphpay sandbox` in a process of its own, on a port that stays the same across restarts,
//! so that a test can kill it (SIGKILL) and start it again on the same database.

use std::process::{Child, Command, Stdio};
use std::time::Duration;

use graphpay::persistence::{Db, DbConfig, sandbox};
use serde_json::Value;

/// A SQLite database for a sandbox, in `dir`.
pub fn sandbox_db(dir: &tempfile::TempDir) -> DbConfig {
    DbConfig {
        url: format!(
            "sqlite://{}?mode=rwc",
            dir.path().join("sandbox.db").display()
        ),
        schema: None,
        max_connections: 8,
        busy_timeout: Duration::from_secs(30),
        acquire_timeout: Duration::from_secs(30),
    }
}

/// A sandbox in a process of its own, so that it can be killed.
pub struct SandboxProcess {
    child: Child,
    pub url: String,
}

impl SandboxProcess {
    /// Starts `graphpay sandbox` on `port` with its database at `db_url`, and returns once it
    /// listens.
    pub fn start(port: u16, db_url: &str) -> Self {
        Self::start_with_args(port, db_url, &[])
    }

    /// Like [`SandboxProcess::start`], sending its webhooks to `webhook_url` signed with
    /// `secret`.
    pub fn start_with_webhooks(port: u16, db_url: &str, webhook_url: &str, secret: &str) -> Self {
        Self::start_with_args(
            port,
            db_url,
            &["--webhook-url", webhook_url, "--webhook-secret", secret],
        )
    }

    fn start_with_args(port: u16, db_url: &str, more: &[&str]) -> Self {
        let mut child = Command::new(env!("CARGO_BIN_EXE_graphpay"))
            .args([
                "sandbox",
                "--listen",
                &format!("127.0.0.1:{port}"),
                "--database-url",
                db_url,
            ])
            .args(more)
            .env("RUST_LOG", "warn")
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        std::io::BufRead::read_line(
            &mut std::io::BufReader::new(child.stdout.take().unwrap()),
            &mut line,
        )
        .unwrap();
        assert!(line.contains("listening"), "{line}");
        SandboxProcess {
            child,
            url: format!("http://127.0.0.1:{port}"),
        }
    }

    /// Kills the process with SIGKILL: it answers nothing more and finishes nothing.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Sets the faults the sandbox injects (`POST /_faults`).
    pub async fn faults(&self, settings: Value) {
        graphpay::tls::install_default_provider();
        let status = reqwest::Client::new()
            .post(format!("{}/_faults", self.url))
            .json(&settings)
            .send()
            .await
            .unwrap()
            .status();
        assert_eq!(status, 204);
    }

    /// Requests the sandbox has answered since it started (`GET /_stats`).
    pub async fn requests(&self) -> u64 {
        graphpay::tls::install_default_provider();
        let stats: Value = reqwest::Client::new()
            .get(format!("{}/_stats", self.url))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        stats["requests"].as_u64().unwrap()
    }
}

impl Drop for SandboxProcess {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Charges recorded in the sandbox database at `db`.
pub async fn sandbox_charges(db: &DbConfig) -> u64 {
    let db = Db::connect(db).await.unwrap();
    sandbox::charge_count(&db).await.unwrap()
}
