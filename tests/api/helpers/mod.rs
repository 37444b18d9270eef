//! The test harness: starts the real gateway on an ephemeral port, against a fresh SQLite file
//! or a fresh PostgreSQL schema, and talks HTTP to it; with the requests, readers and checks
//! that more than one test file uses. Test files import all of it from here.

mod app;
mod browser;
mod cluster;
mod consistency;
mod own_database;
mod pages;
mod payments;
mod ports;
pub mod prerequisites;
mod process;
mod receiver;
mod responses;
mod sandbox;
mod webhooks;
mod ws;

pub use app::{TestApp, post_on_new_connection, postgres_url};
pub use browser::{browser_backend, browser_root, run_driver};
pub use cluster::OwnCluster;
pub use consistency::assert_consistent;
pub use own_database::OwnDatabase;
pub use pages::{
    Listing, PAGE, Row, explained_on_sqlite, insert_rows, page, scans_of, sqlite_plan, usd_payment,
    walk_both_ways,
};
pub use payments::{
    CANCEL, CONFIRM, CREATE, REFUND, charges, create, create_while_unavailable, created_id, input,
    refund, row_count, status_of,
};
pub use ports::free_port;
pub use process::GatewayProcess;
pub use receiver::{Answer, Received, Receiver};
pub use responses::{
    cost, create_payload, error_extension, first_error_code, first_error_message, refund_payload,
};
pub use sandbox::{SandboxProcess, sandbox_charges, sandbox_db};
pub use webhooks::{charge_event, refund_event};
pub use ws::{
    Socket, connect, connect_to, next_message, next_update, subscribe_as, subscribe_synced,
};

/// The database a test's gateway runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

/// Defines each test once and runs it on SQLite and on PostgreSQL. The PostgreSQL variant is
/// compiled as ignored (and so reported as not run) unless `TEST_DATABASE_URL` was set when the
/// tests were built.
macro_rules! on_both_backends {
    ($(async fn $name:ident($app:ident: TestApp) $body:block)*) => {$(
        mod $name {
            #[allow(unused_imports)]
            use super::*;

            async fn body($app: $crate::helpers::TestApp) $body

            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn sqlite() {
                body($crate::helpers::TestApp::spawn($crate::helpers::Backend::Sqlite).await).await
            }

            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            #[cfg_attr(not(pg_tests), ignore = "TEST_DATABASE_URL is not set: PostgreSQL test NOT run")]
            async fn postgres() {
                body($crate::helpers::TestApp::spawn($crate::helpers::Backend::Postgres).await).await
            }
        }
    )*};
}

/// Runs each named `async fn(Backend)` on SQLite and on PostgreSQL, for tests that start
/// their gateway with a configuration of their own.
macro_rules! on_both_backends_fn {
    ($($name:ident),* $(,)?) => {$(
        mod $name {
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn sqlite() {
                super::$name($crate::helpers::Backend::Sqlite).await
            }

            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            #[cfg_attr(not(pg_tests), ignore = "TEST_DATABASE_URL is not set: PostgreSQL test NOT run")]
            async fn postgres() {
                super::$name($crate::helpers::Backend::Postgres).await
            }
        }
    )*};
}

pub(crate) use {on_both_backends, on_both_backends_fn};
