use async_graphql::parser::parse_query;
use async_graphql::parser::types::{DocumentOperations, ExecutableDocument};

use super::*;

/// A registry where `Payment` and `Refund` implement `Node`: all `applies` reads.
fn registry() -> Registry {
    let mut registry = Registry::default();
    for object in ["Payment", "Refund"] {
        registry.implements.insert(
            object.to_string(),
            ["Node".to_string()].into_iter().collect(),
        );
    }
    registry
}

fn parsed(text: &str) -> ExecutableDocument {
    parse_query(text).expect("parses")
}

/// The selection set of the document's single operation.
fn root(doc: &ExecutableDocument) -> &SelectionSet {
    match &doc.operations {
        DocumentOperations::Single(operation) => &operation.node.selection_set.node,
        DocumentOperations::Multiple(_) => panic!("one operation"),
    }
}

/// The collected keys of the document's root selection on a `Payment`, each with how many
/// fields it gathers.
fn collected(text: &str) -> Option<Vec<(String, usize)>> {
    let doc = parsed(text);
    let registry = registry();
    let document = Document {
        fragments: &doc.fragments,
        registry: &registry,
    };
    let keys = document.collect([root(&doc)], "Payment")?;
    Some(
        keys.iter()
            .map(|c| (c.key.to_string(), c.fields.len()))
            .collect(),
    )
}

fn keys(pairs: &[(&str, usize)]) -> Option<Vec<(String, usize)>> {
    Some(pairs.iter().map(|(k, n)| (k.to_string(), *n)).collect())
}

#[test]
fn fields_are_merged_by_response_key_in_the_order_keys_first_appear() {
    assert_eq!(
        collected("{ id amount id a: amount amount status a: amount }"),
        keys(&[("id", 2), ("amount", 2), ("a", 2), ("status", 1)])
    );
}

#[test]
fn fragments_apply_on_the_type_an_interface_it_implements_or_no_condition() {
    let text = "{ ... on Payment { amount } ...N ... { status } ...R ... on Refund { reason } id }
                fragment N on Node { id }
                fragment R on Refund { amount reason }";
    // The fragments on `Refund` add nothing to a payment, not even `amount` a second time.
    assert_eq!(
        collected(text),
        keys(&[("amount", 1), ("id", 2), ("status", 1)])
    );
}

#[test]
fn nested_fragments_are_followed_and_merged_into_the_keys_they_share() {
    let text = "{ ...A currency }
                fragment A on Payment { id ... on Node { ...B } }
                fragment B on Payment { currency id x: amount }";
    assert_eq!(
        collected(text),
        keys(&[("id", 2), ("currency", 2), ("x", 1)])
    );
}

#[test]
fn a_directive_left_or_an_unknown_fragment_is_not_collected() {
    // `@skip`/`@include` are removed before execution; any directive still there is one the
    // readers do not know.
    assert_eq!(collected("{ id amount @custom }"), None);
    assert_eq!(collected("{ id ... @custom { amount } }"), None);
    assert_eq!(
        collected("{ id ...F } fragment F on Payment @custom { amount }"),
        None
    );
    assert_eq!(collected("{ id ...Missing }"), None);
}

#[test]
fn fragments_nested_beyond_the_bound_are_not_collected() {
    let chain = |depth: usize| {
        let mut text = "{ ...F0 }".to_string();
        for n in 0..depth {
            text.push_str(&format!(" fragment F{n} on Payment {{ id ...F{} }}", n + 1));
        }
        text.push_str(&format!(" fragment F{depth} on Payment {{ amount }}"));
        text
    };
    assert_eq!(
        collected(&chain(MAX_FRAGMENT_HOPS - 1)),
        keys(&[("id", MAX_FRAGMENT_HOPS - 1), ("amount", 1)])
    );
    assert_eq!(collected(&chain(MAX_FRAGMENT_HOPS)), None);
}

#[test]
fn a_key_is_given_once_only_when_one_field_holds_it_all_the_way_down() {
    let registry = registry();
    for (text, once) in [
        ("{ payments { nodes { id } } }", true),
        ("{ payments { nodes { id } nodes { amount } } }", false),
        (
            "{ payments { nodes { id } } ...F } fragment F on Query { payments { edges { cursor } } }",
            false,
        ),
        // A fragment whose condition would not apply still counts: the answer is only `false`.
        (
            "{ payments { nodes { id } ... on Refund { nodes: id } } }",
            false,
        ),
        (
            "{ payments { ...C } } fragment C on PaymentConnection { nodes { id } }",
            true,
        ),
    ] {
        let doc = parsed(text);
        let document = Document {
            fragments: &doc.fragments,
            registry: &registry,
        };
        assert_eq!(
            document.given_once(root(&doc), &["payments", "nodes"]),
            once,
            "{text}"
        );
    }
}

#[test]
fn a_field_is_found_by_its_place_through_fragments() {
    let doc = parsed("{ id ...F } fragment F on Payment { ... on Node { amount } }");
    let registry = registry();
    let document = Document {
        fragments: &doc.fragments,
        registry: &registry,
    };
    let amount = &doc.fragments[&Name::new("F")].node.selection_set.node.items[0];
    let Selection::InlineFragment(inline) = &amount.node else {
        panic!("an inline fragment");
    };
    let Selection::Field(field) = &inline.node.selection_set.node.items[0].node else {
        panic!("a field");
    };
    let found = document
        .field_at(root(&doc), field.pos)
        .expect("found through the fragments");
    assert_eq!(found.node.name.node, "amount");
    assert!(
        document
            .field_at(root(&doc), Pos { line: 9, column: 9 })
            .is_none()
    );
}
