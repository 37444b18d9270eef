//! The `OwnCluster` helper itself: a restart really restarts the server, on the same port and
//! with the same data, and a stopped server refuses connections. Runs in the PostgreSQL suite
//! only, like every test that needs PostgreSQL programs on the machine.

use std::time::Duration;

use graphpay::persistence::{Db, DbConfig};

use crate::helpers::OwnCluster;

fn config(cluster: &OwnCluster) -> DbConfig {
    DbConfig {
        url: cluster.url(),
        schema: None,
        max_connections: 2,
        busy_timeout: Duration::from_secs(5),
        acquire_timeout: Duration::from_secs(10),
    }
}

async fn connect(cluster: &OwnCluster) -> Db {
    Db::connect(&config(cluster))
        .await
        .expect("connects to the test's own cluster")
}

/// When the server (its postmaster) last started, to the microsecond.
async fn started_at(db: &Db) -> String {
    let rows = db
        .query_text("SELECT pg_postmaster_start_time()::text")
        .await
        .expect("reads the start time");
    rows[0][0].clone()
}

async fn notes(db: &Db) -> Vec<Vec<String>> {
    db.query_text("SELECT note FROM kept ORDER BY note")
        .await
        .expect("reads the table")
}

/// Whether a fresh connection attempt fails; a pool that connects lazily must fail its ping.
async fn refuses_connections(cluster: &OwnCluster) -> bool {
    let config = DbConfig {
        acquire_timeout: Duration::from_secs(2),
        ..config(cluster)
    };
    match Db::connect(&config).await {
        Err(_) => true,
        Ok(db) => db.ping().await.is_err(),
    }
}

async fn restarting_keeps_the_data_and_the_port() {
    let cluster = OwnCluster::start().await;
    let db = connect(&cluster).await;
    db.execute_unprepared("CREATE TABLE kept (note text NOT NULL)")
        .await
        .expect("creates a table");
    db.execute_unprepared("INSERT INTO kept VALUES ('written before the restart')")
        .await
        .expect("inserts a row");
    let first_start = started_at(&db).await;
    db.close().await.expect("closes the pool");

    cluster.restart().await;

    let db = connect(&cluster).await;
    let second_start = started_at(&db).await;
    assert_ne!(
        first_start, second_start,
        "the server was not restarted: its postmaster start time did not change"
    );
    assert_eq!(notes(&db).await, [["written before the restart"]]);
    db.close().await.expect("closes the pool");

    cluster.stop().await;
    assert!(
        refuses_connections(&cluster).await,
        "a connection to the stopped cluster at {} succeeded",
        cluster.url()
    );

    cluster.start_again().await;

    let db = connect(&cluster).await;
    assert_ne!(
        started_at(&db).await,
        second_start,
        "start_again did not start a new server"
    );
    assert_eq!(notes(&db).await, [["written before the restart"]]);
    db.close().await.expect("closes the pool");
}

mod restarting_an_own_cluster_keeps_its_data_and_its_port {
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    #[cfg_attr(
        not(pg_tests),
        ignore = "TEST_DATABASE_URL is not set: PostgreSQL test NOT run"
    )]
    async fn postgres() {
        super::restarting_keeps_the_data_and_the_port().await
    }
}
