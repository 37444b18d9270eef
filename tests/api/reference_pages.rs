//! Pages filtered by reference on an account of many payments without one: the reference's
//! rows are read through the index of references, with every other term of the filter tested
//! on them, in either order, and so are they counted for `totalCount`; on SQLite too, which
//! keeps no statistics and, left to choose, walked the index by status (or by amount, in the
//! order of amounts) through most of the account. Every walk, forward and backward, is exact.

use graphpay::domain::currency::Currency;
use graphpay::domain::paging::{Direction, Order, PageSize, PaymentFilter, Position, SortField};
use graphpay::domain::status::PaymentStatus;
use graphpay::domain::time::Timestamp;
use graphpay::persistence::payment_pages::{PageQuery, PaymentColumns, count_sql};

use crate::helpers::{
    Backend, Listing, Row, TestApp, explained_on_sqlite, insert_rows, on_both_backends_fn,
    sqlite_plan, usd_payment, walk_both_ways,
};

/// The bulk of the account: 20,000 succeeded payments in USD without a reference, one a
/// millisecond from `BASE`.
const BULK: i64 = 20_000;
const BASE: i64 = 1_767_225_600_000_000;
const REFERENCE: &str = "order-7";

/// An account of `BULK` payments and 13 with a reference among them: 10 of `REFERENCE`
/// (succeeded, failed and refunded, in USD and EUR, of several amounts) and 3 of another.
async fn account_with_references(app: &TestApp) -> (String, String, Vec<Row>) {
    use PaymentStatus::{Failed, Refunded, Succeeded};
    let (account, key) = app.account("References").await;
    app.bulk_succeeded(&account, BULK, "1000 + g % 5000", BASE)
        .await;
    let eur = Currency::parse("EUR").unwrap();
    let referenced = (0..13)
        .map(|i| {
            let status = [Succeeded, Failed, Succeeded, Refunded][i as usize % 4];
            // Spread through the bulk's times, the last five at the same microsecond (two of
            // them of `REFERENCE`).
            let created_at = Timestamp::from_micros(BASE + (1 + i.min(8)) * 1_500_000 + 1);
            let mut payment = usd_payment(&account, 200 + (i % 5) * 100, status, created_at);
            if i % 3 == 0 {
                payment.currency = eur;
            }
            payment.reference = Some(if i < 10 { REFERENCE } else { "order-8" }.to_string());
            payment
        })
        .collect();
    let rows = insert_rows(app, referenced).await;
    if app.backend() == Backend::Postgres {
        app.db.execute_unprepared("ANALYZE payments").await.unwrap();
    }
    (account, key, rows)
}

fn listing(by_amount: bool, ascending: bool) -> Listing {
    Listing {
        reference: Some(REFERENCE.to_string()),
        by_amount,
        ascending,
        ..Listing::default()
    }
}

/// The reference alone and with statuses (one, two), a currency, an amount range and a time
/// range; newest and oldest first and by amount; a page of 1 and of 4, forward and backward.
async fn walks_are_exact(backend: Backend) {
    use PaymentStatus::{Failed, Succeeded};
    let app = TestApp::spawn(backend).await;
    let (_, key, rows) = account_with_references(&app).await;
    let filters = [
        Listing::default(),
        Listing {
            statuses: vec![Succeeded],
            ..Listing::default()
        },
        Listing {
            statuses: vec![Failed, Succeeded],
            currency: Some("USD".into()),
            ..Listing::default()
        },
        Listing {
            amount_min: Some(300),
            amount_max: Some(500),
            ..Listing::default()
        },
        Listing {
            created_after: Some(BASE + 3_000_000),
            created_before: Some(BASE + 12_000_000),
            ..Listing::default()
        },
    ];
    for filter in &filters {
        for (by_amount, ascending) in [(false, false), (false, true), (true, false), (true, true)] {
            for size in [1, 4] {
                let listing = Listing {
                    reference: Some(REFERENCE.to_string()),
                    by_amount,
                    ascending,
                    ..filter.clone()
                };
                walk_both_ways(&app, &key, &listing, &rows, size).await;
            }
        }
        // Its `totalCount`, which the status counts do not answer, counted.
        let listing = Listing {
            reference: Some(REFERENCE.to_string()),
            ..filter.clone()
        };
        let (filter, _) = listing.variables();
        let data = app
            .query(
                &key,
                "query($filter: PaymentFilter) { payments(first: 1, filter: $filter) { totalCount } }",
                serde_json::json!({ "filter": filter }),
            )
            .await;
        let expected = listing.expected(&rows).len();
        assert_eq!(data["payments"]["totalCount"], expected, "{listing:?}");
    }
    // And a reference no payment holds.
    let none = Listing {
        reference: Some("order-0".into()),
        ..listing(false, false)
    };
    walk_both_ways(&app, &key, &none, &rows, 3).await;
}

on_both_backends_fn!(walks_are_exact);

/// SQLite's plans: whatever else the filter holds and in either order, with and without a
/// cursor, the index of references is the one walked; never the index by status, currency,
/// amount or creation time.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_reads_a_reference_through_its_index() {
    use PaymentStatus::{Failed, Succeeded};
    let app = TestApp::spawn(Backend::Sqlite).await;
    let (account, _, _) = account_with_references(&app).await;
    let filter = |f: fn(&mut PaymentFilter)| {
        let mut filter = PaymentFilter {
            reference: Some(REFERENCE.to_string()),
            ..PaymentFilter::default()
        };
        f(&mut filter);
        filter
    };
    let filters = [
        filter(|_| {}),
        filter(|f| f.statuses = vec![Succeeded]),
        filter(|f| f.statuses = vec![Failed, Succeeded]),
        filter(|f| f.currency = Currency::parse("USD").ok()),
        filter(|f| {
            f.statuses = vec![Succeeded];
            f.currency = Currency::parse("USD").ok();
        }),
        filter(|f| f.amount_min = Some(1)),
        filter(|f| {
            f.amount_min = Some(300);
            f.amount_max = Some(300);
        }),
        filter(|f| f.created_after = Some(Timestamp::from_micros(BASE))),
    ];
    for filter in filters {
        for field in [SortField::CreatedAt, SortField::Amount] {
            for after in [
                None,
                Some(Position {
                    key: BASE + 15_000 * 1000,
                    id: format!("pay_{:026X}", 15_000),
                }),
            ] {
                let query = PageQuery {
                    account_id: account.clone(),
                    filter: filter.clone(),
                    order: Order {
                        field,
                        direction: Direction::Desc,
                    },
                    size: PageSize::First(50),
                    after,
                    before: None,
                    columns: PaymentColumns::LISTING,
                    amount_range_size: None,
                };
                let plan = sqlite_plan(&app.db, &query).await;
                assert!(plan.contains("INDEX payments_reference "), "{plan}");
                assert!(!plan.contains("INDEX idx_payments"), "{plan}");
            }
        }
        // And `totalCount`'s count of them.
        let sql = count_sql(graphpay::persistence::Backend::Sqlite, &account, &filter);
        let plan = explained_on_sqlite(&app.db, &sql).await;
        assert!(plan.contains("INDEX payments_reference "), "{plan}");
        assert!(!plan.contains("INDEX idx_payments"), "{plan}");
    }
}
