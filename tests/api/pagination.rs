//! Relay connections over payments: walks in every order and direction, concurrent changes,
//! cursor tampering, account isolation, index use, and a property test.

use std::collections::HashSet;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use graphpay::domain::status::PaymentStatus;
use graphpay::domain::time::Timestamp;
use graphpay::persistence::payments::NewPayment;
use serde_json::{Value, json};

use crate::helpers::{
    Backend, Listing, PAGE, Row, TestApp, insert_rows, on_both_backends, page, walk_both_ways,
};

/// Data with many identical `createdAt` and `amount` values.
async fn seed(app: &TestApp, account_id: &str, count: usize) -> Vec<Row> {
    let base = Timestamp::parse_rfc3339("2026-11-30T10:00:00Z")
        .unwrap()
        .micros();
    let statuses = [
        PaymentStatus::Succeeded,
        PaymentStatus::Failed,
        PaymentStatus::Pending,
    ];
    let new: Vec<NewPayment> = (0..count)
        .map(|i| NewPayment {
            account_id: account_id.to_string(),
            amount: graphpay::domain::money::MinorUnits::parse([500, 100, 2500, 100][i % 4])
                .expect("an amount"),
            currency: graphpay::domain::currency::Currency::parse(if i % 3 == 0 {
                "EUR"
            } else {
                "USD"
            })
            .expect("a currency"),
            source: "tok_visa".to_string(),
            description: None,
            reference: None,
            metadata: Default::default(),
            status: statuses[i % statuses.len()],
            capture_method: Default::default(),
            return_url: None,
            created_at: Timestamp::from_micros(base + [0, 1, 500_000, 1_000_000, 1][i % 5]),
        })
        .collect();
    insert_rows(app, new).await
}

fn orders() -> Vec<Listing> {
    let mut out = Vec::new();
    for by_amount in [false, true] {
        for ascending in [false, true] {
            out.push(Listing {
                by_amount,
                ascending,
                ..Default::default()
            });
        }
    }
    out
}

on_both_backends! {
    async fn every_order_walks_forward_and_backward_without_gaps_or_repeats(app: TestApp) {
        let (alice, key) = app.account("Alice").await;
        let rows = seed(&app, &alice, 57).await;
        for listing in orders() {
            for size in [1, 7, 19, 57, 100] {
                walk_both_ways(&app, &key, &listing, &rows, size).await;
            }
        }
    }

    async fn filters_combine_with_every_order(app: TestApp) {
        let (alice, key) = app.account("Alice").await;
        let rows = seed(&app, &alice, 57).await;
        let base = rows.iter().map(|r| r.created_at).min().unwrap();
        let filters = [
            Listing { statuses: vec![PaymentStatus::Succeeded, PaymentStatus::Failed], ..Default::default() },
            Listing { currency: Some("EUR".into()), ..Default::default() },
            Listing { amount_min: Some(100), amount_max: Some(500), ..Default::default() },
            Listing { created_after: Some(base + 1), created_before: Some(base + 1_000_000), ..Default::default() },
            Listing { currency: Some("JPY".into()), ..Default::default() },
        ];
        for filter in filters {
            for order in orders() {
                let listing = Listing { by_amount: order.by_amount, ascending: order.ascending, ..filter.clone() };
                walk_both_ways(&app, &key, &listing, &rows, 6).await;
            }
        }
    }

    async fn empty_and_single_row_listings_have_exact_page_info(app: TestApp) {
        let (alice, key) = app.account("Alice").await;
        let listing = Listing::default();
        let (ids, info) = page(&app, &key, &listing, (None, None), (None, None)).await;
        assert!(ids.is_empty());
        assert_eq!(info, json!({"hasNextPage": false, "hasPreviousPage": false, "startCursor": null, "endCursor": null}));
        let (ids, info) = page(&app, &key, &listing, (None, Some(5)), (None, None)).await;
        assert!(ids.is_empty());
        assert_eq!(info["hasPreviousPage"], false);

        let rows = seed(&app, &alice, 1).await;
        walk_both_ways(&app, &key, &listing, &rows, 1).await;
        walk_both_ways(&app, &key, &listing, &rows, 20).await;
        let (ids, info) = page(&app, &key, &listing, (Some(0), None), (None, None)).await;
        assert!(ids.is_empty());
        assert_eq!(info["hasNextPage"], true, "first: 0 still says whether rows exist");
    }

    async fn default_page_is_twenty_newest_first(app: TestApp) {
        let (alice, key) = app.account("Alice").await;
        let rows = seed(&app, &alice, 25).await;
        let (ids, info) = page(&app, &key, &Listing::default(), (None, None), (None, None)).await;
        let (f, _) = Listing::default().variables();
        let _ = f;
        assert_eq!(ids, Listing::default().expected(&rows)[..20]);
        assert_eq!(info["hasNextPage"], true);
        let data = app.query(&key, "{ payments { nodes { id } } viewer { payments(first: 3) { nodes { id } } } }", json!({})).await;
        assert_eq!(data["payments"]["nodes"].as_array().unwrap().len(), 20);
        assert_eq!(data["viewer"]["payments"]["nodes"].as_array().unwrap().len(), 3);
    }

    async fn total_count_counts_the_filtered_set(app: TestApp) {
        let (alice, key) = app.account("Alice").await;
        let rows = seed(&app, &alice, 30).await;
        let eur = rows.iter().filter(|r| r.currency == "EUR").count();
        let data = app
            .query(&key, "{ all: payments(first: 1) { totalCount } eur: payments(first: 1, filter: {currency: \"EUR\"}) { totalCount } }", json!({}))
            .await;
        assert_eq!(data["all"]["totalCount"], 30);
        assert_eq!(data["eur"]["totalCount"], eur);
    }

    async fn rows_added_or_removed_while_paging_never_shift_the_others(app: TestApp) {
        let (alice, key) = app.account("Alice").await;
        let rows = seed(&app, &alice, 40).await;
        for listing in orders() {
            let stable: HashSet<String> = rows.iter().map(|r| r.id.clone()).collect();
            let mut removable: Vec<String> = Vec::new();
            let mut seen: Vec<String> = Vec::new();
            let mut after: Option<String> = None;
            let mut round = 0;
            loop {
                let (ids, info) = page(&app, &key, &listing, (Some(6), None), (after.as_deref(), None)).await;
                seen.extend(ids);
                // Between pages: add rows everywhere in the order, and delete some of them.
                let extra = seed(&app, &alice, 5).await;
                removable.extend(extra.iter().map(|r| r.id.clone()));
                if round % 2 == 1 {
                    for id in removable.drain(..3) {
                        graphpay::persistence::payments::delete(&app.db, &alice, &id).await.unwrap();
                    }
                }
                round += 1;
                if info["hasNextPage"] != true {
                    break;
                }
                after = info["endCursor"].as_str().map(str::to_string);
            }
            let unique: HashSet<&String> = seen.iter().collect();
            assert_eq!(unique.len(), seen.len(), "no row repeats in {listing:?}");
            for id in &stable {
                assert!(unique.contains(id), "a row that existed throughout was skipped in {listing:?}");
            }
            for id in removable {
                graphpay::persistence::payments::delete(&app.db, &alice, &id).await.unwrap();
            }
        }
    }

    async fn other_accounts_payments_never_appear_whatever_the_cursor(app: TestApp) {
        let (alice, alice_key) = app.account("Alice").await;
        let (bob, bob_key) = app.account("Bob").await;
        let alice_rows = seed(&app, &alice, 20).await;
        let bob_rows = seed(&app, &bob, 20).await;
        let bob_ids: HashSet<String> = bob_rows.iter().map(|r| r.id.clone()).collect();
        // A cursor Alice was given, at the middle of her listing, used by Bob.
        let (_, info) = page(&app, &alice_key, &Listing::default(), (Some(10), None), (None, None)).await;
        let cursor = info["endCursor"].as_str().unwrap();
        for size in [(Some(100), None), (None, Some(100))] {
            let cursors = if size.0.is_some() { (Some(cursor), None) } else { (None, Some(cursor)) };
            let (ids, _) = page(&app, &bob_key, &Listing::default(), size, cursors).await;
            assert!(ids.iter().all(|id| bob_ids.contains(id)), "only Bob's payments");
        }
        walk_both_ways(&app, &bob_key, &Listing::default(), &bob_rows, 7).await;
        walk_both_ways(&app, &alice_key, &Listing::default(), &alice_rows, 7).await;
    }

    async fn bad_cursors_and_page_sizes_are_refused_with_their_codes(app: TestApp) {
        let (alice, key) = app.account("Alice").await;
        seed(&app, &alice, 10).await;
        let listing = Listing::default();
        let (_, info) = page(&app, &key, &listing, (Some(3), None), (None, None)).await;
        let cursor = info["endCursor"].as_str().unwrap().to_string();
        let (filter, order) = listing.variables();
        let ask = |first: Option<i64>, last: Option<i64>, after: Option<String>, filter: Value, order: Value| {
            let app = &app;
            let key = key.clone();
            async move {
                app.error_code(&key, PAGE, json!({"first": first, "last": last, "after": after, "filter": filter, "orderBy": order})).await
            }
        };

        let mut bytes = URL_SAFE_NO_PAD.decode(&cursor).unwrap();
        bytes[5] ^= 0x40;
        let tampered = URL_SAFE_NO_PAD.encode(&bytes);
        let truncated = cursor[..cursor.len() - 3].to_string();
        let foreign = graphpay::domain::cursor::CursorCodec::new(b"another server's secret").encode(
            &graphpay::domain::paging::Position { key: 1, id: "pay_01ARZ3NDEKTSV4RRFFQ69G5FAV".into() },
            graphpay::domain::paging::fingerprint(&Default::default(), Default::default()),
        );
        // Re-signed with the real secret but claiming another format version.
        let secret = app.db.query_text("SELECT secret FROM signing_keys WHERE kid = 0").await.unwrap()[0][0].clone();
        let mut body = URL_SAFE_NO_PAD.decode(&cursor).unwrap();
        body.truncate(35);
        body[0] = 3;
        use hmac::{KeyInit, Mac};
        let mut mac = <hmac::Hmac<sha2::Sha256> as KeyInit>::new_from_slice(secret.as_bytes()).unwrap();
        mac.update(&body);
        body.extend_from_slice(&mac.finalize().into_bytes()[..16]);
        let wrong_version = URL_SAFE_NO_PAD.encode(&body);

        for bad in [tampered, truncated, foreign, wrong_version, "not a cursor".to_string(), String::new()] {
            assert_eq!(ask(Some(3), None, Some(bad.clone()), filter.clone(), order.clone()).await, "INVALID_CURSOR", "{bad}");
        }
        assert_eq!(ask(Some(3), None, Some(cursor.clone()), json!({"currency": "USD"}), order.clone()).await, "CURSOR_MISMATCH");
        assert_eq!(ask(Some(3), None, Some(cursor.clone()), filter.clone(), json!({"field": "AMOUNT"})).await, "CURSOR_MISMATCH");
        assert_eq!(ask(Some(3), None, Some(cursor.clone()), filter.clone(), json!({"direction": "ASC"})).await, "CURSOR_MISMATCH");
        for (first, last) in [(Some(-1), None), (Some(101), None), (None, Some(101)), (None, Some(-5)), (Some(1), Some(1))] {
            assert_eq!(ask(first, last, None, filter.clone(), order.clone()).await, "PAGE_SIZE_OUT_OF_RANGE", "{first:?} {last:?}");
        }
        assert_eq!(ask(Some(3), None, None, json!({"currency": "usd"}), order.clone()).await, "INVALID_CURRENCY");
        assert_eq!(ask(Some(3), None, None, json!({"amountMin": -1}), order.clone()).await, "BAD_USER_INPUT");
        assert_eq!(ask(Some(3), None, None, json!({"createdAfter": "yesterday"}), order.clone()).await, "BAD_USER_INPUT");
        let vars = json!({"first": 3, "after": cursor, "filter": filter, "orderBy": order});
        app.query(&key, PAGE, vars).await;
    }

    async fn cursors_stay_valid_across_restarts_and_instances(app: TestApp) {
        let mut app = app;
        let (alice, key) = app.account("Alice").await;
        let rows = seed(&app, &alice, 12).await;
        let expected = Listing::default().expected(&rows);
        let (_, info) = page(&app, &key, &Listing::default(), (Some(5), None), (None, None)).await;
        let cursor = info["endCursor"].as_str().unwrap().to_string();
        // A second instance on the same database accepts it...
        let other = app.another_instance().await;
        let (ids, _) = page(&other, &key, &Listing::default(), (Some(5), None), (Some(&cursor), None)).await;
        assert_eq!(ids, expected[5..10]);
        // ...and so does the first one after a restart.
        app.restart().await;
        let (ids, _) = page(&app, &key, &Listing::default(), (Some(5), None), (Some(&cursor), None)).await;
        assert_eq!(ids, expected[5..10]);
    }

    async fn page_queries_seek_through_the_account_index(app: TestApp) {
        use graphpay::domain::paging::{Direction, Order, PageSize, PaymentFilter, Position, SortField};
        use graphpay::persistence::payment_pages::{PageQuery, PaymentColumns, page_sql};
        let (alice, _) = app.account("Alice").await;
        let (bob, _) = app.account("Bob").await;
        seed(&app, &alice, 3000).await;
        seed(&app, &bob, 300).await;
        app.db.execute_unprepared("ANALYZE").await.unwrap();
        for (field, index) in [(SortField::CreatedAt, "idx_payments_account_created"), (SortField::Amount, "idx_payments_account_amount")] {
            for direction in [Direction::Asc, Direction::Desc] {
                for (size, columns) in [(PageSize::First(50), PaymentColumns::ALL), (PageSize::Last(50), PaymentColumns::LISTING)] {
                    let query = PageQuery {
                        account_id: alice.clone(),
                        filter: PaymentFilter::default(),
                        order: Order { field, direction },
                        size,
                        after: Some(Position { key: 500, id: "pay_01ARZ3NDEKTSV4RRFFQ69G5FAV".into() }),
                        before: None,
                        columns,
                        amount_range_size: None,
                    };
                    let sql = page_sql(app.db.backend(), &query);
                    let explain = match app.backend() {
                        Backend::Sqlite => format!("EXPLAIN QUERY PLAN {sql}"),
                        Backend::Postgres => format!("EXPLAIN {sql}"),
                    };
                    let plan = app.db.query_text(&explain).await.unwrap();
                    let plan = plan.iter().map(|r| r.join(" ")).collect::<Vec<_>>().join("\n");
                    assert!(plan.contains(index), "{field:?} {direction:?}: {sql}\n{plan}");
                    assert!(!plan.contains("TEMP B-TREE") && !plan.contains("Sort "), "no sort step: {plan}");
                }
            }
        }
    }

    async fn a_page_shows_every_field_asked_for_however_it_is_asked(app: TestApp) {
        use crate::helpers::{created_id, refund};
        let (alice, key) = app.account("Alice").await;
        let gift = json!({"amount": 1200, "currency": "EUR", "source": "tok_mastercard", "description": "a gift"});
        created_id(&app, &key, "gift", gift).await;
        created_id(&app, &key, "declined", json!({"amount": 700, "currency": "USD", "source": "tok_chargeDeclined"})).await;
        let refunded = created_id(&app, &key, "refunded", json!({"amount": 1000, "currency": "USD", "source": "tok_visa"})).await;
        assert_eq!(refund(&app, &key, "r1", &refunded, Some(300)).await.0, 200);

        const LISTING: [&str; 9] = ["__typename", "id", "amount", "currency", "status", "amountRefunded", "amountRefundable", "createdAt", "updatedAt"];
        const DETAILS: [&str; 4] = ["source", "description", "failureCode", "failureMessage"];
        let nodes = |data: &Value| -> Vec<Value> {
            let page = &data["payments"];
            match page["nodes"].as_array() {
                Some(nodes) => nodes.clone(),
                None => page["edges"].as_array().expect("edges").iter().map(|e| e["node"].clone()).collect(),
            }
        };
        let full = format!("{{ payments(first: 10) {{ edges {{ node {{ {} {} }} }} }} }}", LISTING.join(" "), DETAILS.join(" "));
        let full = nodes(&app.query(&key, &full, json!({})).await);
        assert_eq!(full.len(), 3);
        assert!(full.iter().any(|p| p["description"] == "a gift" && p["source"] == "tok_mastercard"), "{full:?}");
        assert!(full.iter().any(|p| p["failureCode"] == "card_declined" && p["failureMessage"].is_string()), "{full:?}");
        assert!(full.iter().any(|p| p["amountRefunded"] == 300 && p["amountRefundable"] == 700), "{full:?}");

        // Only the listing's fields: the same values as when everything is asked for.
        let listing = format!("{{ payments(first: 10) {{ edges {{ node {{ {} }} }} }} }}", LISTING.join(" "));
        let listing = nodes(&app.query(&key, &listing, json!({})).await);
        for (shown, all) in listing.iter().zip(&full) {
            for field in LISTING {
                assert_eq!(shown[field], all[field], "{field} of {all}");
            }
        }

        // Details asked for in every way a document can: each answer holds them, and the same
        // values as above.
        let asked = [
            "fragment D on Payment { description failureCode } { payments(first: 10) { edges { node { id ...D } } } }",
            "{ payments(first: 10) { nodes { id ... on Payment { source failureMessage } } } }",
            "{ payments(first: 10) { edges { node { id ... { description } } } } }",
            "{ payments(first: 10) { edges { node { id gift: description } } } }",
            "{ payments(first: 10) { edges { node { id } } nodes { id description } } }",
            "{ payments(first: 10) { edges { node { id } } } payments(first: 10) { edges { node { description } } } }",
            "{ viewer { payments(first: 10) { edges { node { id source } } } } }",
        ];
        for document in asked {
            let data = app.query(&key, document, json!({})).await;
            let data = if data.get("viewer").is_some() { data["viewer"].clone() } else { data };
            let shown = nodes(&data);
            assert_eq!(shown.len(), 3, "{document}: {data}");
            for (shown, all) in shown.iter().zip(&full) {
                let mut any = false;
                for (name, value) in shown.as_object().expect("a payment") {
                    let field = if name == "gift" { "description" } else { name.as_str() };
                    assert_eq!(value, &all[field], "{document}: {name} of {all}");
                    any |= DETAILS.contains(&field);
                }
                assert!(any, "{document}: no details in {shown}");
            }
        }
        let data = app.query(&key, "{ payments(first: 10) { nodes { id refunds { payment { source } } } } }", json!({})).await;
        let sources: Vec<_> = nodes(&data).iter().flat_map(|p| p["refunds"].as_array().cloned().unwrap_or_default()).map(|r| r["payment"]["source"].clone()).collect();
        assert_eq!(sources, vec![json!("tok_visa")], "{data}");

        // The listing read itself leaves the details out; the full read has them.
        use graphpay::domain::paging::{Order, PageSize, PaymentFilter};
        use graphpay::persistence::payment_pages::{PageQuery, PaymentColumns, fetch};
        let read = |columns| PageQuery {
            account_id: alice.clone(),
            filter: PaymentFilter::default(),
            order: Order::default(),
            size: PageSize::First(10),
            after: None,
            before: None,
            columns,
            amount_range_size: None,
        };
        let all = fetch(&app.db, &read(PaymentColumns::ALL)).await.unwrap();
        let some = fetch(&app.db, &read(PaymentColumns::LISTING)).await.unwrap();
        assert!(all.rows.iter().any(|p| p.description.as_deref() == Some("a gift")));
        assert!(some.rows.iter().all(|p| p.description.is_none() && p.source.is_empty()));
        let key_of = |p: &graphpay::domain::payment::Payment| (p.id.clone(), p.account_id.clone(), p.amount, p.currency, p.status, p.amount_refunded, p.created_at, p.updated_at);
        assert_eq!(all.rows.iter().map(|p| key_of(p)).collect::<Vec<_>>(), some.rows.iter().map(|p| key_of(p)).collect::<Vec<_>>());
    }
}

/// PostgreSQL keeps one generic plan for a page statement (on page reads' own connections,
/// from the first execution) and for the probe for the other direction (after a few
/// executions), instead of planning either afresh on every page: their limits are written
/// into the text, since a bound limit makes the generic plan look costlier than any custom
/// one.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[cfg_attr(
    not(pg_tests),
    ignore = "TEST_DATABASE_URL is not set: PostgreSQL test NOT run"
)]
async fn page_statements_keep_a_generic_plan_postgres() {
    use graphpay::domain::paging::{Order, PageSize, PaymentFilter, Position};
    use graphpay::persistence::Db;
    use graphpay::persistence::payment_pages::{PageQuery, PaymentColumns, exists_behind, fetch};

    let app = TestApp::spawn(Backend::Postgres).await;
    let (alice, _) = app.account("Alice").await;
    // Enough rows that a plan for an unknown limit looks costly (with a few hundred, even a
    // bound limit gets a generic plan).
    const ROWS: i64 = 20_000;
    const BASE: i64 = 1_767_225_600_000_000;
    app.bulk_succeeded(&alice, ROWS, "1000 + g % 5000", BASE)
        .await;
    app.db.execute_unprepared("ANALYZE payments").await.unwrap();
    // One connection for page reads and one for the rest, so that their prepared statements
    // are the ones looked at.
    let db = app.two_connections().await;
    let query = PageQuery {
        account_id: alice.clone(),
        filter: PaymentFilter::default(),
        order: Order::default(),
        size: PageSize::First(20),
        after: Some(Position {
            key: BASE + ROWS * 1000,
            id: format!("pay_{ROWS:026X}"),
        }),
        before: None,
        columns: PaymentColumns::LISTING,
        amount_range_size: None,
    };
    for _ in 0..8 {
        assert_eq!(fetch(&db, &query).await.unwrap().rows.len(), 20);
        assert!(exists_behind(&db, &query).await.unwrap());
    }
    // The page statement runs on page reads' own connection, which keeps generic plans from
    // the first execution; the probe on the other, where PostgreSQL chose a generic plan
    // after its first executions.
    let prepared = async |db: &Db| {
        let mut plans = db
            .query_text(
                "SELECT statement, generic_plans, custom_plans FROM pg_prepared_statements \
                 WHERE statement LIKE '%FROM \"payments\"%'",
            )
            .await
            .unwrap();
        plans.retain(|plan| !plan[0].contains("pg_prepared_statements"));
        plans
    };
    let pages = prepared(&db.as_page_reads()).await;
    assert_eq!(pages.len(), 1, "the page statement: {pages:?}");
    assert_eq!(
        (pages[0][1].as_str(), pages[0][2].as_str()),
        ("8", "0"),
        "{pages:?}"
    );
    let probes = prepared(&db).await;
    assert_eq!(probes.len(), 1, "the probe: {probes:?}");
    let generic: i64 = probes[0][1].parse().unwrap();
    assert!(generic >= 2, "planned afresh each time: {probes:?}");
}
