//! Tracing subscriber: human-readable by default, JSON lines for log collectors; `RUST_LOG`
//! filters either.

use std::io::IsTerminal;
use std::str::FromStr;

use tracing_subscriber::filter::Targets;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::{EnvFilter, Layer, Registry};

use crate::persistence;

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    Pretty,
    Json,
}

/// Installs the global subscriber; later calls are no-ops (tests start many servers).
pub fn init(format: LogFormat) {
    let directives = std::env::var("RUST_LOG").ok();
    let lines = tracing_subscriber::fmt::layer()
        .with_ansi(colours_wanted())
        .with_writer(std::io::stderr);
    let lines = match format {
        LogFormat::Pretty => lines.boxed(),
        LogFormat::Json => lines
            .json()
            .flatten_event(true)
            .with_current_span(true)
            .boxed(),
    };
    let _ = tracing_subscriber::registry()
        .with(filter(directives.as_deref()))
        .with(lines)
        .try_init();
}

/// The filter for `RUST_LOG`'s directives (the default: `info`, the database crates at
/// `warn`). Targets and levels alone are decided once per call site, at no cost to a span
/// afterwards. Directives that name spans or fields (`[request{operation=...}]=debug`) need
/// `EnvFilter`, which then looks up every span each time it is entered and left: a lock and
/// a hash for every poll of every request.
fn filter(directives: Option<&str>) -> Box<dyn Layer<Registry> + Send + Sync> {
    let default = format!("info,{}", persistence::QUIET_LOG_TARGETS);
    let directives = directives
        .map(str::trim)
        .filter(|d| !d.is_empty())
        .unwrap_or(&default);
    if !directives.contains('[')
        && let Ok(targets) = Targets::from_str(directives)
    {
        return targets.boxed();
    }
    EnvFilter::try_new(directives)
        .unwrap_or_else(|_| EnvFilter::new(&default))
        .boxed()
}

/// Colours only for a person at a terminal: a file or a pipe gets plain text. `NO_COLOR`
/// (<https://no-color.org>) turns them off everywhere.
fn colours_wanted() -> bool {
    std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}
