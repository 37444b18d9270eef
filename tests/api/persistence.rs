use graphpay::domain::status::PaymentStatus;
use graphpay::domain::time::Timestamp;
use graphpay::persistence::payment_writes::{Changes, Completion, KeyAction, KeyRef, transition};
use graphpay::persistence::{Db, idempotency_keys, payments};

use crate::helpers::{TestApp, on_both_backends};

on_both_backends! {
    async fn a_transition_from_a_stale_version_writes_nothing(app: TestApp) {
        let (alice, _) = app.account("Alice").await;
        let read = app.insert_payment(&alice, 500, Timestamp::now()).await;
        let key = KeyRef { account_id: &alice, key: "stale" };
        idempotency_keys::claim(&app.db, &alice, "stale", "confirmPayment", "fp", Timestamp::now())
            .await
            .unwrap()
            .expect("a fresh key is claimed");
        let first = transition(
            &app.db, &read, PaymentStatus::Canceled, "first", Changes::default(), KeyAction::None,
        )
        .await
        .unwrap()
        .done()
        .expect("the first writer wins");
        assert_eq!((first.status.as_str(), first.version), ("CANCELED", 1));
        // The same read again: every part of the write is refused, whatever the key action.
        let completed = std::sync::atomic::AtomicBool::new(false);
        let completion = Completion::new(key, &completed);
        for action in [KeyAction::None, KeyAction::Link(key), KeyAction::Complete(completion)] {
            let changes = Changes {
                failure_code: Some("late".into()),
                ..Changes::default()
            };
            let shown = format!("{action:?}");
            let stale = transition(&app.db, &read, PaymentStatus::Failed, "late", changes, action)
                .await
                .unwrap();
            assert!(stale.is_stale(), "{shown}");
        }
        assert!(!completed.into_inner(), "a stale write completes no key");
        let stored = payments::find_payment(&app.db, &alice, &read.id).await.unwrap().unwrap();
        assert_eq!(stored, first);
        let events = payments::events_of(&app.db, &alice, std::slice::from_ref(&read.id))
            .await
            .unwrap();
        let reasons: Vec<_> = events.iter().map(|e| e.reason.clone().unwrap_or_default()).collect();
        assert_eq!(reasons, ["created", "first"]);
        let record = idempotency_keys::find(&app.db, &alice, "stale").await.unwrap().unwrap();
        assert_eq!(record.state.as_str(), "started");
        assert_eq!((record.payment_id, record.outcome), (None, None));
    }

    async fn migrations_are_idempotent_and_create_every_table(app: TestApp) {
        Db::migrate(&app.db_config).await.expect("a second migration run is a no-op");
        for table in [
            "accounts", "api_keys", "settings", "payments", "refunds", "payment_events",
            "idempotency_keys", "processor_events", "sandbox_operations",
        ] {
            let rows = app.db.query_text(&format!("SELECT COUNT(*) AS n FROM {table}")).await;
            assert!(rows.is_ok(), "{table}: {rows:?}");
        }
    }

    async fn timestamps_sort_in_time_order_to_the_microsecond(app: TestApp) {
        let (alice, _) = app.account("Alice").await;
        let base = Timestamp::parse_rfc3339("2026-11-30T10:00:05Z").unwrap().micros();
        // Text forms of these would sort wrongly ("...05Z" after "...05.5Z"); integers do not.
        let offsets = [500_000, 0, 1, 999_999, 1_000_000, 10];
        for offset in offsets {
            app.insert_payment(&alice, offset + 1, Timestamp::from_micros(base + offset)).await;
        }
        let rows = app
            .db
            .query_text(&format!(
                "SELECT created_at FROM payments WHERE account_id = '{alice}' ORDER BY created_at, id"
            ))
            .await
            .unwrap();
        let got: Vec<i64> = rows.iter().map(|r| r[0].parse().unwrap()).collect();
        let mut want: Vec<i64> = offsets.iter().map(|o| base + o).collect();
        want.sort();
        assert_eq!(got, want);
    }

    async fn ids_tie_break_in_byte_order(app: TestApp) {
        let (alice, _) = app.account("Alice").await;
        let same = Timestamp::now();
        let mut ids = Vec::new();
        for amount in 1..=30 {
            ids.push(app.insert_payment(&alice, amount, same).await.id);
        }
        ids.sort();
        let rows = app
            .db
            .query_text(&format!("SELECT id FROM payments WHERE account_id = '{alice}' ORDER BY created_at, id"))
            .await
            .unwrap();
        let got: Vec<String> = rows.into_iter().map(|mut r| r.remove(0)).collect();
        assert_eq!(got, ids);
    }
}

#[tokio::test]
async fn sqlite_runs_in_wal_mode_with_foreign_keys() {
    let app = TestApp::spawn(crate::helpers::Backend::Sqlite).await;
    let mode = app.db.query_text("PRAGMA journal_mode").await.unwrap();
    assert_eq!(mode[0][0].to_lowercase(), "wal");
    let fk = app.db.query_text("PRAGMA foreign_keys").await.unwrap();
    assert_eq!(fk[0][0], "1");
    let busy = app.db.query_text("PRAGMA busy_timeout").await.unwrap();
    assert!(busy[0][0].parse::<i64>().unwrap() > 0);
}

/// Whether the session of `db`'s next statement uses TLS, as the server tells it.
async fn over_tls(db: &Db) -> bool {
    let rows = db
        .query_text("SELECT ssl::text FROM pg_stat_ssl WHERE pid = pg_backend_pid()")
        .await
        .unwrap();
    rows[0][0] == "true"
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(pg_tests),
    ignore = "TEST_DATABASE_URL is not set: PostgreSQL test NOT run"
)]
async fn a_database_server_on_this_host_is_reached_without_tls_unless_the_url_says_how() {
    let url = crate::helpers::postgres_url();
    assert!(
        graphpay::persistence::server_on_this_host(&url),
        "TEST_DATABASE_URL ({url}) must name a server on this host for this test"
    );
    let config = |url: String| graphpay::persistence::DbConfig {
        url,
        schema: None,
        max_connections: 1,
        busy_timeout: std::time::Duration::from_secs(5),
        acquire_timeout: std::time::Duration::from_secs(10),
    };
    let requests = Db::connect(&config(url.clone())).await.unwrap();
    assert!(!over_tls(&requests).await, "the requests' pool");
    let background = Db::connect_dedicated(&config(url.clone()), "graphpay-tls-check", 1, false)
        .await
        .unwrap();
    assert!(!over_tls(&background).await, "a pool of its own");

    // The listener for notifications has a connection of its own, made apart from the pools.
    let listener = tokio::spawn({
        let url = url.clone();
        async move {
            graphpay::persistence::listen(&url, "graphpay-tls-listen", "tls_check", || {}).await
        }
    });
    let mut listened = Vec::new();
    for _ in 0..100 {
        listened = requests
            .query_text(
                "SELECT s.ssl::text FROM pg_stat_activity a JOIN pg_stat_ssl s USING (pid) \
                 WHERE a.application_name = 'graphpay-tls-listen'",
            )
            .await
            .unwrap();
        if !listened.is_empty() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    listener.abort();
    assert_eq!(listened, [["false"]], "the listener's connection");

    // A stated sslmode is followed as given.
    let offered = requests.query_text("SHOW ssl").await.unwrap();
    if offered[0][0] == "on" {
        let asked = Db::connect(&config(format!("{url}?sslmode=require")))
            .await
            .unwrap();
        assert!(over_tls(&asked).await, "sslmode=require");
    } else {
        eprintln!("the server offers no TLS: sslmode=require NOT checked");
    }
    let prefer = Db::connect(&config(format!("{url}?sslmode=prefer")))
        .await
        .unwrap();
    assert_eq!(
        over_tls(&prefer).await,
        offered[0][0] == "on",
        "sslmode=prefer"
    );
}

/// On PostgreSQL the gateway's page reads run on connections that keep one generic plan per
/// statement; every other statement runs where PostgreSQL chooses its plans, as the server
/// is configured.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(pg_tests),
    ignore = "TEST_DATABASE_URL is not set: PostgreSQL test NOT run"
)]
async fn page_reads_keep_generic_plans_and_other_statements_are_planned_as_configured() {
    let app = TestApp::spawn(crate::helpers::Backend::Postgres).await;
    let show = "SHOW plan_cache_mode";
    let pages = app
        .server_db
        .as_page_reads()
        .query_text(show)
        .await
        .unwrap();
    assert_eq!(pages[0][0], "force_generic_plan");
    let configured = app.db.query_text(show).await.unwrap();
    let others = app.server_db.query_text(show).await.unwrap();
    assert_eq!(others, configured, "the server's own setting");
    assert_ne!(others[0][0], "force_generic_plan");
    // The two pools share the connections the gateway is configured for.
    let sizes = app.server_db.pool_sizes().unwrap();
    assert_eq!(sizes.max, app.config.database.max_connections);
    // Pages are still answered, from those connections.
    let (_, key) = app.account("Alice").await;
    let id =
        crate::helpers::created_id(&app, &key, "k", crate::helpers::input(700, "tok_visa")).await;
    let listed = app
        .query(
            &key,
            "{ payments(first: 5) { edges { node { id amount } } } }",
            serde_json::json!({}),
        )
        .await;
    assert_eq!(
        listed["payments"]["edges"][0]["node"]["id"],
        id.as_str(),
        "{listed}"
    );
}
