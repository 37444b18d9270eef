//! Pages whose best walk depends on their filter's values (an amount, a reference) are
//! planned by PostgreSQL for those values, each time: one amount in 20,000 is
//! found through the amount's index, where the generic plan that page reads keep walks the
//! whole account in creation order to find it.

use std::time::{Duration, Instant};

use graphpay::domain::currency::Currency;
use graphpay::domain::paging::{Order, PageSize, PaymentFilter, SortField};
use graphpay::domain::status::PaymentStatus;
use graphpay::domain::time::Timestamp;
use graphpay::persistence::payment_pages::{
    PageQuery, PaymentColumns, planned_for_values, prepared_page_sql,
};
use graphpay::persistence::{Db, DbConfig};
use serde_json::json;

use crate::helpers::{Backend, TestApp};

const BULK: i64 = 20_000;
const BASE: i64 = 1_767_225_600_000_000;
/// The amount only the rare payments have.
const RARE: i64 = 777;

/// An account of `BULK` payments of 1,000 to 5,999 and 6 of [`RARE`] among them, with the
/// table's statistics made.
async fn account_with_a_rare_amount(app: &TestApp) -> (String, String) {
    let (account, key) = app.account("Amounts").await;
    app.bulk_succeeded_postgres(&account, BULK, "1000 + g % 5000", BASE)
        .await;
    for i in 0..6 {
        let created_at = Timestamp::from_micros(BASE + (1 + i) * 2_000_000 + 1);
        app.insert_payment(&account, RARE, created_at).await;
    }
    app.db.execute_unprepared("ANALYZE payments").await.unwrap();
    (account, key)
}

/// Scans of the test's own `index` that PostgreSQL has counted so far.
async fn scans_of(db: &Db, index: &str) -> i64 {
    let rows = db
        .query_text(&format!(
            "SELECT COALESCE(SUM(idx_scan), 0)::text FROM pg_stat_user_indexes \
             WHERE schemaname = current_schema() AND indexrelname = '{index}'"
        ))
        .await
        .unwrap();
    rows[0][0].parse().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[cfg_attr(
    not(pg_tests),
    ignore = "TEST_DATABASE_URL is not set: PostgreSQL test NOT run"
)]
async fn a_page_of_a_rare_amount_is_found_through_the_amount_index_postgres() {
    let app = TestApp::spawn(Backend::Postgres).await;
    let (account, key) = account_with_a_rare_amount(&app).await;

    // The premise: the generic plan page reads keep, made without the values, walks the
    // account in creation order and tests every payment's amount.
    let db = Db::connect(&DbConfig {
        max_connections: 2,
        ..app.db_config.clone()
    })
    .await
    .unwrap();
    let query = PageQuery {
        account_id: account.clone(),
        filter: PaymentFilter {
            amount_min: Some(RARE),
            amount_max: Some(RARE),
            ..PaymentFilter::default()
        },
        order: Order::default(),
        size: PageSize::First(5),
        after: None,
        before: None,
        columns: PaymentColumns::LISTING,
    };
    let (sql, values) = prepared_page_sql(&query, false);
    let reads = db.as_page_reads();
    reads
        .execute_unprepared(&format!("PREPARE page AS {sql}"))
        .await
        .unwrap();
    let generic = reads
        .query_text(&format!("EXPLAIN EXECUTE page({})", values.join(", ")))
        .await
        .unwrap()
        .concat()
        .join("\n");
    assert!(
        generic.contains("idx_payments_account_created")
            && !generic.contains("idx_payments_account_amount"),
        "{generic}"
    );

    // The gateway's page: planned for its amount, through the amount's index. (PostgreSQL
    // counts an index's scans when the connection that made them next idles.)
    let before = scans_of(&db, "idx_payments_account_amount").await;
    let data = app
        .query(
            &key,
            "query($n: Int!) { payments(first: 5, filter: {amountMin: $n, amountMax: $n}) { \
             edges { node { amount createdAt } } pageInfo { hasNextPage } } }",
            json!({"n": RARE}),
        )
        .await;
    let edges = data["payments"]["edges"].as_array().unwrap();
    assert_eq!(edges.len(), 5, "{data}");
    assert!(edges.iter().all(|e| e["node"]["amount"] == RARE), "{data}");
    assert_eq!(data["payments"]["pageInfo"]["hasNextPage"], true, "{data}");
    let waiting = Instant::now();
    while scans_of(&db, "idx_payments_account_amount").await == before {
        assert!(
            waiting.elapsed() < Duration::from_secs(30),
            "the page was not read through the amount's index"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    db.close().await.unwrap();
}

/// Which pages are planned for their values: those whose walk depends on them.
#[test]
fn pages_filtered_by_value_or_ordered_by_amount_are_planned_for_their_values() {
    let filter = |f: fn(&mut PaymentFilter)| {
        let mut filter = PaymentFilter::default();
        f(&mut filter);
        filter
    };
    let by_value = [
        filter(|f| f.amount_min = Some(1)),
        filter(|f| f.amount_max = Some(1)),
        filter(|f| f.reference = Some("order-1".into())),
    ];
    for f in &by_value {
        for field in [SortField::CreatedAt, SortField::Amount] {
            assert!(planned_for_values(f, field), "{f:?} by {field:?}");
        }
    }
    // A currency, which no index holds, is walked the same way whatever it is.
    let currency = filter(|f| f.currency = Some(Currency::parse("JPY").unwrap()));
    for field in [SortField::CreatedAt, SortField::Amount] {
        assert!(!planned_for_values(&currency, field), "by {field:?}");
    }
    let walked_in_creation_order = [
        PaymentFilter::default(),
        filter(|f| f.statuses = vec![PaymentStatus::Failed]),
        filter(|f| f.created_after = Some(Timestamp::from_micros(BASE))),
        filter(|f| f.created_before = Some(Timestamp::from_micros(BASE))),
    ];
    for f in &walked_in_creation_order {
        assert!(!planned_for_values(f, SortField::CreatedAt), "{f:?}");
    }
    // In the order of amounts, any filter but none is planned for its values.
    assert!(!planned_for_values(
        &PaymentFilter::default(),
        SortField::Amount
    ));
    for f in &walked_in_creation_order[1..] {
        assert!(planned_for_values(f, SortField::Amount), "{f:?}");
    }
}
