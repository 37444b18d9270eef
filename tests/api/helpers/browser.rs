//! What the browser tests share: the check that what they need is installed, and the database
//! they run on.

use std::path::Path;

use super::Backend;
use super::prerequisites::{self, BROWSER};

/// The repository, after checking that Chromium, Node and the browser scripts' packages are
/// there; a browser test fails here, loudly, when one went missing after it was built.
pub fn browser_root() -> &'static Path {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let missing = prerequisites::missing(root, BROWSER);
    assert!(
        missing.is_empty(),
        "BROWSER test NOT run: {} (see .ci/run for how to install it)",
        missing.join("; ")
    );
    root
}

/// PostgreSQL when `TEST_DATABASE_URL` is set, else SQLite: a browser test runs on one.
pub fn browser_backend() -> Backend {
    if std::env::var_os("TEST_DATABASE_URL").is_some_and(|v| !v.is_empty()) {
        Backend::Postgres
    } else {
        Backend::Sqlite
    }
}

/// Runs a browser driver (`node ...`) to its end, at most `limit`: whether it succeeded, and
/// what it printed on standard output and standard error.
pub async fn run_driver(
    script: &mut tokio::process::Command,
    limit: std::time::Duration,
) -> (std::process::ExitStatus, String, String) {
    let output = tokio::time::timeout(limit, script.output())
        .await
        .unwrap_or_else(|_| panic!("the browser script finishes within {limit:?}"))
        .expect("node starts");
    (
        output.status,
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}
