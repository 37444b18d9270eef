//! Pages filtered by amount on an account whose payments almost all have other amounts. On
//! PostgreSQL, pages whose best walk depends on their filter's values (an amount) are
//! planned for those values, each time: one amount in 20,000 is found through
//! the amount's index, where the generic plan that page reads keep walks the whole account in
//! creation order to find it. On SQLite, which keeps no statistics of values, the gateway first
//! counts what the range holds, up to a cap, through that index: a range of few payments is
//! read through it, one of many walks the account in creation order, never reading and
//! sorting every payment of the range. Every walk, forward and backward, is exact.

use std::time::{Duration, Instant};

use graphpay::domain::currency::Currency;
use graphpay::domain::paging::{Order, PageSize, PaymentFilter, SortField};
use graphpay::domain::status::PaymentStatus;
use graphpay::domain::time::Timestamp;
use graphpay::persistence::payment_pages::{
    AMOUNT_RANGE_COUNTED, PageQuery, PaymentColumns, amount_range_size, amount_range_sql,
    planned_for_values, prepared_page_sql,
};
use serde_json::json;

use crate::helpers::{
    Backend, Listing, Row, TestApp, explained_on_sqlite, insert_rows, on_both_backends_fn, page,
    scans_of, sqlite_plan, usd_payment, walk_both_ways,
};

const BULK: i64 = 20_000;
const BASE: i64 = 1_767_225_600_000_000;
/// The amount only the rare payments have.
const RARE: i64 = 777;

/// An account of `BULK` payments of 1,000 to 5,999 and 6 of [`RARE`] among them, with the
/// table's statistics made on PostgreSQL; the rare payments as rows.
async fn account_with_a_rare_amount(app: &TestApp) -> (String, String, Vec<Row>) {
    let (account, key) = app.account("Amounts").await;
    app.bulk_succeeded(&account, BULK, "1000 + g % 5000", BASE)
        .await;
    let rare = (0..6)
        .map(|i| {
            // Spread through the bulk's times, two of them at the same microsecond.
            let created_at = Timestamp::from_micros(BASE + (1 + i.min(4)) * 2_000_000 + 1);
            usd_payment(&account, RARE, PaymentStatus::Succeeded, created_at)
        })
        .collect();
    let rows = insert_rows(app, rare).await;
    // Statistics as autovacuum makes them on PostgreSQL; the gateway makes none on SQLite.
    if app.backend() == Backend::Postgres {
        app.db.execute_unprepared("ANALYZE payments").await.unwrap();
    }
    (account, key, rows)
}

/// Pages of the rare amount: exactly it, a narrow range around it, and everything below the
/// bulk's amounts; newest and oldest first and by amount, forward and backward.
async fn walks_are_exact(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let (_, key, rows) = account_with_a_rare_amount(&app).await;
    for (amount_min, amount_max) in [
        (Some(RARE), Some(RARE)),
        (Some(RARE - 77), Some(RARE + 23)),
        (None, Some(999)),
    ] {
        for (by_amount, ascending) in [(false, false), (false, true), (true, false)] {
            let listing = Listing {
                amount_min,
                amount_max,
                by_amount,
                ascending,
                ..Listing::default()
            };
            for size in [1, 4] {
                walk_both_ways(&app, &key, &listing, &rows, size).await;
            }
        }
    }
    // With statuses too: on PostgreSQL one walk per status, merged, planned for the amount.
    let listing = Listing {
        statuses: vec![PaymentStatus::Failed, PaymentStatus::Succeeded],
        amount_min: Some(RARE),
        amount_max: Some(RARE + 23),
        ..Listing::default()
    };
    walk_both_ways(&app, &key, &listing, &rows, 4).await;
}

/// Pages of ranges the account holds many payments of (on SQLite, counted past the cap and
/// walked in creation order): the first three pages of 50, forward from the newest and back
/// from the third, are the database's own first 150 of the range in that order.
async fn dense_ranges_page_in_order(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let (account, key, _) = account_with_a_rare_amount(&app).await;
    for (amount_min, amount_max) in [
        (Some(1_000), Some(1_999)),
        (Some(1_000), Some(1_249)),
        (Some(5_000), None),
    ] {
        let bounds: String = [
            amount_min.map(|min| format!(" AND amount >= {min}")),
            amount_max.map(|max| format!(" AND amount <= {max}")),
        ]
        .into_iter()
        .flatten()
        .collect();
        let expected: Vec<String> = app
            .db
            .query_text(&format!(
                "SELECT id FROM payments WHERE account_id = '{account}'{bounds} \
                 ORDER BY created_at DESC, id DESC LIMIT 150"
            ))
            .await
            .unwrap()
            .into_iter()
            .map(|row| row[0].clone())
            .collect();
        assert_eq!(
            expected.len(),
            150,
            "the seed holds more than three pages of {bounds}"
        );
        let listing = Listing {
            amount_min,
            amount_max,
            ..Listing::default()
        };
        let (mut seen, mut after) = (Vec::new(), None::<String>);
        for _ in 0..3 {
            let (ids, info) = page(
                &app,
                &key,
                &listing,
                (Some(50), None),
                (after.as_deref(), None),
            )
            .await;
            assert_eq!(info["hasNextPage"], true, "{bounds}");
            seen.extend(ids);
            after = info["endCursor"].as_str().map(str::to_string);
        }
        assert_eq!(seen, expected, "forward, {bounds}");
        let (ids, _) = page(
            &app,
            &key,
            &listing,
            (None, Some(100)),
            (None, after.as_deref()),
        )
        .await;
        assert_eq!(
            ids,
            expected[..149].iter().skip(49).cloned().collect::<Vec<_>>(),
            "backward, {bounds}"
        );
    }
}

/// SQLite's plans for pages filtered by amount in creation order. Not counted (as a page
/// that skips the count would be): one amount through the amount's index; a range, however
/// wide, by walking the account in order, with no step that sorts what the range holds.
/// Counted ([`amount_range_size`]): a range of fewer payments than the cap through the
/// amount's index, one of the cap or more (one amount too) walked. In the order of amounts,
/// the amount's index, unsorted. With and without statistics.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn sqlite_reads_a_sparse_amount_range_by_its_index_and_walks_a_dense_one_in_order() {
    let app = TestApp::spawn(Backend::Sqlite).await;
    let (account, _, _) = account_with_a_rare_amount(&app).await;
    let query = |amount_min: Option<i64>, amount_max: Option<i64>, field: SortField| PageQuery {
        account_id: account.clone(),
        filter: PaymentFilter {
            amount_min,
            amount_max,
            ..PaymentFilter::default()
        },
        order: Order {
            field,
            ..Order::default()
        },
        size: PageSize::First(50),
        after: None,
        before: None,
        columns: PaymentColumns::LISTING,
        amount_range_size: None,
    };
    let counted = |amount_min, amount_max, size| PageQuery {
        amount_range_size: Some(size),
        ..query(amount_min, amount_max, SortField::CreatedAt)
    };
    let db = &app.db;
    let plan = |query: PageQuery| async move { sqlite_plan(db, &query).await };
    let looked_up = |plan: &str| plan.contains("INDEX idx_payments_account_amount");
    let walked = |plan: &str| {
        plan.contains("USING INDEX idx_payments_account_created") && !plan.contains("TEMP B-TREE")
    };
    // As the gateway leaves SQLite (no statistics), and after an `ANALYZE` of its own.
    for analyzed in [false, true] {
        if analyzed {
            db.execute_unprepared("ANALYZE").await.unwrap();
        }
        let exact = plan(query(Some(RARE), Some(RARE), SortField::CreatedAt)).await;
        assert!(looked_up(&exact), "{exact}");
        for (min, max) in [
            (Some(1), None),
            (None, Some(999)),
            (Some(1), Some(99_999_999)),
        ] {
            let range = plan(query(min, max, SortField::CreatedAt)).await;
            assert!(walked(&range), "{range}");
            let by_amount = plan(query(min, max, SortField::Amount)).await;
            assert!(looked_up(&by_amount), "{by_amount}");
            assert!(!by_amount.contains("TEMP B-TREE"), "{by_amount}");
            // A range counted sparse is looked up. (Once analyzed, SQLite's own samples of the
            // amounts tell it that a range which holds every payment is not sparse, whatever
            // the count given says, and it reads the table instead: only the range that is
            // sparse is asserted there.)
            let sparse = plan(counted(min, max, AMOUNT_RANGE_COUNTED - 1)).await;
            let really_sparse = max.is_some_and(|max| max < 1000);
            if !analyzed || really_sparse {
                assert!(looked_up(&sparse), "{sparse}");
            }
            let dense = plan(counted(min, max, AMOUNT_RANGE_COUNTED)).await;
            assert!(walked(&dense), "{dense}");
        }
        let none = plan(counted(Some(1_500), Some(1_500), 0)).await;
        assert!(looked_up(&none), "{none}");
        let one_common_amount = plan(counted(Some(1_000), Some(1_000), AMOUNT_RANGE_COUNTED)).await;
        assert!(walked(&one_common_amount), "{one_common_amount}");
        // The count itself reads the amount's index, whatever the range.
        for (min, max) in [(Some(RARE), Some(RARE)), (Some(1), None), (None, Some(999))] {
            let filter = PaymentFilter {
                amount_min: min,
                amount_max: max,
                ..PaymentFilter::default()
            };
            let plan = explained_on_sqlite(db, &amount_range_sql(&account, &filter)).await;
            assert!(looked_up(&plan), "{plan}");
        }
    }
}

/// What the count that decides tells: the payments of the range, up to the cap; nothing where
/// the page does not choose (PostgreSQL, the order of amounts, no amount bound).
async fn amount_ranges_are_counted_up_to_the_cap(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let (account, _, _) = account_with_a_rare_amount(&app).await;
    let size = |amount_min, amount_max, field| {
        let filter = PaymentFilter {
            amount_min,
            amount_max,
            ..PaymentFilter::default()
        };
        let (db, account) = (&app.db, &account);
        async move {
            amount_range_size(db, account, &filter, field)
                .await
                .unwrap()
        }
    };
    let sqlite = backend == Backend::Sqlite;
    let counted = |n: u64| sqlite.then_some(n);
    let by_created = SortField::CreatedAt;
    assert_eq!(size(Some(RARE), Some(RARE), by_created).await, counted(6));
    assert_eq!(size(None, Some(999), by_created).await, counted(6));
    assert_eq!(size(Some(1_500), Some(1_500), by_created).await, counted(4));
    assert_eq!(size(Some(1_500), Some(1_501), by_created).await, counted(8));
    assert_eq!(size(Some(6_000), None, by_created).await, counted(0));
    // 4,000 payments of 1,000-1,999 and every payment: the cap.
    assert_eq!(
        size(Some(1_000), Some(1_999), by_created).await,
        counted(AMOUNT_RANGE_COUNTED)
    );
    assert_eq!(
        size(Some(1), None, by_created).await,
        counted(AMOUNT_RANGE_COUNTED)
    );
    assert_eq!(size(Some(RARE), Some(RARE), SortField::Amount).await, None);
    assert_eq!(size(None, None, by_created).await, None);
}

/// A page with a cursor the gateway refuses costs the database nothing, with an amount range
/// (which SQLite counts before its page) as without one.
async fn a_refused_cursor_counts_no_amount_range(backend: Backend) {
    let app = TestApp::spawn_with(backend, |c| c.live_key_ttl = Duration::from_secs(3600)).await;
    let (_, key, _) = account_with_a_rare_amount(&app).await;
    let refused = |filter: &'static str| {
        let (app, key) = (&app, &key);
        let query = format!(
            "{{ payments(first: 5, after: \"not-a-cursor\", filter: {filter}) {{ nodes {{ id }} }} }}"
        );
        async move {
            assert_eq!(
                app.error_code(key, &query, json!({})).await,
                "INVALID_CURSOR"
            );
            app.statements_settled().await;
            let before = app.server_db.statements_run();
            assert_eq!(
                app.error_code(key, &query, json!({})).await,
                "INVALID_CURSOR"
            );
            app.server_db.statements_run() - before
        }
    };
    let plain = refused("{}").await;
    assert_eq!(refused("{amountMin: 700, amountMax: 800}").await, plain);
    assert_eq!(refused("{amountMax: 999}").await, plain);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[cfg_attr(
    not(pg_tests),
    ignore = "TEST_DATABASE_URL is not set: PostgreSQL test NOT run"
)]
async fn a_page_of_a_rare_amount_is_found_through_the_amount_index_postgres() {
    let app = TestApp::spawn(Backend::Postgres).await;
    let (account, key, _) = account_with_a_rare_amount(&app).await;

    // The premise: the generic plan page reads keep, made without the values, walks the
    // account in creation order and tests every payment's amount.
    let db = app.two_connections().await;
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
        amount_range_size: None,
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
    fn jpy() -> Option<Currency> {
        Currency::parse("JPY").ok()
    }
    let by_value = [
        filter(|f| f.amount_min = Some(1)),
        filter(|f| f.amount_max = Some(1)),
    ];
    for f in &by_value {
        for field in [SortField::CreatedAt, SortField::Amount] {
            assert!(planned_for_values(f, field), "{f:?} by {field:?}");
        }
    }
    // A reference is read through its own index whatever it is.
    let reference = filter(|f| f.reference = Some("order-1".into()));
    for field in [SortField::CreatedAt, SortField::Amount] {
        assert!(!planned_for_values(&reference, field), "by {field:?}");
    }
    let walked_in_creation_order = [
        PaymentFilter::default(),
        filter(|f| f.currency = jpy()),
        filter(|f| f.statuses = vec![PaymentStatus::Failed]),
        // A currency and statuses: one walk per status of the index by both.
        filter(|f| {
            f.currency = jpy();
            f.statuses = vec![PaymentStatus::Failed, PaymentStatus::Refunded];
        }),
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

on_both_backends_fn!(
    walks_are_exact,
    dense_ranges_page_in_order,
    amount_ranges_are_counted_up_to_the_cap,
    a_refused_cursor_counts_no_amount_range,
);
