//! The graphql-http audit suite (GraphQL over HTTP conformance), run by Node from
//! `tests/http-audit/` against the real gateway: every audit must pass, with no warning.
//! Compiled as ignored when Node or the suite was missing at build time; fails when either is
//! missing at run time.

use std::path::Path;

use crate::helpers::prerequisites::{self, HTTP_AUDIT};
use crate::helpers::{Backend, TestApp};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(http_audit_tests),
    ignore = "HTTP audit NOT run: `node` or tests/http-audit/node_modules was missing when the \
              tests were built (npm ci --prefix tests/http-audit)"
)]
async fn the_gateway_passes_every_graphql_over_http_audit() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let missing = prerequisites::missing(root, HTTP_AUDIT);
    assert!(
        missing.is_empty(),
        "HTTP audit NOT run: {}",
        missing.join("; ")
    );
    let dir = root.join("tests/http-audit");
    let app = TestApp::spawn(Backend::Sqlite).await;
    let (_, key) = app.account("Auditor").await;
    let output = tokio::process::Command::new("node")
        .arg("audit.mjs")
        .current_dir(&dir)
        .env("GRAPHPAY_URL", format!("{}/graphql", app.address))
        .env("GRAPHPAY_API_KEY", &key)
        .output()
        .await
        .expect("node runs the audit");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    println!("{stdout}");
    assert!(output.status.success(), "{stdout}\n{stderr}");
    let tally = stdout
        .lines()
        .find(|line| line.starts_with("HTTP audit: "))
        .unwrap_or_else(|| panic!("no tally in {stdout}\n{stderr}"));
    assert!(
        tally.ends_with(" 0 failed, 0 warnings, 0 notices"),
        "{stdout}"
    );
    let ok = stdout
        .lines()
        .filter(|line| line.starts_with("OK "))
        .count();
    assert!(ok >= 60, "only {ok} audits ran:\n{stdout}");
}
