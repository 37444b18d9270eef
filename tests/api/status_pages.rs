//! Pages filtered by status on an account whose payments are nearly all of another status:
//! each status is walked through the account's index by status and creation time, so a page
//! of a rare status reads its own rows, not the whole account; several statuses are merged,
//! one walk each, and every walk, forward and backward, is exact.

use graphpay::domain::paging::{Order, PageSize, PaymentFilter, Position};
use graphpay::domain::status::PaymentStatus;
use graphpay::domain::time::Timestamp;
use graphpay::persistence::Db;
use graphpay::persistence::payment_pages::{
    AMOUNT_RANGE_COUNTED, PageQuery, PaymentColumns, prepared_page_sql,
};

use crate::helpers::{
    Backend, Listing, Row, TestApp, insert_rows, on_both_backends_fn, sqlite_plan, usd_payment,
    walk_both_ways,
};

/// The bulk of the account: 20,000 succeeded payments, one a millisecond from `BASE`.
const BULK: i64 = 20_000;
const BASE: i64 = 1_767_225_600_000_000;

/// An account of `BULK` succeeded payments (written in one statement, its status counts made
/// as the migration that adds them does) and 12 rare ones among them: 7 failed, 5 refunded.
async fn skewed(app: &TestApp) -> (String, String, Vec<Row>) {
    let (account, key) = app.account("Skewed").await;
    app.bulk_succeeded(&account, BULK, "1000", BASE).await;
    let rare = (0..12)
        .map(|i| {
            let status = if i % 2 == 0 && i < 10 {
                PaymentStatus::Refunded
            } else {
                PaymentStatus::Failed
            };
            // Spread through the bulk's times, two of them at the same microsecond.
            let created_at = Timestamp::from_micros(BASE + (1 + i.min(10)) * 1_700_000 + 1);
            usd_payment(&account, 500, status, created_at)
        })
        .collect();
    let rows = insert_rows(app, rare).await;
    // The table's statistics as any gateway's hold them: more than one status.
    app.db.execute_unprepared("ANALYZE payments").await.unwrap();
    (account, key, rows)
}

/// The first page of 50 of `statuses`, newest first, after `after`.
fn first_page(account: &str, statuses: &[PaymentStatus], after: Option<Position>) -> PageQuery {
    PageQuery {
        account_id: account.to_string(),
        filter: PaymentFilter {
            statuses: statuses.to_vec(),
            ..PaymentFilter::default()
        },
        order: Order::default(),
        size: PageSize::First(50),
        after,
        before: None,
        columns: PaymentColumns::LISTING,
        amount_range_size: None,
    }
}

/// A position deep in the bulk, at its 15,000th payment.
fn deep() -> Position {
    Position {
        key: BASE + 15_000 * 1000,
        id: format!("pay_{:026X}", 15_000),
    }
}

fn listing(statuses: &[PaymentStatus], ascending: bool) -> Listing {
    Listing {
        statuses: statuses.to_vec(),
        currency: None,
        created_after: None,
        created_before: None,
        amount_min: None,
        amount_max: None,
        reference: None,
        by_amount: false,
        ascending,
    }
}

async fn walks_are_exact(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let (_, key, rows) = skewed(&app).await;
    use PaymentStatus::{Failed, Pending, Refunded};
    for statuses in [
        &[Failed, Refunded][..],
        &[Failed],
        &[Refunded, Pending],
        &[Pending],
    ] {
        for ascending in [false, true] {
            for size in [1, 5] {
                walk_both_ways(&app, &key, &listing(statuses, ascending), &rows, size).await;
            }
        }
    }
    // With an amount range: one that holds the whole account (on SQLite, tested on each
    // status's rows) and one that holds only the rare payments (looked up by amount).
    for (amount_min, amount_max) in [(Some(1), None), (None, Some(600))] {
        for ascending in [false, true] {
            let listing = Listing {
                amount_min,
                amount_max,
                ..listing(&[Failed, Refunded], ascending)
            };
            walk_both_ways(&app, &key, &listing, &rows, 4).await;
        }
    }
}

on_both_backends_fn!(walks_are_exact);

/// The plans PostgreSQL keeps for pages of rare statuses on page reads' own connections
/// (generic plans, made without the values): each status's rows through the account's index
/// by status, a page of several statuses merged in order; never a walk of the account's
/// payments in creation order, which reads all 20,000 to find a rare status's few.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[cfg_attr(
    not(pg_tests),
    ignore = "TEST_DATABASE_URL is not set: PostgreSQL test NOT run"
)]
async fn pages_of_rare_statuses_read_each_status_through_its_index_postgres() {
    use PaymentStatus::{Failed, Pending, Refunded, Succeeded};
    let app = TestApp::spawn(Backend::Postgres).await;
    let (account, _, _) = skewed(&app).await;
    // One connection for page reads, so that a statement prepared on it is there to run.
    let db = app.two_connections().await;
    let reads = db.as_page_reads();
    let query = |statuses: &[PaymentStatus], after| first_page(&account, statuses, after);
    let deep = deep();
    let several = [
        &[Failed, Refunded][..],
        &[Refunded, Pending, Failed],
        &[Succeeded, Failed],
    ];
    for statuses in several {
        for after in [None, Some(deep.clone())] {
            for counted in [false, true] {
                let plan = generic_plan(&reads, &query(statuses, after.clone()), counted).await;
                assert!(plan.contains("Merge Append"), "{plan}");
                assert_eq!(
                    plan.matches("Index Scan Backward using idx_payments_account_status_created")
                        .count(),
                    statuses.len(),
                    "one walk per status: {plan}"
                );
                assert!(!plan.contains("idx_payments_account_created"), "{plan}");
            }
        }
    }
    for status in [Failed, Pending, Succeeded] {
        let plan = generic_plan(&reads, &query(&[status], Some(deep.clone())), true).await;
        assert!(
            plan.contains("Index Scan Backward using idx_payments_account_status_created"),
            "{plan}"
        );
        assert!(!plan.contains("Sort"), "{plan}");
    }
}

/// SQLite's plans for the same pages: each status walked through the account's index by
/// status, several merged (each walk limited to the page's size), never the account's
/// payments in creation order, which for statuses it holds none of reads all of them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_walks_each_status_through_its_index() {
    use PaymentStatus::{Canceled, Failed, Pending, Refunded, Succeeded};
    let app = TestApp::spawn(Backend::Sqlite).await;
    let (account, _, _) = skewed(&app).await;
    let deep = deep();
    for statuses in [
        &[Failed][..],
        &[Failed, Refunded],
        &[Refunded, Canceled],
        &[Refunded, Pending, Failed],
        &[Succeeded, Failed],
    ] {
        for after in [None, Some(deep.clone())] {
            let plan = sqlite_plan(&app.db, &first_page(&account, statuses, after)).await;
            let walks = plan
                .matches("INDEX idx_payments_account_status_created ")
                .count();
            assert_eq!(walks, statuses.len(), "{plan}");
            assert!(!plan.contains("idx_payments_account_created"), "{plan}");
        }
    }
    // With an amount range that holds most of the account (counted to the cap, or not
    // counted): each status walked as above, the amount tested on its rows. One counted
    // sparse is read through the amount's index instead, as one.
    let statuses = [Failed, Refunded];
    for counted in [None, Some(AMOUNT_RANGE_COUNTED)] {
        let query = PageQuery {
            filter: PaymentFilter {
                amount_min: Some(1),
                ..first_page(&account, &statuses, None).filter
            },
            amount_range_size: counted,
            ..first_page(&account, &statuses, None)
        };
        let plan = sqlite_plan(&app.db, &query).await;
        let walks = plan
            .matches("INDEX idx_payments_account_status_created ")
            .count();
        assert_eq!(walks, statuses.len(), "{plan}");
        assert!(!plan.contains("idx_payments_account_created"), "{plan}");
    }
    let sparse = PageQuery {
        filter: PaymentFilter {
            amount_max: Some(600),
            ..first_page(&account, &statuses, None).filter
        },
        amount_range_size: Some(12),
        ..first_page(&account, &statuses, None)
    };
    let plan = sqlite_plan(&app.db, &sparse).await;
    assert!(
        plan.contains("INDEX idx_payments_account_amount "),
        "{plan}"
    );
    assert!(!plan.contains("MERGE"), "{plan}");
}

/// The generic plan of `query`'s page statement, prepared on `db` (one connection).
async fn generic_plan(db: &Db, query: &PageQuery, counted: bool) -> String {
    let (sql, values) = prepared_page_sql(query, counted);
    db.execute_unprepared(&format!("PREPARE page AS {sql}"))
        .await
        .unwrap();
    let plan = explain(db, &format!("EXECUTE page({})", values.join(", "))).await;
    db.execute_unprepared("DEALLOCATE page").await.unwrap();
    format!("{sql}\n{plan}")
}

async fn explain(db: &Db, sql: &str) -> String {
    db.query_text(&format!("EXPLAIN {sql}"))
        .await
        .unwrap()
        .into_iter()
        .map(|row| row.join(" "))
        .collect::<Vec<_>>()
        .join("\n")
}
