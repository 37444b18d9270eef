//! Tracing subscriber: human-readable by default, JSON lines for log collectors; `RUST_LOG`
//! filters either.

use std::io::IsTerminal;

use tracing_subscriber::EnvFilter;

use crate::persistence;

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    Pretty,
    Json,
}

/// Installs the global subscriber; later calls are no-ops (tests start many servers).
pub fn init(format: LogFormat) {
    let filter = EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| EnvFilter::new(format!("info,{}", persistence::QUIET_LOG_TARGETS)));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(colours_wanted())
        .with_writer(std::io::stderr);
    let _ = match format {
        LogFormat::Pretty => builder.try_init(),
        LogFormat::Json => builder
            .json()
            .flatten_event(true)
            .with_current_span(true)
            .try_init(),
    };
}

/// Colours only for a person at a terminal: a file or a pipe gets plain text. `NO_COLOR`
/// (<https://no-color.org>) turns them off everywhere.
fn colours_wanted() -> bool {
    std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}
