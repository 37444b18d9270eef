//! `totalCount` from the status counts: exact after concurrent creates, declines, refunds and
//! cancellations, for no filter and for status filters; other filters count rows.

use futures_util::future::join_all;
use graphpay::domain::time::Timestamp;
use serde_json::json;

use crate::helpers::{
    Backend, CANCEL, TestApp, create, created_id, input, on_both_backends_fn, refund,
};

const STATUSES: [&str; 8] = [
    "PENDING",
    "PROCESSING",
    "SUCCEEDED",
    "FAILED",
    "CANCELED",
    "REFUNDING",
    "PARTIALLY_REFUNDED",
    "REFUNDED",
];

/// Rows counted the slow way, for comparison.
pub(crate) async fn counted(app: &TestApp, account: &str, statuses: &[&str]) -> i64 {
    let filter = if statuses.is_empty() {
        String::new()
    } else {
        let list: Vec<String> = statuses.iter().map(|s| format!("'{s}'")).collect();
        format!(" AND status IN ({})", list.join(", "))
    };
    app.db
        .query_text(&format!(
            "SELECT COUNT(*) FROM payments WHERE account_id = '{account}'{filter}"
        ))
        .await
        .unwrap()[0][0]
        .parse()
        .unwrap()
}

async fn total(app: &TestApp, key: &str, statuses: Option<&[&str]>) -> i64 {
    let data = app
        .query(
            key,
            "query T($filter: PaymentFilter) { payments(first: 1, filter: $filter) { totalCount } }",
            json!({"filter": statuses.map(|s| json!({"status": s}))}),
        )
        .await;
    data["payments"]["totalCount"].as_i64().unwrap()
}

pub(crate) async fn assert_totals_match_rows(app: &TestApp, key: &str, account: &str) {
    assert_eq!(
        total(app, key, None).await,
        counted(app, account, &[]).await
    );
    for status in STATUSES {
        assert_eq!(
            total(app, key, Some(&[status])).await,
            counted(app, account, &[status]).await,
            "{status}"
        );
    }
    let some = ["SUCCEEDED", "REFUNDED", "PENDING"];
    assert_eq!(
        total(app, key, Some(&some)).await,
        counted(app, account, &some).await
    );
}

/// Creates of every outcome in two accounts, all at once, then full and partial refunds (some
/// twice at once, some through the other account's key) and cancellations, all at once.
pub(crate) async fn change_concurrently(app: &TestApp, key: &str, other_key: &str) {
    let sources = [
        "tok_visa",
        "tok_chargeDeclined",
        "tok_insufficientFunds",
        "tok_mastercard",
    ];
    let creates = (0..60).map(|i| async move {
        let mut body = input(1_000, sources[i % sources.len()]);
        if i % 5 == 0 {
            body["confirm"] = json!(false);
        }
        let key = if i % 6 == 0 { other_key } else { key };
        create(app, key, &format!("c{i}"), body).await["payment"].clone()
    });
    let created = join_all(creates).await;
    let with_status = |status: &str| -> Vec<String> {
        created
            .iter()
            .filter(|p| p["status"] == status)
            .map(|p| p["id"].as_str().unwrap().to_string())
            .collect()
    };
    let (succeeded, pending) = (with_status("SUCCEEDED"), with_status("PENDING"));
    assert!(succeeded.len() > 10 && pending.len() > 5, "{created:?}");
    let refunds = succeeded.iter().enumerate().flat_map(|(i, id)| {
        let amount = if i % 2 == 0 { None } else { Some(300) };
        (0..2).map(move |n| (i, id.clone(), amount, n))
    });
    let refunds = refunds.map(|(i, id, amount, n)| async move {
        refund(app, key, &format!("r{i}-{n}"), &id, amount).await;
        refund(app, other_key, &format!("r{i}-{n}"), &id, amount).await;
    });
    let cancels = pending.iter().map(|id| async move {
        for key in [key, other_key] {
            app.post(Some(key), CANCEL, json!({"id": id})).await;
        }
    });
    futures_util::join!(join_all(refunds), join_all(cancels));
}

async fn totals_stay_exact_under_concurrent_changes(backend: Backend) {
    let app = TestApp::quiet(backend).await;
    let (account, key) = app.account("Acme").await;
    let (other_account, other_key) = app.account("Other").await;
    change_concurrently(&app, &key, &other_key).await;
    assert_totals_match_rows(&app, &key, &account).await;
    assert_totals_match_rows(&app, &other_key, &other_account).await;
    assert!(
        counted(&app, &account, &["REFUNDED"]).await > 0
            && counted(&app, &account, &["PARTIALLY_REFUNDED"]).await > 0
            && counted(&app, &account, &["CANCELED"]).await > 0
            && counted(&app, &account, &["FAILED"]).await > 0,
        "the run reached every kind of change"
    );
}

/// The unfiltered and status-filtered totals come from the counts (a count changed behind the
/// gateway's back shows), while other filters count the rows they select.
async fn status_totals_are_read_from_the_counts_and_other_filters_count_rows(backend: Backend) {
    let app = TestApp::quiet(backend).await;
    let (account, key) = app.account("Acme").await;
    for i in 0..3 {
        created_id(&app, &key, &format!("p{i}"), input(500, "tok_visa")).await;
    }
    app.db
        .execute_unprepared(&format!(
            "INSERT INTO payment_counts (account_id, status, bucket, count) \
             VALUES ('{account}', 'SUCCEEDED', 99, 1000)"
        ))
        .await
        .unwrap();
    assert_eq!(total(&app, &key, None).await, 1003);
    assert_eq!(total(&app, &key, Some(&["SUCCEEDED"])).await, 1003);
    assert_eq!(total(&app, &key, Some(&["FAILED"])).await, 0);
    let data = app
        .query(
            &key,
            "{ payments(first: 1, filter: {status: [SUCCEEDED], currency: \"USD\"}) { totalCount } }",
            json!({}),
        )
        .await;
    assert_eq!(
        data["payments"]["totalCount"], 3,
        "a currency filter counts rows"
    );
}

/// Payments that existed before the counts did are counted by the migration that adds them.
async fn the_migration_counts_the_payments_already_there(backend: Backend) {
    let app = TestApp::quiet(backend).await;
    let (account, key) = app.account("Acme").await;
    // Back to before the counts (and the migrations after them: the card lifecycle, merchant
    // data and the event log, key expiry, webhook secret rolls, signing keys, restricted keys
    // and submit tokens, the index of spread counts, writes kept out of the folded row, the
    // indexes by status and by currency, the currency's statistics, the index by both), with
    // payments written as the gateway of that time wrote them.
    app.db.undo_migrations(12).await.unwrap();
    let now = Timestamp::now().micros();
    for i in 0..5 {
        let status = if i < 4 { "SUCCEEDED" } else { "FAILED" };
        app.db
            .query_text(&format!(
                "INSERT INTO payments (id, account_id, amount, currency, status, amount_refunded, \
                 source, processor_key, version, created_at, updated_at) VALUES \
                 ('pay_0000000000000000000000000{i}', '{account}', 500, 'USD', '{status}', 0, \
                 'tok_visa', 'pay_0000000000000000000000000{i}', 1, {now}, {now})"
            ))
            .await
            .unwrap();
    }
    graphpay::persistence::Db::migrate(&app.db_config)
        .await
        .unwrap();
    assert_totals_match_rows(&app, &key, &account).await;
    assert_eq!(total(&app, &key, None).await, 5);
    // A payment charged before capture methods existed was captured in full.
    let before = app
        .query(&key, "{ payment(id: \"pay_00000000000000000000000000\") { captureMethod amountCaptured amountRefundable } }", json!({}))
        .await;
    assert_eq!(
        before["payment"],
        json!({"captureMethod": "AUTOMATIC", "amountCaptured": 500, "amountRefundable": 500})
    );
    created_id(&app, &key, "after", input(500, "tok_visa")).await;
    assert_eq!(total(&app, &key, Some(&["SUCCEEDED"])).await, 5);
}

/// Where the status counts answer it, `totalCount` is read by the page's own statement: a
/// page with it costs the statements of a page without it. An empty page asks the counts
/// on their own.
async fn a_total_read_with_its_page_costs_no_statement_of_its_own(backend: Backend) {
    let app = TestApp::spawn_with(backend, |c| {
        c.live_key_ttl = std::time::Duration::from_secs(3600)
    })
    .await;
    let (_, key) = app.account("Acme").await;
    for i in 0..3 {
        created_id(&app, &key, &format!("p{i}"), input(500, "tok_visa")).await;
    }
    let statements = |query: &'static str| {
        let (app, key) = (&app, &key);
        async move {
            app.query(key, query, json!({})).await;
            app.statements_settled().await;
            let before = app.server_db.statements_run();
            let data = app.query(key, query, json!({})).await;
            (app.server_db.statements_run() - before, data)
        }
    };
    let (without, _) = statements("{ payments(first: 2) { nodes { id } } }").await;
    let (with, data) = statements("{ payments(first: 2) { totalCount nodes { id } } }").await;
    assert_eq!(with, without, "no statement of its own");
    assert_eq!(data["payments"]["totalCount"], 3);
    let (filtered, data) = statements(
        "{ payments(first: 2, filter: {status: [SUCCEEDED]}) { totalCount nodes { id } } }",
    )
    .await;
    assert_eq!(filtered, without);
    assert_eq!(data["payments"]["totalCount"], 3);
    let (empty, data) = statements(
        "{ payments(first: 2, filter: {status: [FAILED]}) { totalCount nodes { id } } }",
    )
    .await;
    assert_eq!(empty, without + 1, "an empty page asks the counts");
    assert_eq!(data["payments"]["totalCount"], 0);
}

on_both_backends_fn!(
    a_total_read_with_its_page_costs_no_statement_of_its_own,
    totals_stay_exact_under_concurrent_changes,
    status_totals_are_read_from_the_counts_and_other_filters_count_rows,
    the_migration_counts_the_payments_already_there,
);
