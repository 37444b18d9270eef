//! The `graphpay` binary, run as a user would.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{Value, json};

use crate::helpers::create_payload;

const BIN: &str = env!("CARGO_BIN_EXE_graphpay");

fn graphpay(db_url: &str, args: &[&str]) -> std::process::Output {
    Command::new(BIN)
        .args(args)
        .env("DATABASE_URL", db_url)
        .env_remove("DATABASE_SCHEMA")
        .env("RUST_LOG", "warn")
        .output()
        .expect("graphpay runs")
}

/// The standard output of a run that must succeed (its standard error shown otherwise).
fn succeeded(out: &std::process::Output) -> String {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn sqlite_url(dir: &tempfile::TempDir) -> String {
    format!("sqlite://{}?mode=rwc", dir.path().join("cli.db").display())
}

#[test]
fn account_create_json_prints_exactly_the_id_and_key() {
    let dir = tempfile::tempdir().unwrap();
    let out = graphpay(
        &sqlite_url(&dir),
        &["account", "create", "--name", "Acme", "--json"],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let printed: Value = serde_json::from_slice(&out.stdout).expect("stdout is JSON only");
    let object = printed.as_object().unwrap();
    assert_eq!(object.len(), 2, "{printed}");
    assert!(printed["accountId"].as_str().unwrap().starts_with("acct_"));
    assert!(printed["apiKey"].as_str().unwrap().starts_with("gpk_"));
}

#[test]
fn key_roll_issues_a_successor_and_lists_the_old_key_as_expiring() {
    let dir = tempfile::tempdir().unwrap();
    let url = sqlite_url(&dir);
    let out = graphpay(&url, &["account", "create", "--name", "Acme", "--json"]);
    let created: Value = serde_json::from_slice(&out.stdout).unwrap();
    let account = created["accountId"].as_str().unwrap();
    let old_secret = created["apiKey"].as_str().unwrap();
    let list = |url: &str| {
        let out = graphpay(url, &["key", "list", "--account", account]);
        assert!(out.status.success());
        String::from_utf8(out.stdout).unwrap()
    };
    let listed = list(&url);
    let old_id = listed.split('\t').next().unwrap().to_string();
    for refused in ["-1", "604801"] {
        let flag = format!("--expire-old-in={refused}");
        let out = graphpay(&url, &["key", "roll", &old_id, &flag]);
        assert!(!out.status.success(), "{refused}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("7 days"));
    }
    let out = graphpay(&url, &["key", "roll", "key_nope"]);
    assert!(!out.status.success());
    assert_eq!(
        list(&url).lines().count(),
        1,
        "refused rolls change nothing"
    );

    let out = graphpay(
        &url,
        &["key", "roll", &old_id, "--expire-old-in", "3600", "--json"],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rolled: Value = serde_json::from_slice(&out.stdout).expect("stdout is JSON only");
    let new_secret = rolled["apiKey"].as_str().unwrap();
    assert!(new_secret.starts_with("gpk_") && new_secret != old_secret);
    assert!(rolled["oldKeyExpiresAt"].as_str().unwrap().ends_with('Z'));
    let listed = list(&url);
    let rows: Vec<Vec<&str>> = listed.lines().map(|l| l.split('\t').collect()).collect();
    assert_eq!(rows.len(), 2, "{listed}");
    let old = rows.iter().find(|r| r[0] == old_id).unwrap();
    let new = rows.iter().find(|r| r[0] == rolled["keyId"]).unwrap();
    assert_eq!(old[2], "expiring");
    assert_eq!(old[5], rolled["oldKeyExpiresAt"]);
    assert_eq!(new[2], "active");
    assert_eq!(new[5], "-");
    assert!(!listed.contains(&new_secret[12..]) && !listed.contains(&old_secret[12..]));
}

#[test]
fn signing_keys_are_added_listed_without_secrets_and_retired() {
    let dir = tempfile::tempdir().unwrap();
    let url = sqlite_url(&dir);
    let list = |url: &str| succeeded(&graphpay(url, &["signing-key", "list"]));
    let added = succeeded(&graphpay(&url, &["signing-key", "add"]));
    assert_eq!(added.trim(), "added signing key 1");
    let listed = list(&url);
    let rows: Vec<Vec<&str>> = listed.lines().map(|l| l.split('\t').collect()).collect();
    assert_eq!(
        rows.len(),
        2,
        "the first secret, made on a fresh database, and the new one"
    );
    assert_eq!((rows[0][0], rows[0][1]), ("0", "live"));
    assert_eq!((rows[1][0], rows[1][1]), ("1", "live"));
    assert!(
        rows.iter().all(|r| r.len() == 4),
        "no secret printed: {listed}"
    );
    let out = graphpay(&url, &["signing-key", "retire", "0"]);
    assert!(out.status.success());
    assert!(
        list(&url)
            .lines()
            .next()
            .unwrap()
            .starts_with("0\tretired\t")
    );
    for (kid, says) in [("1", "only live one"), ("7", "no signing key 7")] {
        let out = graphpay(&url, &["signing-key", "retire", kid]);
        assert!(!out.status.success(), "{kid}");
        assert!(String::from_utf8_lossy(&out.stderr).contains(says), "{kid}");
    }
}

#[test]
fn secrets_are_sealed_under_a_key_file_and_moved_to_a_new_one() {
    let dir = tempfile::tempdir().unwrap();
    let url = sqlite_url(&dir);
    let run = |key: Option<&std::path::Path>, args: &[&str]| {
        let mut command = Command::new(BIN);
        command
            .args(args)
            .env("DATABASE_URL", &url)
            .env_remove("DATABASE_SCHEMA")
            .env_remove("GRAPHPAY_SECRETS_KEY")
            .env("RUST_LOG", "warn");
        match key {
            Some(path) => command.env("GRAPHPAY_SECRETS_KEY_FILE", path),
            None => command.env_remove("GRAPHPAY_SECRETS_KEY_FILE"),
        };
        command.output().expect("graphpay runs")
    };
    let mut files = Vec::new();
    for name in ["old.key", "new.key"] {
        let out = run(None, &["secrets", "new-key"]);
        assert!(out.status.success());
        let key = String::from_utf8(out.stdout).unwrap();
        assert_eq!(
            base64::Engine::decode(&base64::engine::general_purpose::STANDARD, key.trim())
                .unwrap()
                .len(),
            32
        );
        let path = dir.path().join(name);
        std::fs::write(&path, key).unwrap();
        files.push(path);
    }
    let (old, new) = (files[0].as_path(), files[1].as_path());
    assert!(run(Some(old), &["signing-key", "add"]).status.success());
    assert!(run(Some(old), &["signing-key", "list"]).status.success());
    let refused = run(None, &["signing-key", "list"]);
    assert!(!refused.status.success());
    assert!(String::from_utf8_lossy(&refused.stderr).contains("no secrets key is configured"));

    let new_file = new.to_str().unwrap();
    let out = run(
        Some(old),
        &["secrets", "reencrypt", "--new-key-file", new_file],
    );
    assert_eq!(succeeded(&out).trim(), "sealed 2 secrets under the new key");
    assert!(run(Some(new), &["signing-key", "list"]).status.success());
    let refused = run(Some(old), &["signing-key", "list"]);
    assert!(!refused.status.success());
    assert!(String::from_utf8_lossy(&refused.stderr).contains("does not open"));
}

#[test]
fn account_create_refuses_an_empty_name() {
    let dir = tempfile::tempdir().unwrap();
    let out = graphpay(&sqlite_url(&dir), &["account", "create", "--name", "  "]);
    assert!(!out.status.success());
}

#[test]
fn migrate_and_schema_commands_work() {
    let dir = tempfile::tempdir().unwrap();
    let out = graphpay(&sqlite_url(&dir), &["migrate"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = graphpay(&sqlite_url(&dir), &["migrate"]);
    assert!(out.status.success());
    let out = graphpay(&sqlite_url(&dir), &["schema"]);
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        graphpay::graphql::sdl()
    );
}

#[test]
fn help_documents_every_serve_setting_with_its_env_variable() {
    let out = Command::new(BIN)
        .args(["serve", "--help"])
        .output()
        .unwrap();
    let help = String::from_utf8(out.stdout).unwrap();
    for env in [
        "GRAPHPAY_LISTEN",
        "DATABASE_URL",
        "DATABASE_SCHEMA",
        "LOG_FORMAT",
        "GRAPHPAY_NO_DEMO",
        "DATABASE_ACQUIRE_TIMEOUT_MS",
        "GRAPHPAY_MAX_CONNECTIONS",
        "GRAPHPAY_HEADER_READ_TIMEOUT_SECS",
        "GRAPHPAY_BODY_READ_TIMEOUT_SECS",
        "GRAPHPAY_IDLE_TIMEOUT_SECS",
        "GRAPHPAY_WS_INIT_TIMEOUT_SECS",
        "GRAPHPAY_WS_MAX_MESSAGE_BYTES",
        "GRAPHPAY_WORKER_THREADS",
    ] {
        assert!(help.contains(env), "--help lacks {env}");
    }
}

/// Serves, answers with keys made by the CLI, stops accepting them once revoked, and shuts down
/// cleanly on SIGTERM.
#[tokio::test]
async fn serve_with_cli_made_keys_and_stop_on_sigterm() {
    let dir = tempfile::tempdir().unwrap();
    let url = sqlite_url(&dir);
    let created: Value = serde_json::from_slice(
        &graphpay(&url, &["account", "create", "--name", "Acme", "--json"]).stdout,
    )
    .unwrap();
    let account = created["accountId"].as_str().unwrap().to_string();
    let out = graphpay(&url, &["key", "create", "--account", &account, "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let second: Value = serde_json::from_slice(&out.stdout).unwrap();

    let mut child = Command::new(BIN)
        .args(["serve", "--listen", "127.0.0.1:0", "--log-format", "json"])
        .env("DATABASE_URL", &url)
        // Responses are logged at `debug` (at `info` only when slow or failed).
        .env("RUST_LOG", "info,graphpay::http=debug")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let first = lines.next().unwrap().unwrap();
    let address = first.split_whitespace().last().unwrap().to_string();
    assert!(address.starts_with("http://127.0.0.1:"), "{first}");
    let all: Vec<String> = lines.map_while(Result::ok).take(1).collect();
    assert!(
        all.iter().all(|l| !l.contains("demo")),
        "no demo account when one exists"
    );

    graphpay::tls::install_default_provider();
    let client = reqwest::Client::new();
    let ask = |key: String| {
        let client = client.clone();
        let address = address.clone();
        async move {
            let response = client
                .post(format!("{address}/graphql"))
                .bearer_auth(key)
                .json(&json!({"query": "query Viewer { viewer { id } }"}))
                .send()
                .await
                .unwrap();
            (
                response.status().as_u16(),
                response.json::<Value>().await.unwrap(),
            )
        }
    };
    let (status, body) = ask(second["apiKey"].as_str().unwrap().to_string()).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["data"]["viewer"]["id"], account.as_str());

    let out = graphpay(&url, &["key", "revoke", second["keyId"].as_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // A revoked key stops working on every instance within one second.
    tokio::time::sleep(Duration::from_secs(1)).await;
    let (status, _) = ask(second["apiKey"].as_str().unwrap().to_string()).await;
    assert_eq!(status, 401);
    let (status, _) = ask(created["apiKey"].as_str().unwrap().to_string()).await;
    assert_eq!(status, 200);

    let killed = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let mut waited = Duration::ZERO;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(
            waited < Duration::from_secs(30),
            "the gateway did not stop on SIGTERM"
        );
        std::thread::sleep(Duration::from_millis(50));
        waited += Duration::from_millis(50);
    };
    assert!(status.success(), "{status:?}");
    let mut logs = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut logs).unwrap();
    let request_log = logs
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|l| l["span"]["operation"] == "Viewer")
        .unwrap_or_else(|| panic!("a JSON log line naming the operation: {logs}"));
    assert!(
        request_log["span"]["request_id"]
            .as_str()
            .is_some_and(|id| !id.is_empty())
    );
}

#[test]
fn a_fresh_database_gets_a_demo_account_on_first_serve() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = Command::new(BIN)
        .args(["serve", "--listen", "127.0.0.1:0"])
        .env("DATABASE_URL", sqlite_url(&dir))
        .env("RUST_LOG", "warn")
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let lines: Vec<String> = BufReader::new(child.stdout.take().unwrap())
        .lines()
        .map_while(Result::ok)
        .take(4)
        .collect();
    let _ = child.kill();
    let _ = child.wait();
    assert!(lines[1].contains("/graphql"), "{lines:?}");
    assert!(lines[2].contains("demo account acct_"), "{lines:?}");
    assert!(lines[3].contains("gpk_"), "{lines:?}");
}

/// A `graphpay serve` on a fresh SQLite database, its output read line by line as it comes.
struct Served {
    child: std::process::Child,
    address: String,
    stdout: mpsc::Receiver<String>,
    stderr: mpsc::Receiver<String>,
    _dir: tempfile::TempDir,
}

fn lines_of(reader: impl std::io::Read + Send + 'static) -> mpsc::Receiver<String> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(reader).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                return;
            }
        }
    });
    rx
}

/// Starts `graphpay serve` and waits until it answers; its stderr when it does not start.
fn serve(args: &[&str], env: &[(&str, &str)]) -> Result<Served, String> {
    let dir = tempfile::tempdir().unwrap();
    let mut command = Command::new(BIN);
    command
        .args(["serve", "--listen", "127.0.0.1:0"])
        .args(args)
        .env("DATABASE_URL", sqlite_url(&dir))
        .env("RUST_LOG", "info")
        .env_remove("GRAPHPAY_NO_DEMO")
        .env_remove("NO_COLOR")
        .envs(env.iter().copied())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = command.spawn().unwrap();
    let stdout = lines_of(child.stdout.take().unwrap());
    let stderr = lines_of(child.stderr.take().unwrap());
    let Ok(first) = stdout.recv_timeout(Duration::from_secs(30)) else {
        let _ = child.kill();
        let _ = child.wait();
        return Err(stderr.iter().collect::<Vec<_>>().join("\n"));
    };
    let address = first.split_whitespace().last().unwrap().to_string();
    let host = address.trim_start_matches("http://").to_string();
    let started = std::time::Instant::now();
    loop {
        let mut answer = String::new();
        if let Ok(mut stream) = std::net::TcpStream::connect(&host) {
            let request =
                format!("GET /healthz HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n");
            let _ = stream.write_all(request.as_bytes());
            let _ = std::io::Read::read_to_string(&mut stream, &mut answer);
        }
        if answer.starts_with("HTTP/1.1 200") {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "the gateway never answered"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    Ok(Served {
        child,
        address,
        stdout,
        stderr,
        _dir: dir,
    })
}

impl Served {
    /// Stops the gateway; what it printed after its first line, and its logs.
    fn stop(mut self) -> (Vec<String>, Vec<String>) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        (self.stdout.iter().collect(), self.stderr.iter().collect())
    }
}

#[test]
fn no_demo_takes_the_usual_boolean_spellings_and_the_flag() {
    let demo_made = |args: &[&str], env: &[(&str, &str)]| {
        let (printed, _) = serve(args, env).expect("the gateway starts").stop();
        printed.iter().any(|line| line.contains("demo account"))
    };
    for yes in ["1", "true", "yes", "on", "TRUE"] {
        assert!(
            !demo_made(&[], &[("GRAPHPAY_NO_DEMO", yes)]),
            "GRAPHPAY_NO_DEMO={yes}"
        );
    }
    for no in ["0", "false", "no", "off"] {
        assert!(
            demo_made(&[], &[("GRAPHPAY_NO_DEMO", no)]),
            "GRAPHPAY_NO_DEMO={no}"
        );
    }
    assert!(!demo_made(&["--no-demo"], &[]));
    assert!(demo_made(&[], &[]));
    let refused = serve(&[], &[("GRAPHPAY_NO_DEMO", "maybe")]).err();
    assert!(
        refused
            .is_some_and(|stderr| stderr.contains("GRAPHPAY_NO_DEMO") || stderr.contains("maybe")),
        "an unreadable boolean is refused"
    );
}

/// How many worker threads the runtime really has is read from its metrics
/// (`metrics::the_runtime_has_as_many_worker_threads_as_asked`).
#[test]
fn a_worker_thread_count_out_of_range_is_refused_by_name() {
    for bad in ["0", "1025", "65536", "many"] {
        let refused = serve(&["--worker-threads", bad], &[]).err();
        assert!(
            refused
                .as_deref()
                .is_some_and(|stderr| stderr.contains("--worker-threads")),
            "--worker-threads {bad} is refused by name: {refused:?}"
        );
    }
    let served = serve(&["--worker-threads", "1024"], &[]).expect("the largest count serves");
    served.stop();
}

#[test]
fn pretty_logs_into_a_pipe_carry_no_colour_codes() {
    let (_, logs) = serve(&["--log-format", "pretty"], &[])
        .expect("the gateway starts")
        .stop();
    let logs = logs.join("\n");
    assert!(logs.contains("graphpay listening"), "{logs}");
    assert!(!logs.contains('\u{1b}'), "colour codes in {logs:?}");
}

/// The processor's webhook is logged by ids, statuses and outcome, never with the payment's
/// description (the merchant's free text) or its source.
#[tokio::test]
async fn a_handled_webhook_is_logged_without_the_payment_itself() {
    let served = serve(
        &["--log-format", "json"],
        &[("SANDBOX_WEBHOOK_DELAY_MS", "0")],
    )
    .expect("the gateway starts");
    let key = served
        .stdout
        .iter()
        .find_map(|line| {
            line.split_whitespace()
                .last()
                .filter(|w| w.starts_with("gpk_"))
                .map(str::to_string)
        })
        .expect("the demo key");
    let note = "ring twice, the dog is called Biscuit";
    graphpay::tls::install_default_provider();
    let created: Value = reqwest::Client::new()
        .post(format!("{}/graphql", served.address))
        .bearer_auth(&key)
        .json(&json!({
            "query": "mutation($input: CreatePaymentInput!) { createPayment(input: $input, idempotencyKey: \"k\") { payment { id status } } }",
            "variables": {"input": {"amount": 500, "currency": "USD", "source": "tok_async", "description": note}},
        }))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let id = create_payload(&created)["payment"]["id"]
        .as_str()
        .unwrap_or_else(|| panic!("a payment: {created}"))
        .to_string();
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    let handled = loop {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        match served.stderr.recv_timeout(left) {
            Ok(line) if line.contains("webhook handled") => break Some(line),
            Ok(_) => continue,
            Err(_) => break None,
        }
    };
    let (_, _) = served.stop();
    let line = handled.expect("a webhook was handled");
    let logged: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(logged["payment"], id.as_str(), "{line}");
    assert_eq!(logged["outcome"], "applied", "{line}");
    assert_eq!(logged["status"], "SUCCEEDED", "{line}");
    assert!(
        !line.contains("Biscuit") && !line.contains("tok_async"),
        "{line}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn key_create_with_scopes_issues_a_restricted_key() {
    let dir = tempfile::tempdir().unwrap();
    let url = sqlite_url(&dir);
    let created: Value = serde_json::from_str(&succeeded(&graphpay(
        &url,
        &["account", "create", "--name", "Acme", "--json"],
    )))
    .unwrap();
    let account = created["accountId"].as_str().unwrap();
    for (refused, says) in [
        (vec!["--scopes", "PAYMENTS_READ,ROOT"], "unknown scope"),
        (vec!["--scopes", ""], "unknown scope"),
        (vec!["--name", " "], "name"),
    ] {
        let mut args = vec!["key", "create", "--account", account];
        args.extend(refused.iter().copied());
        let out = graphpay(&url, &args);
        assert!(!out.status.success(), "{refused:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(says), "{refused:?}: {stderr}");
    }
    let made: Value = serde_json::from_str(&succeeded(&graphpay(
        &url,
        &[
            "key",
            "create",
            "--account",
            account,
            "--name",
            "reporting job",
            "--scopes",
            "REFUNDS_WRITE,PAYMENTS_READ",
            "--json",
        ],
    )))
    .unwrap();
    let secret = made["apiKey"].as_str().unwrap().to_string();
    let listed = succeeded(&graphpay(&url, &["key", "list", "--account", account]));
    let rows: Vec<Vec<&str>> = listed.lines().map(|l| l.split('\t').collect()).collect();
    assert_eq!(rows.len(), 2, "refused keys were not stored: {listed}");
    assert_eq!((rows[0][6], rows[0][7]), ("*", "-"), "{listed}");
    assert_eq!(rows[1][0], made["keyId"]);
    assert_eq!(
        (rows[1][6], rows[1][7]),
        ("PAYMENTS_READ,REFUNDS_WRITE", "reporting job")
    );

    // The gateway on that database holds the key to its scopes.
    let app = crate::helpers::TestApp::spawn_with(crate::helpers::Backend::Sqlite, |c| {
        c.database = graphpay::persistence::DbConfig {
            url: url.clone(),
            schema: None,
            max_connections: 4,
            busy_timeout: Duration::from_secs(5),
            acquire_timeout: Duration::from_secs(1),
        };
    })
    .await;
    app.query(&secret, "{ viewer { id } }", json!({})).await;
    let (_, body) = app
        .post(
            Some(&secret),
            "mutation { createPayment(idempotencyKey: \"k\", input: {amount: 100, \
             currency: \"USD\", source: \"tok_visa\"}) { payment { id } } }",
            json!({}),
        )
        .await;
    assert_eq!(crate::helpers::first_error_code(&body), "FORBIDDEN");
    assert_eq!(
        crate::helpers::error_extension(&body, "requiredScope"),
        "PAYMENTS_WRITE"
    );
}
