//! The settings' defaults, as flags and as `Config` values.

use std::time::Duration;

use clap::Parser;

use super::{Config, ServeArgs};
use crate::http::ConnectionLimits;

#[derive(Parser)]
struct Serve {
    #[command(flatten)]
    args: ServeArgs,
}

#[test]
fn serve_without_flags_has_the_connection_limits_that_tests_start_with() {
    let config = Config::from(Serve::parse_from(["graphpay"]).args);
    assert_eq!(config.connections, ConnectionLimits::default());
    assert_eq!(config.database.acquire_timeout, Duration::from_secs(3));
}
