//! Build steps that must happen before the gateway compiles:
//! - the GraphiQL playground's assets come from the npm registry (playground/package-lock.json)
//!   and are embedded into the binary; `npm ci` runs here when they are not installed yet;
//! - integration tests against PostgreSQL are compiled in only when `TEST_DATABASE_URL` is set;
//!   otherwise they are marked ignored, so every run reports them as not run;
//! - the GraphQL over HTTP audit and the dashboard's browser test are marked ignored likewise
//!   unless what they need (Node, Chromium, their npm packages, the built dashboard) is here
//!   when they are built, and the shared budget's tests unless `redis-server` is: see
//!   `tests/api/helpers/prerequisites.rs`;
//! - the read replicas' tests are compiled in only when `TEST_REPLICA_URL` names a streaming
//!   replica of the test server (`.ci/replica start` makes one).

use std::path::Path;
use std::process::Command;

#[path = "tests/api/helpers/prerequisites.rs"]
mod prerequisites;

const ASSETS: [&str; 4] = [
    "node_modules/react/umd/react.production.min.js",
    "node_modules/react-dom/umd/react-dom.production.min.js",
    "node_modules/graphiql/dist/index.umd.js",
    "node_modules/graphiql/dist/style.css",
];

fn main() {
    println!("cargo::rustc-check-cfg=cfg(pg_tests)");
    println!("cargo::rerun-if-env-changed=TEST_DATABASE_URL");
    if std::env::var_os("TEST_DATABASE_URL").is_some_and(|v| !v.is_empty()) {
        println!("cargo::rustc-cfg=pg_tests");
    }
    node_tests("http_audit_tests", "HTTP audit", prerequisites::HTTP_AUDIT);
    node_tests("browser_tests", "BROWSER test", prerequisites::BROWSER);
    println!("cargo::rustc-check-cfg=cfg(replica_tests)");
    println!("cargo::rerun-if-env-changed=TEST_REPLICA_URL");
    if std::env::var_os("TEST_REPLICA_URL").is_some_and(|v| !v.is_empty()) {
        println!("cargo::rustc-cfg=replica_tests");
    } else {
        println!(
            "cargo::warning=REPLICA test NOT run: TEST_REPLICA_URL is not set (.ci/replica start)"
        );
    }
    println!("cargo::rustc-check-cfg=cfg(redis_tests)");
    watch(Path::new(prerequisites::REDIS_SERVER));
    if Path::new(prerequisites::REDIS_SERVER).is_file() {
        println!("cargo::rustc-cfg=redis_tests");
    } else {
        println!(
            "cargo::warning=REDIS test NOT run: {} is missing (apt-get install redis-server)",
            prerequisites::REDIS_SERVER
        );
    }

    let dir = Path::new("playground");
    println!("cargo::rerun-if-changed=playground/package.json");
    println!("cargo::rerun-if-changed=playground/package-lock.json");
    for asset in ASSETS {
        println!("cargo::rerun-if-changed=playground/{asset}");
    }
    if ASSETS.iter().all(|a| dir.join(a).is_file()) {
        return;
    }
    let status = Command::new("npm")
        .args(["ci", "--no-audit", "--no-fund", "--ignore-scripts"])
        .current_dir(dir)
        .status();
    match status {
        Ok(s) if s.success() && ASSETS.iter().all(|a| dir.join(a).is_file()) => {}
        Ok(s) => panic!(
            "`npm ci` in playground/ exited with {s}: the playground assets could not be installed"
        ),
        Err(e) => panic!(
            "could not run `npm ci` in playground/ ({e}): graphpay embeds the GraphiQL playground \
             from the npm registry at build time, so npm must be installed"
        ),
    }
}

/// Sets `cfg(<cfg>)` when everything the tests behind it need is here; otherwise says what is
/// missing. Either way cargo is asked to run this script again when what it looked at changes,
/// so installing a tool later compiles the tests in.
fn node_tests(cfg: &str, what: &str, needed: &[prerequisites::Needed]) {
    println!("cargo::rustc-check-cfg=cfg({cfg})");
    // `node` as found on PATH, or, while there is none, the directories it would appear in.
    let path = std::env::var_os("PATH").unwrap_or_default();
    let dirs: Vec<_> = std::env::split_paths(&path)
        .filter(|dir| dir.is_absolute())
        .collect();
    match dirs
        .iter()
        .map(|dir| dir.join("node"))
        .find(|n| n.is_file())
    {
        Some(node) => watch(&node),
        None => dirs.iter().for_each(|dir| watch(dir)),
    }
    for item in needed {
        watch(Path::new(item.path));
    }
    let missing = prerequisites::missing(Path::new("."), needed);
    if missing.is_empty() {
        println!("cargo::rustc-cfg={cfg}");
    } else {
        println!("cargo::warning={what} NOT run: {}", missing.join("; "));
    }
}

/// Asks cargo to run this script again when `path` changes, appears or goes. A path that is
/// not there is watched through its nearest ancestor that is (a directory, whose whole tree
/// cargo then scans; never `/`): cargo would run the script, and rebuild the crate, on every
/// build for a path that does not exist.
fn watch(path: &Path) {
    let Some(existing) = path
        .ancestors()
        .find(|p| p.parent().is_some() && p.exists())
    else {
        return;
    };
    println!("cargo::rerun-if-changed={}", existing.display());
}
