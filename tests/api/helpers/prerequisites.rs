//! What the tests that run Node and Chromium need from the machine. Checked twice: by
//! `build.rs` (which includes this file), which compiles each such test as ignored, with the
//! reason, when something is missing; and by the test itself, which fails if something went
//! missing after it was built.

use std::path::Path;
use std::process::{Command, Stdio};

/// The browser the dashboard's test drives: Debian's Chromium, never a downloaded one.
pub const CHROMIUM: &str = "/usr/bin/chromium";

/// A file a test needs, relative to the repository (or absolute), and how to get it.
pub struct Needed {
    pub path: &'static str,
    pub install: &'static str,
}

/// The GraphQL over HTTP audit (`tests/api/http_audit.rs`), beside `node`.
pub const HTTP_AUDIT: &[Needed] = &[Needed {
    path: "tests/http-audit/node_modules/graphql-http/package.json",
    install: "npm ci --prefix tests/http-audit",
}];

/// The browser tests (`tests/api/*_browser.rs`: the dashboard, the customer-action page, the
/// checkout), beside `node`.
pub const BROWSER: &[Needed] = &[
    Needed {
        path: CHROMIUM,
        install: "apt-get install chromium",
    },
    Needed {
        path: "tests/browser/node_modules/playwright-core/package.json",
        install: "npm ci in tests/browser",
    },
    Needed {
        path: "examples/dashboard/dist/index.html",
        install: "npm ci && npm run build in examples/dashboard",
    },
    Needed {
        path: "examples/checkout/dist/index.html",
        install: "npm ci && npm run build in examples/checkout",
    },
];

/// What of `needed`, and of `node`, which every such test runs, is missing under `root`.
pub fn missing(root: &Path, needed: &[Needed]) -> Vec<String> {
    let mut missing = Vec::new();
    if !node_runs() {
        missing.push("`node` does not run (install Node.js)".to_string());
    }
    for item in needed {
        if !root.join(item.path).is_file() {
            missing.push(format!("{} is missing ({})", item.path, item.install));
        }
    }
    missing
}

/// Whether `node --version` runs and succeeds.
fn node_runs() -> bool {
    Command::new("node")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|status| status.success())
}

/// The Redis server the shared budget's tests start on ports of their own.
pub const REDIS_SERVER: &str = "/usr/bin/redis-server";
