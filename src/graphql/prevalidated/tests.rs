use async_graphql::Variables;

use super::*;

fn schema() -> async_graphql::Schema<Query, Mutation, Subscription> {
    async_graphql::Schema::build(Query, Mutation, Subscription)
        .extension(Prevalidated)
        .finish()
}

#[tokio::test]
async fn a_registered_document_is_not_validated_again() {
    // An unused variable is refused by validation: only unmarked requests are validated.
    let text = "query($x: Int) { __typename }";
    let unmarked = schema().execute(Request::new(text)).await;
    assert!(
        unmarked.errors[0].message.contains("is not used"),
        "{:?}",
        unmarked.errors
    );
    let marked = schema().execute(Request::new(text).data(Registered)).await;
    assert!(marked.errors.is_empty(), "{:?}", marked.errors);
    assert_eq!(
        marked.data.into_json().unwrap(),
        serde_json::json!({"__typename": "Query"})
    );
}

/// A text is validated until the rules pass it once, then checked as a registered
/// document: a wrong value still gets validation's own message, and a text the rules
/// refuse is refused every time.
#[tokio::test]
async fn a_text_the_rules_passed_is_not_validated_again() {
    let run = |parsed: &Arc<Parsed>, text: &str, variables: serde_json::Value| {
        let mut request = Request::new(text).variables(Variables::from_json(variables));
        parsed.mark(&mut request);
        request.set_parsed_query(parsed.document().clone());
        async move { schema().execute(request).await }
    };
    let text = "query($n: Int) { payments(first: $n) { totalCount } }";
    let parsed = Arc::new(Parsed::new(
        async_graphql::parser::parse_query(text).expect("parsed"),
    ));
    let wrong = serde_json::json!({"n": "three"});
    let first = run(&parsed, text, wrong.clone()).await;
    assert!(!parsed.validated(), "refused, so not remembered");
    // Validation passes (the field itself fails: no database in this schema).
    let passed = run(&parsed, text, serde_json::json!({"n": 2})).await;
    assert!(
        passed.errors.iter().all(|err| !err.path.is_empty()),
        "{:?}",
        passed.errors
    );
    assert!(parsed.validated());
    let again = run(&parsed, text, wrong).await;
    assert_eq!(again.errors.len(), 1, "{:?}", again.errors);
    assert_eq!(again.errors[0].message, first.errors[0].message);
    assert_eq!(again.errors[0].locations, first.errors[0].locations);

    let unused = "query($x: Int) { __typename }";
    let refused = Arc::new(Parsed::new(
        async_graphql::parser::parse_query(unused).expect("parsed"),
    ));
    for _ in 0..2 {
        let response = run(&refused, unused, serde_json::json!({})).await;
        assert!(response.errors[0].message.contains("is not used"));
        assert!(!refused.validated());
    }
}

/// Each wrong value, wherever a variable sits in an argument (whole, inside an object
/// literal, inside a list, in a directive), is refused by id with the message and place
/// validation gives the same text.
#[tokio::test]
async fn wrong_values_are_refused_as_validation_refuses_them() {
    let create = "mutation($a: Int!, $k: String!) { createPayment(input: {amount: $a, \
                  currency: \"USD\", source: \"tok_visa\"}, idempotencyKey: $k) \
                  { payment { id } } }";
    let filter = "query($s: [PaymentStatus!]) { payments(first: 2, filter: {status: $s}) \
                  { totalCount } }";
    let skip = "query($b: Boolean!) { viewer { id @skip(if: $b) } }";
    let order = "query($o: PaymentOrder) { ...F } fragment F on Query { \
                 payments(first: 1, orderBy: $o) { totalCount } }";
    let cases = [
        (create, serde_json::json!({"a": "ten", "k": "x"})),
        (create, serde_json::json!({"a": 10, "k": 5})),
        (filter, serde_json::json!({"s": ["NOPE"]})),
        (filter, serde_json::json!({"s": ["SUCCEEDED", 3]})),
        (skip, serde_json::json!({"b": "yes"})),
        (order, serde_json::json!({"o": {"field": "COLOUR"}})),
        (
            order,
            serde_json::json!({"o": {"direction": "UP", "extra": 1}}),
        ),
    ];
    for (text, variables) in cases {
        let request = || Request::new(text).variables(Variables::from_json(variables.clone()));
        let unmarked = schema().execute(request()).await;
        let marked = schema().execute(request().data(Registered)).await;
        assert_eq!(
            unmarked.errors.len(),
            1,
            "{variables}: {:?}",
            unmarked.errors
        );
        assert_eq!(marked.errors.len(), 1, "{variables}: {:?}", marked.errors);
        assert_eq!(
            marked.errors[0].message, unmarked.errors[0].message,
            "{variables}"
        );
        assert_eq!(
            marked.errors[0].locations, unmarked.errors[0].locations,
            "{variables}"
        );
    }
}

#[tokio::test]
async fn its_variables_are_checked_with_the_rule_s_own_message() {
    let text = "query($n: Int) { payments(first: $n) { totalCount } }";
    let variables = || Variables::from_json(serde_json::json!({"n": "three"}));
    let unmarked = schema()
        .execute(Request::new(text).variables(variables()))
        .await;
    let marked = schema()
        .execute(Request::new(text).variables(variables()).data(Registered))
        .await;
    assert_eq!(marked.errors.len(), 1, "{:?}", marked.errors);
    assert_eq!(marked.errors[0].message, unmarked.errors[0].message);
    assert_eq!(marked.errors[0].locations, unmarked.errors[0].locations);
    assert_eq!(
        marked.errors[0].message,
        "Invalid value for argument \"first\", expected type \"Int\""
    );
}

/// Registration keeps each document parsed and marked validated, and a request that runs one
/// by id is given it: its text is not parsed again (a request the gateway did not mark would
/// have async-graphql parse the text, which here does not parse).
#[tokio::test]
async fn a_registered_document_is_kept_parsed_and_given_to_its_requests() {
    let documents =
        TrustedDocuments::parse(br#"{"a": "query A { __typename }", "b": "{ __typename }"}"#)
            .unwrap();
    assert!(documents.parsed("a").is_none());
    validate_manifest(&documents, std::path::Path::new("manifest.json"))
        .await
        .unwrap();
    let parsed = documents.parsed("a").expect("kept parsed");
    assert!(parsed.validated() && !parsed.text_passed());
    assert!(documents.parsed("b").is_some() && documents.parsed("c").is_none());

    // Without the query limits, the extension gives the request its document.
    let request = Request::new("this text does not parse")
        .data(Registered)
        .data(Preparsed(parsed));
    let response = schema().execute(request).await;
    assert!(response.errors.is_empty(), "{:?}", response.errors);
    assert_eq!(
        response.data.into_json().unwrap(),
        serde_json::json!({"__typename": "Query"})
    );
}
