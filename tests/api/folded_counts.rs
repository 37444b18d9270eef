//! The status counts folded into one row per status (`persistence::payment_counts::fold`):
//! every total stays exact, before, after and while payments change, folded by the gateway's
//! timer or by several folds at once.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use graphpay::persistence::Db;
use graphpay::persistence::payment_counts::fold;

use crate::helpers::{Backend, TestApp, on_both_backends_fn};
use crate::total_count::{assert_totals_match_rows, change_concurrently, counted};

/// (account, status, rows, rows holding 0) of every status counted.
async fn layout(app: &TestApp) -> Vec<(String, String, i64, i64)> {
    let rows = app
        .db
        .query_text(
            "SELECT account_id, status, COUNT(*) AS n, SUM(CASE WHEN count = 0 THEN 1 ELSE 0 END) AS zeros \
             FROM payment_counts GROUP BY account_id, status ORDER BY account_id, status",
        )
        .await
        .unwrap();
    rows.into_iter()
        .map(|r| {
            (
                r[0].clone(),
                r[1].clone(),
                r[2].parse().unwrap(),
                r[3].parse().unwrap(),
            )
        })
        .collect()
}

/// Whether every status is counted in one row, on PostgreSQL none of them 0 (SQLite keeps a
/// status whose count went back to 0, in its one row).
async fn one_row_per_status(app: &TestApp) -> bool {
    let zeros_kept = app.db.backend() == graphpay::persistence::Backend::Sqlite;
    layout(app)
        .await
        .iter()
        .all(|(_, _, rows, zeros)| *rows == 1 && (zeros_kept || *zeros == 0))
}

/// Counts spread as many writing connections spread them: a status's count over several
/// buckets, one of them negative, and a status whose buckets sum to 0.
async fn spread(app: &TestApp, account: &str) {
    app.db
        .execute_unprepared(&format!(
            "INSERT INTO payment_counts AS c (account_id, status, bucket, count) VALUES \
             ('{account}', 'SUCCEEDED', 7, 4), ('{account}', 'SUCCEEDED', 11, -4), \
             ('{account}', 'PROCESSING', 3, 2), ('{account}', 'PROCESSING', 5, -2), \
             ('{account}', 'FAILED', 13, 0) \
             ON CONFLICT (account_id, status, bucket) DO UPDATE SET count = c.count + EXCLUDED.count"
        ))
        .await
        .unwrap();
}

/// Folds until nothing is left to fold; returns how many statuses were folded.
async fn fold_all(db: &Db) -> u64 {
    let mut folded = 0;
    for _ in 0..100 {
        match fold(db, 1_000).await.unwrap() {
            0 => return folded,
            n => folded += n,
        }
    }
    panic!("the counts were still spread after 100 folds");
}

async fn folding_keeps_every_total_and_leaves_one_row_per_status(backend: Backend) {
    let app = TestApp::quiet(backend).await;
    let (account, key) = app.account("Acme").await;
    let (other_account, other_key) = app.account("Other").await;
    change_concurrently(&app, &key, &other_key).await;
    let before = layout(&app).await;
    if backend == Backend::Sqlite {
        assert_eq!(fold_all(&app.db).await, 0, "SQLite counts in one bucket");
        assert_eq!(layout(&app).await, before);
        assert!(one_row_per_status(&app).await);
        assert_totals_match_rows(&app, &key, &account).await;
        return;
    }
    spread(&app, &account).await;
    let total = counted(&app, &account, &[]).await;
    assert!(!one_row_per_status(&app).await);
    assert!(
        fold_all(&app.db).await >= 3,
        "at least the statuses spread here"
    );
    assert!(one_row_per_status(&app).await, "{:?}", layout(&app).await);
    let held: Vec<String> = layout(&app)
        .await
        .into_iter()
        .filter(|(a, _, _, _)| *a == account)
        .map(|(_, status, _, _)| status)
        .collect();
    assert!(
        !held.iter().any(|s| s == "PROCESSING"),
        "a status summing to 0 keeps no row: {held:?}"
    );
    assert_totals_match_rows(&app, &key, &account).await;
    assert_totals_match_rows(&app, &other_key, &other_account).await;
    assert_eq!(counted(&app, &account, &[]).await, total);
    assert_eq!(
        fold(&app.db, 1_000).await.unwrap(),
        0,
        "nothing left to fold"
    );
}

/// Two folds at once, as two gateway instances run them, over and over while payments are
/// created, declined, refunded and canceled concurrently: no request fails or waits on a
/// fold, and every total is exact afterwards.
async fn folds_while_payments_change_lose_no_count(backend: Backend) {
    let app = TestApp::quiet(backend).await;
    let (account, key) = app.account("Acme").await;
    let (other_account, other_key) = app.account("Other").await;
    let second = Db::connect(&app.db_config).await.unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let folded = Arc::new(AtomicU64::new(0));
    let folders: Vec<_> = [app.db.clone(), second]
        .into_iter()
        .map(|db| {
            let (stop, folded) = (stop.clone(), folded.clone());
            tokio::spawn(async move {
                while !stop.load(Ordering::Relaxed) {
                    folded.fetch_add(fold(&db, 1_000).await.unwrap(), Ordering::Relaxed);
                    tokio::time::sleep(Duration::from_millis(2)).await;
                }
            })
        })
        .collect();
    if backend == Backend::Postgres {
        spread(&app, &account).await;
    }
    change_concurrently(&app, &key, &other_key).await;
    stop.store(true, Ordering::Relaxed);
    for folder in folders {
        folder.await.unwrap();
    }
    assert_totals_match_rows(&app, &key, &account).await;
    assert_totals_match_rows(&app, &other_key, &other_account).await;
    fold_all(&app.db).await;
    assert!(one_row_per_status(&app).await, "{:?}", layout(&app).await);
    assert_totals_match_rows(&app, &key, &account).await;
    match backend {
        Backend::Postgres => assert!(folded.load(Ordering::Relaxed) > 0, "the folds ran"),
        Backend::Sqlite => assert_eq!(folded.load(Ordering::Relaxed), 0),
    }
}

/// The gateway folds the counts on its housekeeping timer.
async fn the_gateway_folds_the_counts_on_its_timer(backend: Backend) {
    let app = TestApp::spawn_with(backend, |c| {
        c.sandbox_webhook_delay = Duration::from_secs(3600);
        c.sweep_interval = Duration::from_millis(200);
    })
    .await;
    let (account, key) = app.account("Acme").await;
    let (_, other_key) = app.account("Other").await;
    change_concurrently(&app, &key, &other_key).await;
    if backend == Backend::Postgres {
        spread(&app, &account).await;
    }
    let mut folded = false;
    for _ in 0..100 {
        if one_row_per_status(&app).await {
            folded = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(folded, "{:?}", layout(&app).await);
    assert_totals_match_rows(&app, &key, &account).await;
}

/// Writes never count in bucket 0 (it holds what folds made): a status that goes back to 0
/// then always keeps a row beyond it, which the next fold finds and deletes. Payments are
/// written through 64 connections of their own (64 server processes, whose numbers pick the
/// bucket), each made and then moved back out of its status, with no fold in between.
async fn writes_never_count_in_the_folded_row(backend: Backend) {
    let app = TestApp::quiet(backend).await;
    let (account, _) = app.account("Acme").await;
    let config = graphpay::persistence::DbConfig {
        max_connections: 1,
        ..app.db_config.clone()
    };
    for n in 0..64 {
        let db = Db::connect(&config).await.unwrap();
        let id = format!("pay_{n:026}");
        db.execute_unprepared(&format!(
            "INSERT INTO payments (id, account_id, amount, currency, status, amount_refunded, \
             source, processor_key, version, created_at, updated_at) VALUES ('{id}', '{account}', \
             100, 'USD', 'PENDING', 0, 'tok_visa', '{id}', 1, {n}, {n})"
        ))
        .await
        .unwrap();
        db.execute_unprepared(&format!(
            "UPDATE payments SET status = 'CANCELED' WHERE id = '{id}'"
        ))
        .await
        .unwrap();
    }
    let sql = |sql: &'static str| {
        let db = app.db.clone();
        async move { db.query_text(sql).await.unwrap()[0][0].clone() }
    };
    let canceled =
        "SELECT CAST(SUM(count) AS BIGINT) FROM payment_counts WHERE status = 'CANCELED'";
    if backend == Backend::Postgres {
        let in_bucket_0 = sql("SELECT COUNT(*) FROM payment_counts WHERE bucket = 0").await;
        assert_eq!(in_bucket_0, "0", "{:?}", layout(&app).await);
        fold_all(&app.db).await;
        let layout = layout(&app).await;
        assert_eq!(
            layout.len(),
            1,
            "PENDING went back to 0 and keeps no row: {layout:?}"
        );
        assert_eq!(
            (layout[0].1.as_str(), layout[0].2, layout[0].3),
            ("CANCELED", 1, 0)
        );
    }
    assert_eq!(sql(canceled).await, "64");
    assert_eq!(counted(&app, &account, &["CANCELED"]).await, 64);
}

on_both_backends_fn!(
    writes_never_count_in_the_folded_row,
    folding_keeps_every_total_and_leaves_one_row_per_status,
    folds_while_payments_change_lose_no_count,
    the_gateway_folds_the_counts_on_its_timer,
);
