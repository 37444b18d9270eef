//! Pages filtered by currency on an account whose payments are nearly all in another one:
//! a currency is walked through the account's index by currency and creation time, and a
//! currency with statuses through the index by status and currency, one walk per status, so a
//! page of a rare currency (or one the account never took), or of a rare status in the common
//! currency, reads its own rows, not the whole account. Every walk, forward and backward, is
//! exact.

use std::time::{Duration, Instant};

use graphpay::domain::currency::Currency;
use graphpay::domain::paging::{Direction, Order, PageSize, PaymentFilter, Position, SortField};
use graphpay::domain::status::PaymentStatus;
use graphpay::domain::time::Timestamp;
use graphpay::persistence::Db;
use graphpay::persistence::payment_pages::{PageQuery, PaymentColumns, prepared_page_sql};
use serde_json::json;

use crate::helpers::{
    Backend, Listing, Row, TestApp, insert_rows, on_both_backends_fn, scans_of, sqlite_plan,
    usd_payment, walk_both_ways,
};

/// The bulk of the account: 20,000 succeeded payments in USD, one a millisecond from `BASE`.
const BULK: i64 = 20_000;
const BASE: i64 = 1_767_225_600_000_000;
const INDEX: &str = "idx_payments_account_currency_created";
/// The index by status and currency (migration 18).
const BOTH: &str = "idx_payments_account_status_currency_created";

/// An account of `BULK` payments in USD and 8 in EUR among them (3 failed, 5 succeeded, of
/// several amounts), the table's statistics made before the EUR ones; those as rows.
async fn account_with_a_rare_currency(app: &TestApp) -> (String, String, Vec<Row>) {
    let (account, key) = app.account("Currencies").await;
    app.bulk_succeeded(&account, BULK, "1000 + g % 5000", BASE)
        .await;
    // Statistics made while the account held USD only, as for an account that takes one
    // currency: they know of no other.
    if app.backend() == Backend::Postgres {
        app.db.execute_unprepared("ANALYZE payments").await.unwrap();
    }
    let eur = Currency::parse("EUR").unwrap();
    let rare = (0..8)
        .map(|i| {
            let status = if i % 3 == 0 {
                PaymentStatus::Failed
            } else {
                PaymentStatus::Succeeded
            };
            // Spread through the bulk's times, two of them at the same microsecond.
            let created_at = Timestamp::from_micros(BASE + (1 + i.min(6)) * 2_500_000 + 1);
            let mut payment = usd_payment(&account, 300 + (i % 4) * 100, status, created_at);
            payment.currency = eur;
            payment
        })
        .collect();
    let rows = insert_rows(app, rare).await;
    (account, key, rows)
}

fn listing(
    currency: &str,
    statuses: &[PaymentStatus],
    by_amount: bool,
    ascending: bool,
) -> Listing {
    Listing {
        statuses: statuses.to_vec(),
        currency: Some(currency.to_string()),
        created_after: None,
        created_before: None,
        amount_min: None,
        amount_max: None,
        reference: None,
        by_amount,
        ascending,
    }
}

/// Pages of EUR (rare) and GBP (never taken): alone, with one status and with two, newest
/// and oldest first and by amount, a page of 1 and of 5 at a time, forward and backward.
async fn walks_are_exact(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let (_, key, rows) = account_with_a_rare_currency(&app).await;
    use PaymentStatus::{Failed, Succeeded};
    for (currency, statuses) in [
        ("EUR", &[][..]),
        ("EUR", &[Failed]),
        ("EUR", &[Failed, Succeeded]),
        ("GBP", &[]),
        ("GBP", &[Succeeded]),
    ] {
        for by_amount in [false, true] {
            for ascending in [false, true] {
                for size in [1, 5] {
                    let listing = listing(currency, statuses, by_amount, ascending);
                    walk_both_ways(&app, &key, &listing, &rows, size).await;
                }
            }
        }
    }
}

on_both_backends_fn!(walks_are_exact);

fn query(account: &str, currency: &str, statuses: &[PaymentStatus]) -> PageQuery {
    PageQuery {
        account_id: account.to_string(),
        filter: PaymentFilter {
            currency: Currency::parse(currency).ok(),
            statuses: statuses.to_vec(),
            ..PaymentFilter::default()
        },
        order: Order::default(),
        size: PageSize::First(50),
        after: None,
        before: None,
        columns: PaymentColumns::LISTING,
        amount_range_size: None,
    }
}

/// SQLite's plans: a page of a currency walks the currency's index in creation order (no
/// sort), never the account's payments; a page of a currency and statuses walks the index by
/// status and currency, once for each status (several merged, each walk limited to the
/// page's size), whether the currency or the status is the rare one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_walks_a_currency_through_its_index() {
    use PaymentStatus::{Failed, Succeeded};
    let app = TestApp::spawn(Backend::Sqlite).await;
    let (account, _, _) = account_with_a_rare_currency(&app).await;
    let deep = Position {
        key: BASE + 15_000 * 1000,
        id: format!("pay_{:026X}", 15_000),
    };
    for (currency, statuses, index) in [
        ("EUR", &[][..], INDEX),
        ("EUR", &[Failed], BOTH),
        ("EUR", &[Succeeded], BOTH),
        ("USD", &[Failed], BOTH),
        ("EUR", &[Failed, Succeeded], BOTH),
        ("USD", &[Failed, Succeeded], BOTH),
    ] {
        for after in [None, Some(deep.clone())] {
            let query = PageQuery {
                after,
                ..query(&account, currency, statuses)
            };
            let plan = sqlite_plan(&app.db, &query).await;
            let walks = plan.matches(&format!("INDEX {index} ")).count();
            assert_eq!(walks, statuses.len().max(1), "{plan}");
            assert!(!plan.contains("idx_payments_account_created"), "{plan}");
            // Only the merge of several walks sorts, each walk's page.
            assert_eq!(plan.contains("TEMP B-TREE"), statuses.len() > 1, "{plan}");
        }
    }
}

/// PostgreSQL's plans, with the table's statistics made when the account held USD only (as
/// for an account that takes one currency). The generic plan page reads keep walks the
/// currency's index, whatever the currency (the statistics hold 100 distinct currencies,
/// migration 17; left to count them, they hold one, and the plan walked the account in
/// creation order testing each payment's currency). A page of a currency and statuses walks
/// the index by status and currency, one walk per status merged in order, by that plan too. A
/// page of a currency in the order of amounts is planned for its values: a rare currency
/// through its index. Never a walk of the account for a rare one.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[cfg_attr(
    not(pg_tests),
    ignore = "TEST_DATABASE_URL is not set: PostgreSQL test NOT run"
)]
async fn a_rare_currency_is_read_through_its_index_postgres() {
    use PaymentStatus::{Failed, Succeeded};
    let app = TestApp::spawn(Backend::Postgres).await;
    let (account, key, _) = account_with_a_rare_currency(&app).await;
    let db = app.two_connections().await;
    let deep = Position {
        key: BASE + 15_000 * 1000,
        id: format!("pay_{:026X}", 15_000),
    };

    // The generic plan page reads keep: the currency's index, in order.
    let reads = db.as_page_reads();
    for currency in ["EUR", "GBP", "USD"] {
        for after in [None, Some(deep.clone())] {
            for counted in [false, true] {
                let query = PageQuery {
                    after: after.clone(),
                    ..query(&account, currency, &[])
                };
                let (sql, plan) = prepared_plan(&reads, &query, counted).await;
                assert!(
                    plan.contains(&format!("Index Scan Backward using {INDEX}"))
                        && !plan.contains("idx_payments_account_created")
                        && !plan.contains("Sort"),
                    "{sql}\n{plan}"
                );
            }
        }
    }

    // A currency and statuses, by the same plan: one walk of the index by both per status.
    for (currency, statuses) in [
        ("EUR", &[Failed, Succeeded][..]),
        ("GBP", &[Succeeded]),
        ("USD", &[Failed]),
        ("USD", &[Failed, Succeeded]),
    ] {
        for after in [None, Some(deep.clone())] {
            for counted in [false, true] {
                let query = PageQuery {
                    after: after.clone(),
                    ..query(&account, currency, statuses)
                };
                let (sql, plan) = prepared_plan(&reads, &query, counted).await;
                let walks = plan
                    .matches(&format!("Index Scan Backward using {BOTH} "))
                    .count();
                assert_eq!(walks, statuses.len(), "{sql}\n{plan}");
                assert!(
                    !plan.contains("idx_payments_account_created"),
                    "{sql}\n{plan}"
                );
                // No sort of the rows walked (a merge's `Sort Key` is its order).
                assert!(!plan.contains("Sort  ("), "{sql}\n{plan}");
            }
        }
    }

    // In the order of amounts, planned for its values (a custom plan, as the gateway has them
    // made): through the currency's index.
    let by_amount = Order {
        field: SortField::Amount,
        direction: Direction::Asc,
    };
    db.execute_unprepared("SET plan_cache_mode = force_custom_plan")
        .await
        .unwrap();
    let query = PageQuery {
        order: by_amount,
        ..query(&account, "EUR", &[])
    };
    for counted in [false, true] {
        let (sql, plan) = prepared_plan(&db, &query, counted).await;
        let walked = plan.contains("idx_payments_account_created") || plan.contains("Seq Scan");
        assert!(!walked, "{sql}\n{plan}");
        assert!(plan.contains(INDEX), "{sql}\n{plan}");
    }
    db.execute_unprepared("RESET plan_cache_mode")
        .await
        .unwrap();

    // Through the gateway: a page of EUR is read through the currency's index, by the plan
    // page reads keep. (PostgreSQL counts an index's scans when the connection that made them
    // next idles.)
    let before = scans_of(&db, INDEX).await;
    let data = app
        .query(
            &key,
            "{ payments(first: 3, filter: {currency: \"EUR\"}) { \
             edges { node { currency } } pageInfo { hasNextPage } } }",
            json!({}),
        )
        .await;
    let edges = data["payments"]["edges"].as_array().unwrap();
    assert_eq!(edges.len(), 3, "{data}");
    assert!(
        edges.iter().all(|e| e["node"]["currency"] == "EUR"),
        "{data}"
    );
    let waiting = Instant::now();
    while scans_of(&db, INDEX).await == before {
        assert!(
            waiting.elapsed() < Duration::from_secs(30),
            "the page was not read through {INDEX}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    db.close().await.unwrap();
}

/// The page statement of `query` prepared on `db` (one connection) and its plan for the
/// query's values there: the generic one on page reads' connections, a custom one where the
/// connection forces it.
async fn prepared_plan(db: &Db, query: &PageQuery, counted: bool) -> (String, String) {
    let (sql, values) = prepared_page_sql(query, counted);
    db.execute_unprepared(&format!("PREPARE page AS {sql}"))
        .await
        .unwrap();
    let plan = db
        .query_text(&format!("EXPLAIN EXECUTE page({})", values.join(", ")))
        .await
        .unwrap()
        .concat()
        .join("\n");
    db.execute_unprepared("DEALLOCATE page").await.unwrap();
    (sql, plan)
}
