//! The cost of documents, as the contract defines it, against the real schema.

use async_graphql::parser::parse_query;
use async_graphql::parser::types::DocumentOperations;
use async_graphql::{Value, Variables};

use super::{Plan, TypeTable};

fn plan(text: &str, variables: serde_json::Value) -> Plan {
    let table = TypeTable::from_sdl(&crate::graphql::sdl());
    let doc = parse_query(text).expect("parses");
    let operation = match &doc.operations {
        DocumentOperations::Single(op) => op,
        DocumentOperations::Multiple(ops) => ops.values().next().expect("an operation"),
    };
    let variables = Variables::from_json(variables);
    Plan::new(&table, &doc, &operation.node, &variables)
}

fn cost(text: &str) -> u64 {
    plan(text, serde_json::json!({})).requested()
}

#[test]
fn documents_cost_what_the_contract_says() {
    let table: &[(&str, u64)] = &[
        ("{ viewer { id } }", 1),
        ("{ __typename }", 0),
        ("{ viewer { id name createdAt } }", 1),
        (
            "{ payments(first: 10) { edges { node { id events { toStatus } } } } }",
            22,
        ),
        ("{ payments { edges { node { id } } } }", 2 + 20),
        (
            "{ payments(last: 5) { nodes { id } pageInfo { hasNextPage } } }",
            2 + 5,
        ),
        (
            "{ payments(first: 100) { nodes { id refunds { id payment { id } } events { toStatus } } } }",
            2 + 100 * 4,
        ),
        ("{ payments(first: 0) { nodes { id } } }", 2),
        // Without a filter, or with statuses only, the status counts answer totalCount;
        // other filters count rows, like a full page.
        ("{ payments(first: 10) { totalCount } }", 2 + 10 + 1),
        (
            "{ payments(first: 10, filter: {status: [SUCCEEDED, FAILED]}) { totalCount } }",
            2 + 10 + 1,
        ),
        (
            "{ payments(first: 10, filter: {status: [SUCCEEDED], currency: \"EUR\"}) { totalCount } }",
            2 + 10 + 100,
        ),
        (
            "{ payments(first: 10, filter: {amountMin: null}) { totalCount } }",
            2 + 10 + 1,
        ),
        (
            "{ viewer { payments(first: 3) { edges { cursor node { refunds { payment { id } } } } } } }",
            1 + 2 + 3 * 3,
        ),
        (
            "{ nodes(ids: [\"a\", \"b\", \"c\"]) { id ... on Payment { events { toStatus } } } }",
            3 * 2,
        ),
        ("{ node(id: \"a\") { id } }", 1),
        (
            "{ payment(id: \"a\") { id refunds { id } events { reason } } }",
            3,
        ),
        (
            "mutation { createPayment(input: {amount: 1, currency: \"USD\", source: \"tok_visa\"}, idempotencyKey: \"k\") { replayed payment { id } } }",
            11,
        ),
        (
            "mutation { a: cancelPayment(paymentId: \"p\") { payment { id } } b: cancelPayment(paymentId: \"p\") { payment { id } } }",
            22,
        ),
        (
            "subscription { paymentUpdated { id status events { toStatus } } }",
            2,
        ),
        (
            "fragment P on Payment { id events { toStatus } } { payments(first: 10) { edges { node { ...P } } } }",
            22,
        ),
        (
            "{ payments(first: 10) { ... on PaymentConnection { edges { node { ... on Payment { refunds { id } } } } } } }",
            22,
        ),
        ("{ a: viewer { id } b: viewer { id } }", 2),
        (
            "{ __schema { types { name fields { name type { name ofType { name } } } } } }",
            5,
        ),
    ];
    for (text, expected) in table {
        assert_eq!(cost(text), *expected, "{text}");
    }
}

#[test]
fn page_sizes_and_ids_come_from_variables_too() {
    let text = "query Q($n: Int, $ids: [ID!]!) { payments(first: $n) { nodes { id } } nodes(ids: $ids) { id } }";
    let plan = plan(text, serde_json::json!({"n": 7, "ids": ["a", "b"]}));
    assert_eq!(plan.requested(), 2 + 7 + 2);
}

#[test]
fn variables_left_out_take_their_defaults_and_single_ids_count_as_one() {
    let text = "query Q($n: Int = 100, $ids: [ID!]! = [\"a\", \"b\"]) { payments(first: $n) { nodes { id } } nodes(ids: $ids) { id } }";
    assert_eq!(plan(text, serde_json::json!({})).requested(), 2 + 100 + 2);
    assert_eq!(cost("{ nodes(ids: \"pay_x\") { id } }"), 1);
    let single = plan(
        "query Q($ids: [ID!]!) { nodes(ids: $ids) { id } }",
        serde_json::json!({"ids": "pay_x"}),
    );
    assert_eq!(single.requested(), 1);
}

#[test]
fn out_of_range_page_sizes_are_costed_at_the_most_a_page_can_hold() {
    assert_eq!(
        cost("{ payments(first: 1000000) { nodes { id } } }"),
        2 + 100
    );
    assert_eq!(cost("{ payments(first: -5) { nodes { id } } }"), 2);
    let ids: Vec<String> = (0..500).map(|i| format!("\"{i}\"")).collect();
    assert_eq!(
        cost(&format!("{{ nodes(ids: [{}]) {{ id }} }}", ids.join(","))),
        100
    );
}

#[test]
fn the_actual_cost_counts_the_rows_returned() {
    let plan = plan(
        "{ p: payments(first: 10, filter: {currency: \"USD\"}) { e: edges { n: node { id events { toStatus } } } totalCount } viewer { id } }",
        serde_json::json!({}),
    );
    assert_eq!(plan.requested(), 2 + 10 * 2 + 100 + 1);
    let data = Value::from_json(serde_json::json!({
        "p": {
            "e": [
                {"n": {"id": "1", "events": [{"toStatus": "SUCCEEDED"}]}},
                {"n": {"id": "2", "events": []}},
                {"n": {"id": "3", "events": [{"toStatus": "PENDING"}, {"toStatus": "SUCCEEDED"}]}}
            ],
            "totalCount": 3
        },
        "viewer": {"id": "acct"}
    }))
    .unwrap();
    assert_eq!(plan.actual(&data, true), 2 + 3 * 2 + 100 + 1);
    assert_eq!(plan.actual(&Value::Null, false), 0);
}

#[test]
fn a_filter_in_variables_decides_how_total_count_is_charged() {
    let query = "query Q($f: PaymentFilter) { payments(first: 5, filter: $f) { totalCount } }";
    for (variables, cost) in [
        (serde_json::json!({}), 2 + 5 + 1),
        (serde_json::json!({"f": null}), 2 + 5 + 1),
        (serde_json::json!({"f": {"status": ["PENDING"]}}), 2 + 5 + 1),
        (
            serde_json::json!({"f": {"status": ["PENDING"], "currency": null}}),
            2 + 5 + 1,
        ),
        (serde_json::json!({"f": {"currency": "EUR"}}), 2 + 5 + 100),
        (
            serde_json::json!({"f": {"createdAfter": "2026-01-01T00:00:00Z"}}),
            2 + 5 + 100,
        ),
    ] {
        assert_eq!(
            plan(query, variables.clone()).requested(),
            cost,
            "{variables}"
        );
    }
}

#[test]
fn a_mutation_that_ran_is_charged_even_when_its_field_is_null() {
    let plan = plan(
        "mutation { cancelPayment(paymentId: \"p\") { payment { id } } }",
        serde_json::json!({}),
    );
    // A failed sole root field leaves `data` null altogether.
    assert_eq!(plan.actual(&Value::Null, true), 10);
    assert_eq!(plan.actual(&Value::Null, false), 0);
    let data = Value::from_json(serde_json::json!({ "cancelPayment": null })).unwrap();
    assert_eq!(plan.actual(&data, true), 10);
}

mod properties {
    use proptest::prelude::*;

    use super::*;

    proptest! {
        /// Whatever a page returns, its actual cost never exceeds what was requested.
        #[test]
        fn the_actual_cost_never_exceeds_the_requested_cost(
            first in 0i64..=100, rows in 0usize..=100, events in 0usize..5,
        ) {
            let rows = rows.min(first as usize);
            let plan = plan(
                "query Q($n: Int) { payments(first: $n) { edges { node { id events { toStatus } refunds { id } } } nodes { id } } }",
                serde_json::json!({"n": first}),
            );
            let node = serde_json::json!({
                "id": "x",
                "events": vec![serde_json::json!({"toStatus": "PENDING"}); events],
                "refunds": [],
            });
            let data = Value::from_json(serde_json::json!({
                "payments": {
                    "edges": vec![serde_json::json!({"node": node}); rows],
                    "nodes": vec![serde_json::json!({"id": "x"}); rows],
                }
            }))
            .unwrap();
            prop_assert!(plan.actual(&data, true) <= plan.requested());
        }
    }
}
