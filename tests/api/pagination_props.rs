//! Property test: random data, filters, orders and page sizes; every walk, forward and
//! backward, returns exactly the filtered set in order, with exact pageInfo.

use graphpay::domain::status::PaymentStatus;
use graphpay::domain::time::Timestamp;
use graphpay::persistence::payments::NewPayment;
use proptest::prelude::*;

use crate::helpers::{Backend, Listing, Row, TestApp, insert_rows, walk_both_ways};

const STATUSES: [PaymentStatus; 4] = [
    PaymentStatus::Succeeded,
    PaymentStatus::Failed,
    PaymentStatus::Pending,
    PaymentStatus::Refunded,
];
const CURRENCIES: [&str; 3] = ["USD", "EUR", "JPY"];
const BASE: i64 = 1_796_000_000_000_000;

#[derive(Clone, Debug)]
struct Case {
    rows: Vec<(i64, i64, usize, usize)>,
    statuses: Vec<usize>,
    currency: Option<usize>,
    created: (Option<i64>, Option<i64>),
    amount: (Option<i64>, Option<i64>),
    by_amount: bool,
    ascending: bool,
    page_size: i64,
}

fn case() -> impl Strategy<Value = Case> {
    // Few distinct values, so ties on the sort key are the rule, not the exception.
    let row = (1i64..=6, 0i64..=5, 0usize..4, 0usize..3)
        .prop_map(|(a, t, s, c)| (a * 100, t * 500_000, s, c));
    (
        prop::collection::vec(row, 0..45),
        prop::collection::vec(0usize..4, 0..4),
        prop::option::of(0usize..3),
        (prop::option::of(0i64..=5), prop::option::of(0i64..=6)),
        (prop::option::of(1i64..=6), prop::option::of(1i64..=6)),
        any::<bool>(),
        any::<bool>(),
        1i64..=12,
    )
        .prop_map(
            |(rows, statuses, currency, created, amount, by_amount, ascending, page_size)| Case {
                rows,
                statuses,
                currency,
                created: (
                    created.0.map(|t| BASE + t * 500_000),
                    created.1.map(|t| BASE + t * 500_000),
                ),
                amount: (amount.0.map(|a| a * 100), amount.1.map(|a| a * 100)),
                by_amount,
                ascending,
                page_size,
            },
        )
}

async fn check(app: &TestApp, case: Case) {
    let (account, key) = app.account("Prop").await;
    let new: Vec<NewPayment> = case
        .rows
        .iter()
        .map(|&(amount, t, s, c)| NewPayment {
            account_id: account.clone(),
            amount: graphpay::domain::money::MinorUnits::parse(amount).expect("an amount"),
            currency: graphpay::domain::currency::Currency::parse(CURRENCIES[c])
                .expect("a currency"),
            source: "tok_visa".to_string(),
            description: None,
            reference: None,
            metadata: Default::default(),
            status: STATUSES[s],
            capture_method: Default::default(),
            return_url: None,
            created_at: Timestamp::from_micros(BASE + t),
        })
        .collect();
    let rows: Vec<Row> = insert_rows(app, new).await;
    let listing = Listing {
        statuses: case.statuses.iter().map(|&s| STATUSES[s]).collect(),
        currency: case.currency.map(|c| CURRENCIES[c].to_string()),
        created_after: case.created.0,
        created_before: case.created.1,
        amount_min: case.amount.0,
        amount_max: case.amount.1,
        reference: None,
        by_amount: case.by_amount,
        ascending: case.ascending,
    };
    walk_both_ways(app, &key, &listing, &rows, case.page_size).await;
}

fn run(backend: Backend, cases: u32) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let app = rt.block_on(TestApp::spawn(backend));
    let config = ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    };
    proptest!(config, |(c in case())| {
        rt.block_on(check(&app, c));
    });
    drop(app);
}

#[test]
fn random_listings_walk_exactly_sqlite() {
    run(Backend::Sqlite, 40);
}

#[test]
#[cfg_attr(
    not(pg_tests),
    ignore = "TEST_DATABASE_URL is not set: PostgreSQL test NOT run"
)]
fn random_listings_walk_exactly_postgres() {
    run(Backend::Postgres, 25);
}
