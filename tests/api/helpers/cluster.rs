//! A PostgreSQL server that one test owns: its own data directory and port, so the test can
//! stop, start and restart the whole server without disturbing the shared one other tests use.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};
use std::time::{Duration, Instant};

use super::ports::free_port;

/// How long starting or stopping the server may take before the test fails; generous, so a
/// loaded machine does not fail it.
const DEADLINE: Duration = Duration::from_secs(60);

/// How many lines of the server log a failure shows.
const LOG_TAIL_LINES: usize = 40;

/// A PostgreSQL cluster of the test's own, made by `initdb` in a fresh temporary directory:
/// trust authentication, superuser `postgres`, listening on 127.0.0.1 on a free port, with
/// its Unix sockets and its log (`server.log`) in that directory, `fsync` off and small
/// shared buffers. [`OwnCluster::restart`], [`OwnCluster::stop`] and
/// [`OwnCluster::start_again`] keep the port and the data.
///
/// `initdb` and `postgres` refuse to run as root: when the test runs as root (as in CI) they
/// run as the `postgres` OS user, and the directory belongs to that user.
///
/// Dropping it stops the server (immediately: its data is thrown away) and removes the
/// directory; it never panics, so it does not hide the failure that ended a test.
pub struct OwnCluster {
    port: u16,
    tools: Tools,
    /// Holds `data/` (the cluster), the sockets and `server.log`; removed on drop.
    dir: tempfile::TempDir,
}

impl OwnCluster {
    /// Creates the cluster, starts it and returns once it accepts connections on its port.
    pub async fn start() -> OwnCluster {
        let as_postgres = effective_uid_is_root().await;
        let dir = if as_postgres {
            // Under /tmp, which the `postgres` user can reach whatever `TMPDIR` says.
            let dir = tempfile::Builder::new()
                .prefix("graphpay-pg-")
                .tempdir_in("/tmp")
                .expect("a temp dir under /tmp");
            let chown = run(tokio::process::Command::new("chown")
                .arg("postgres:")
                .arg(dir.path()))
            .await;
            assert!(
                chown.status.success(),
                "could not give {} to the postgres user: {}",
                dir.path().display(),
                String::from_utf8_lossy(&chown.stderr)
            );
            dir
        } else {
            tempfile::Builder::new()
                .prefix("graphpay-pg-")
                .tempdir()
                .expect("a temp dir")
        };
        let cluster = OwnCluster {
            port: free_port(),
            tools: Tools {
                bin: bin_dir().await,
                as_postgres,
                cwd: dir.path().to_path_buf(),
            },
            dir,
        };
        cluster.init().await;
        cluster.start_again().await;
        cluster
    }

    /// `postgres://postgres@127.0.0.1:PORT/postgres`.
    pub fn url(&self) -> String {
        format!("postgres://postgres@127.0.0.1:{}/postgres", self.port)
    }

    /// Stops the server (fast: sessions are ended, committed data is kept) and starts it
    /// again on the same port and data directory; returns once it accepts connections.
    pub async fn restart(&self) {
        self.stop().await;
        self.start_again().await;
    }

    /// Stops the server (fast shutdown) and returns once it is down.
    pub async fn stop(&self) {
        let out = self
            .pg_ctl(&["stop", "-m", "fast", "-w", "-t", &deadline_secs()])
            .await;
        if !out.status.success() {
            self.fail("pg_ctl stop", &out).await;
        }
    }

    /// Starts the stopped server on the same port and data directory; returns once it
    /// accepts connections on its port.
    pub async fn start_again(&self) {
        let log = self.log_path();
        let out = self
            .pg_ctl(&[
                OsStr::new("start"),
                OsStr::new("-w"),
                OsStr::new("-t"),
                OsStr::new(&deadline_secs()),
                OsStr::new("-l"),
                log.as_os_str(),
            ])
            .await;
        if !out.status.success() {
            self.fail("pg_ctl start", &out).await;
        }
        self.wait_until_accepting().await;
    }

    /// `initdb` and the settings every start uses, written once into `postgresql.conf`.
    async fn init(&self) {
        let mut initdb = self.tools.command("initdb");
        initdb
            .arg("-D")
            .arg(self.data_dir())
            .args(["-U", "postgres", "--auth=trust", "-E", "UTF8"])
            .args(["--locale=C", "--no-sync", "--no-instructions"]);
        let out = run(&mut initdb).await;
        if !out.status.success() {
            self.fail("initdb", &out).await;
        }
        let settings = format!(
            "\n# graphpay tests: a server of one test's own\n\
             listen_addresses = '127.0.0.1'\n\
             port = {port}\n\
             unix_socket_directories = '{sockets}'\n\
             fsync = off\n\
             synchronous_commit = off\n\
             full_page_writes = off\n\
             shared_buffers = 16MB\n\
             max_connections = 40\n",
            port = self.port,
            sockets = self.dir.path().display(),
        );
        let conf = self.data_dir().join("postgresql.conf");
        let mut existing = tokio::fs::read_to_string(&conf)
            .await
            .unwrap_or_else(|e| panic!("reading {}: {e}", conf.display()));
        existing.push_str(&settings);
        tokio::fs::write(&conf, existing)
            .await
            .unwrap_or_else(|e| panic!("writing {}: {e}", conf.display()));
    }

    /// Polls `pg_isready` over TCP (the way tests connect) until the server answers.
    async fn wait_until_accepting(&self) {
        let started = Instant::now();
        loop {
            let mut isready = self.tools.command("pg_isready");
            isready
                .args([
                    "-h",
                    "127.0.0.1",
                    "-U",
                    "postgres",
                    "-d",
                    "postgres",
                    "-t",
                    "5",
                ])
                .arg("-p")
                .arg(self.port.to_string());
            let out = run(&mut isready).await;
            if out.status.success() {
                return;
            }
            if started.elapsed() > DEADLINE {
                self.fail("waiting for the server to accept connections", &out)
                    .await;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    async fn pg_ctl<S: AsRef<OsStr>>(&self, args: &[S]) -> Output {
        let mut pg_ctl = self.tools.command("pg_ctl");
        pg_ctl.arg("-D").arg(self.data_dir()).args(args);
        run(&mut pg_ctl).await
    }

    /// Panics with what `step` printed and the tail of the server log, so the cause shows.
    async fn fail(&self, step: &str, out: &Output) {
        let log = tokio::fs::read_to_string(self.log_path())
            .await
            .unwrap_or_else(|e| format!("(no server log: {e})"));
        let lines: Vec<&str> = log.lines().collect();
        let tail = lines[lines.len().saturating_sub(LOG_TAIL_LINES)..].join("\n");
        panic!(
            "{step} failed for the test's own PostgreSQL cluster on port {port} ({status}):\n\
             stdout: {stdout}\nstderr: {stderr}\nserver log (last lines):\n{tail}",
            port = self.port,
            status = out.status,
            stdout = String::from_utf8_lossy(&out.stdout).trim(),
            stderr = String::from_utf8_lossy(&out.stderr).trim(),
        )
    }

    fn data_dir(&self) -> PathBuf {
        self.dir.path().join("data")
    }

    fn log_path(&self) -> PathBuf {
        self.dir.path().join("server.log")
    }
}

impl Drop for OwnCluster {
    fn drop(&mut self) {
        // Drop cannot await: a blocking `pg_ctl` it is. An immediate stop takes a moment,
        // and a failure (the server was never started, or is already down) is of no interest.
        // The directory goes with `self.dir` once the server is down.
        let _ = self
            .tools
            .std_command("pg_ctl")
            .arg("-D")
            .arg(self.data_dir())
            .args(["stop", "-m", "immediate", "-w", "-t", &deadline_secs()])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }
}

/// How to run the PostgreSQL programs: directly, or as the `postgres` OS user when the test
/// runs as root.
struct Tools {
    /// Where `initdb`, `pg_ctl` and `pg_isready` are.
    bin: PathBuf,
    as_postgres: bool,
    /// A directory the user who runs them may enter.
    cwd: PathBuf,
}

impl Tools {
    fn command(&self, program: &str) -> tokio::process::Command {
        tokio::process::Command::from(self.std_command(program))
    }

    fn std_command(&self, program: &str) -> std::process::Command {
        let program = self.bin.join(program);
        let mut command = if self.as_postgres {
            let mut command = std::process::Command::new("setpriv");
            command
                .args([
                    "--reuid=postgres",
                    "--regid=postgres",
                    "--init-groups",
                    "--",
                ])
                .arg(program);
            command
        } else {
            std::process::Command::new(program)
        };
        // `PGDATA`, `PGPORT`, `PGHOST` and the like from the test's environment must not
        // point these programs at another server.
        for (name, _) in std::env::vars_os() {
            if name.to_string_lossy().starts_with("PG") {
                command.env_remove(name);
            }
        }
        command.current_dir(&self.cwd).stdin(Stdio::null());
        command
    }
}

/// Runs a command to its end and returns what it printed; panics only if it cannot run.
async fn run(command: &mut tokio::process::Command) -> Output {
    command
        .output()
        .await
        .unwrap_or_else(|e| panic!("could not run {command:?}: {e}"))
}

/// Whether the test runs as root (effective uid 0), which `initdb` and `postgres` refuse.
async fn effective_uid_is_root() -> bool {
    let out = run(tokio::process::Command::new("id").arg("-u")).await;
    assert!(out.status.success(), "`id -u` failed");
    String::from_utf8_lossy(&out.stdout).trim() == "0"
}

/// The newest installed `/usr/lib/postgresql/<version>/bin` (Debian's layout), else what
/// `pg_config --bindir` says.
async fn bin_dir() -> PathBuf {
    let root = Path::new("/usr/lib/postgresql");
    let mut newest: Option<(Vec<u32>, PathBuf)> = None;
    if let Ok(mut versions) = tokio::fs::read_dir(root).await {
        while let Ok(Some(entry)) = versions.next_entry().await {
            let name = entry.file_name().to_string_lossy().to_string();
            let Ok(version) = name
                .split('.')
                .map(str::parse)
                .collect::<Result<Vec<u32>, _>>()
            else {
                continue;
            };
            let bin = entry.path().join("bin");
            let has_tools = tokio::fs::try_exists(bin.join("initdb"))
                .await
                .unwrap_or(false)
                && tokio::fs::try_exists(bin.join("pg_ctl"))
                    .await
                    .unwrap_or(false);
            if has_tools && newest.as_ref().is_none_or(|(v, _)| version > *v) {
                newest = Some((version, bin));
            }
        }
    }
    if let Some((_, bin)) = newest {
        return bin;
    }
    match tokio::process::Command::new("pg_config")
        .arg("--bindir")
        .output()
        .await
    {
        Ok(out) if out.status.success() => {
            PathBuf::from(String::from_utf8_lossy(&out.stdout).trim())
        }
        _ => panic!(
            "no PostgreSQL server programs (initdb, pg_ctl): none under {} and no pg_config",
            root.display()
        ),
    }
}

/// A TCP port on 127.0.0.1 that was free a moment ago: bound as port 0, then released.
fn deadline_secs() -> String {
    DEADLINE.as_secs().to_string()
}
