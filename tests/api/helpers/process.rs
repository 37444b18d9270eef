//! The gateway as a process of its own (`graphpay serve`), for what is process-wide.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};

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
        Self::launch(env, true)
    }

    /// Starts `graphpay serve` like [`GatewayProcess::start`] on a database that `env` names
    /// and that already has accounts (so no demo key is printed): another instance.
    pub fn start_on_shared_database(env: &[(&str, &str)]) -> Self {
        Self::launch(env, false)
    }

    fn launch(env: &[(&str, &str)], expect_key: bool) -> Self {
        graphpay::tls::install_default_provider();
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
        while address.is_none() || (expect_key && key.is_none()) {
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
        let (status, _, body) = self.exchange(key, &[], query, variables).await;
        (status, body)
    }

    /// Posts a GraphQL request with `key` (or none) and the extra `headers`; returns the
    /// status, the response's headers and its JSON body.
    pub async fn exchange(
        &self,
        key: Option<&str>,
        headers: &[(&str, &str)],
        query: &str,
        variables: Value,
    ) -> (u16, reqwest::header::HeaderMap, Value) {
        let mut request = self
            .http
            .post(format!("{}/graphql", self.address))
            .json(&json!({"query": query, "variables": variables}));
        if let Some(key) = key {
            request = request.bearer_auth(key);
        }
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        let response = request.send().await.expect("request sent");
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        (
            status,
            headers,
            response.json().await.unwrap_or(Value::Null),
        )
    }

    /// The value of the series whose line starts with `line_start` (the metric's name and
    /// labels) in a scrape of this gateway's metrics.
    pub async fn metric(&self, line_start: &str) -> f64 {
        let address = self.metrics_address.as_ref().expect("metrics are served");
        let text = self
            .http
            .get(format!("{address}/metrics"))
            .send()
            .await
            .expect("metrics scraped")
            .text()
            .await
            .expect("metrics read");
        text.lines()
            .find(|line| line.starts_with(line_start))
            .and_then(|line| line.rsplit(' ').next())
            .and_then(|value| value.parse().ok())
            .unwrap_or_else(|| panic!("no {line_start} in\n{text}"))
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
