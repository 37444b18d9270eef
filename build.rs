//! Build steps that must happen before the gateway compiles:
//! - the GraphiQL playground's assets come from the npm registry (playground/package-lock.json)
//!   and are embedded into the binary; `npm ci` runs here when they are not installed yet;
//! - integration tests against PostgreSQL are compiled in only when `TEST_DATABASE_URL` is set;
//!   otherwise they are marked ignored, so every run reports them as not run.

use std::path::Path;
use std::process::Command;

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
