//! A page answers alike however its document selects the payments' fields. The gateway writes
//! a page's rows straight into the answer when every field selected is answered from the row,
//! after collecting the selection as execution does (named and inline fragments, on `Payment`
//! and on `Node`, nested, with `@skip`/`@include`, aliases, a response key given twice); an
//! instance started with `resolve_field_by_field` resolves every field the usual way. Over a
//! sweep of such documents, the two must give the same bytes; so must `payment(id)`. Over HTTP
//! the rows are written as JSON text unless the list is merged with another field of its key
//! (a list or a page given twice), which the sweep holds too.

use serde_json::{Value, json};

use crate::helpers::{TestApp, create, on_both_backends, refund};

/// Every scalar field of `Payment`.
const SCALARS: [&str; 19] = [
    "__typename",
    "id",
    "amount",
    "currency",
    "status",
    "amountRefunded",
    "captureMethod",
    "amountCapturable",
    "amountCaptured",
    "captureBefore",
    "cancellationReason",
    "amountRefundable",
    "source",
    "description",
    "reference",
    "failureCode",
    "failureMessage",
    "createdAt",
    "updatedAt",
];

/// A small deterministic generator: every run sweeps the same documents.
pub(crate) struct Sweep {
    state: u64,
    pub(crate) fragments: Vec<String>,
    /// Whether a payment's selection may hold `events` and `refunds` (resolved by their
    /// loaders beside the row's fields).
    nested: bool,
}

impl Sweep {
    /// A generator that starts from `state`, for documents without a payment's nested fields.
    pub(crate) fn new(state: u64) -> Sweep {
        Sweep {
            state,
            fragments: Vec::new(),
            nested: false,
        }
    }

    pub(crate) fn below(&mut self, n: usize) -> usize {
        self.state = self
            .state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((self.state >> 33) as usize) % n
    }

    /// A directive that keeps the selection (`$yes` is true, `$no` false), or none.
    pub(crate) fn kept(&mut self) -> &'static str {
        ["", "", "", " @include(if: $yes)", " @skip(if: $no)"][self.below(5)]
    }

    /// A fragment on `on` with `inner`, defined once at the end of the document.
    pub(crate) fn fragment(&mut self, on: &str, inner: String) -> String {
        let name = format!("F{}", self.fragments.len());
        self.fragments
            .push(format!("fragment {name} on {on} {{ {inner} }}"));
        format!("...{name}")
    }

    /// A selection of a payment's fields, `depth` fragments deep at most.
    fn payment(&mut self, depth: usize) -> String {
        let count = 1 + self.below(5);
        let mut items = Vec::new();
        for _ in 0..count {
            if self.nested && self.below(6) == 0 {
                let nested = ["events { toStatus reason }", "refunds { amount status }"];
                items.push(nested[self.below(2)].to_string());
                continue;
            }
            let item = match self.below(if depth > 0 { 9 } else { 6 }) {
                0..=2 => {
                    let field = SCALARS[self.below(SCALARS.len())];
                    // An alias named for its field, so that keys given twice can merge.
                    let alias = if self.below(4) == 0 {
                        format!("x_{field}: ")
                    } else {
                        String::new()
                    };
                    format!("{alias}{field}{}", self.kept())
                }
                3 if self.below(2) == 0 => {
                    let parts = ["type", "redirectUrl", "__typename"];
                    let part = parts[self.below(3)];
                    format!("nextAction{} {{ {part} }}", self.kept())
                }
                3 => {
                    let parts = ["key", "value", "__typename", "value key"];
                    let part = parts[self.below(4)];
                    format!("metadata{} {{ {part} }}", self.kept())
                }
                // A field given twice: the same key, merged.
                4 => {
                    let field = SCALARS[self.below(SCALARS.len())];
                    format!("{field} {field}")
                }
                // A field dropped by its directive.
                5 => {
                    let field = SCALARS[self.below(SCALARS.len())];
                    let dropped = [" @include(if: $no)", " @skip(if: $yes)"][self.below(2)];
                    format!("{field}{dropped} id")
                }
                6 => {
                    let on = ["on Payment ", "on Node ", ""][self.below(3)];
                    // A fragment on `Node` selects what `Node` has.
                    let inner = if on == "on Node " {
                        "id".to_string()
                    } else {
                        self.payment(depth - 1)
                    };
                    let kept = self.flag().trim_start();
                    let kept = if kept.is_empty() {
                        String::new()
                    } else {
                        format!("{kept} ")
                    };
                    format!("... {on}{kept}{{ {inner} }}")
                }
                // A named fragment on `Payment`, or on `Node` (what `Node` has).
                _ => {
                    let spread = if self.below(4) == 0 {
                        let inner = ["id", "id __typename", "__typename"][self.below(3)];
                        self.fragment("Node", inner.to_string())
                    } else {
                        let inner = self.payment(depth - 1);
                        self.fragment("Payment", inner)
                    };
                    format!("{spread}{}", self.flag())
                }
            };
            items.push(item);
        }
        items.join(" ")
    }

    /// A directive on a fragment: mostly one that keeps it (or none), sometimes one that
    /// drops it (with `$yes` true and `$no` false; the other way round when the flags are
    /// sent the other way).
    pub(crate) fn flag(&mut self) -> &'static str {
        if self.below(4) == 0 {
            [" @include(if: $no)", " @skip(if: $yes)"][self.below(2)]
        } else {
            self.kept()
        }
    }

    /// A selection of an edge's fields.
    fn edge(&mut self) -> String {
        let count = 1 + self.below(3);
        let mut items = Vec::new();
        for _ in 0..count {
            items.push(match self.below(6) {
                0 => "cursor".to_string(),
                1 => "__typename".to_string(),
                2 => {
                    let inner = self.payment(2);
                    format!("... on PaymentEdge {{ cursor node {{ {inner} }} }}")
                }
                3 => {
                    let inner = self.payment(1);
                    let inner = format!("node {{ {inner} }}");
                    self.fragment("PaymentEdge", inner)
                }
                _ => {
                    let inner = self.payment(2);
                    format!("node{} {{ {inner} }}", self.kept())
                }
            });
        }
        items.join(" ")
    }

    fn document(&mut self, order: &str) -> String {
        self.fragments.clear();
        let page = format!("payments(first: 10, orderBy: {{field: {order}, direction: ASC}})");
        let list = match self.below(4) {
            0 => format!("edges {{ {} }}", self.edge()),
            1 => format!("nodes {{ {} }}", self.payment(2)),
            2 => {
                let edges = self.edge();
                format!("edges {{ {edges} }} nodes {{ {} }}", self.payment(2))
            }
            // The list given twice under one key: each resolved on its own, then merged.
            _ => {
                let edges = self.edge();
                let again = self.edge();
                let again = self.fragment("PaymentConnection", format!("edges {{ {again} }}"));
                format!("edges {{ {edges} }} {again}")
            }
        };
        // The page itself given twice under one key, once through a fragment on `Account`.
        let twice = if self.below(4) == 0 {
            let inner = format!("{page} {{ nodes {{ {} }} }}", self.payment(1));
            self.fragment("Account", inner)
        } else {
            String::new()
        };
        format!(
            "query Sweep($yes: Boolean!, $no: Boolean!) {{ viewer {{ id @include(if: $yes) @skip(if: $no) {page} {{ {list} }} {twice} }} }} {}",
            self.fragments.join(" ")
        )
    }
}

/// The flags of a sweep's `round`: `$yes` true and `$no` false, and every other round the
/// other way, so that what the sweep's directives keep is dropped and the other way round.
pub(crate) fn flags_of(round: usize) -> Value {
    let turned = round % 2 == 1;
    json!({"yes": !turned, "no": turned})
}

/// Whether `document` holds a fragment (inline or spread) with a directive that drops it when
/// `$yes` is true and `$no` false, and keeps it the other way round.
pub(crate) fn drops_a_fragment(document: &str) -> bool {
    let dropped = [" @include(if: $no)", " @skip(if: $yes)"];
    let inline = dropped.iter().any(|directive| {
        document.match_indices(directive).any(|(at, _)| {
            document[at + directive.len()..]
                .trim_start()
                .starts_with('{')
        })
    });
    let spread = document.match_indices("...F").any(|(at, _)| {
        let rest = document[at + 4..].trim_start_matches(|c: char| c.is_ascii_digit());
        dropped.iter().any(|directive| rest.starts_with(directive))
    });
    inline || spread
}

/// The answer to `document` (with `$yes` true and `$no` false), which must hold no error.
pub(crate) async fn answer(app: &TestApp, key: &str, document: &str) -> String {
    answer_with(app, key, document, json!({"yes": true, "no": false})).await
}

/// The answer to `document` with `variables`, which must hold no error.
pub(crate) async fn answer_with(
    app: &TestApp,
    key: &str,
    document: &str,
    variables: Value,
) -> String {
    let response = app
        .http
        .post(format!("{}/graphql", app.address))
        .bearer_auth(key)
        .json(&json!({"query": document, "variables": variables}))
        .send()
        .await
        .expect("sent");
    assert_eq!(response.status(), 200, "{document}");
    let text = response.text().await.expect("a body");
    assert!(!text.contains("\"errors\""), "{document}: {text}");
    text
}

on_both_backends! {
    async fn a_page_answers_alike_written_from_its_rows_or_field_by_field(app: TestApp) {
        let (_, key) = app.account("Alice").await;
        // Payments in each state a row can show: described, declined, authorized, waiting
        // for the customer, canceled with a reason, refunded in part.
        let inputs = [
            json!({"amount": 1200, "currency": "EUR", "source": "tok_mastercard", "description": "a gift",
                "reference": "order 8812", "metadata": [{"key": "order", "value": "8812"}, {"key": "cart", "value": "c-1"}]}),
            json!({"amount": 700, "currency": "USD", "source": "tok_chargeDeclined"}),
            json!({"amount": 900, "currency": "USD", "source": "tok_visa", "captureMethod": "MANUAL"}),
            json!({"amount": 300, "currency": "JPY", "source": "tok_threeDSecure", "returnUrl": "https://shop.example/back"}),
            json!({"amount": 1000, "currency": "USD", "source": "tok_visa", "description": "in part"}),
            json!({"amount": 400, "currency": "USD", "source": "tok_visa", "captureMethod": "MANUAL"}),
        ];
        let mut ids = Vec::new();
        for (i, input) in inputs.into_iter().enumerate() {
            let created = create(&app, &key, &format!("p{i}"), input).await;
            ids.push(created["payment"]["id"].as_str().expect("created").to_string());
        }
        assert_eq!(refund(&app, &key, "r", &ids[4], Some(250)).await.0, 200);
        let canceled = app
            .query(
                &key,
                "mutation($id: ID!) { cancelPayment(paymentId: $id, reason: FRAUDULENT) { payment { status } } }",
                json!({"id": ids[5]}),
            )
            .await;
        assert_eq!(canceled["cancelPayment"]["payment"]["status"], "CANCELED", "{canceled}");
        let everything = format!(
            "{{ payments(first: 10) {{ nodes {{ {} nextAction {{ type redirectUrl }} metadata {{ key value }} }} }} }}",
            SCALARS.join(" ")
        );
        let shown: Value = app.query(&key, &everything, json!({})).await;
        let nodes = shown["payments"]["nodes"].as_array().expect("nodes").clone();
        for (field, value) in [
            ("description", json!("a gift")),
            ("reference", json!("order 8812")),
            ("metadata", json!([{"key": "cart", "value": "c-1"}, {"key": "order", "value": "8812"}])),
            ("failureCode", json!("card_declined")),
            ("status", json!("REQUIRES_CAPTURE")),
            ("status", json!("REQUIRES_ACTION")),
            ("cancellationReason", json!("FRAUDULENT")),
            ("amountRefunded", json!(250)),
        ] {
            assert!(nodes.iter().any(|n| n[field] == value), "{field} {value}: {shown}");
        }
        assert!(nodes.iter().any(|n| n["nextAction"]["redirectUrl"].is_string()), "{shown}");
        assert!(nodes.iter().any(|n| n["captureBefore"].is_string()), "{shown}");

        let slow = app
            .another_instance_with(|config| config.resolve_field_by_field = true)
            .await;
        let mut sweep = Sweep::new(0x9e37_79b9_7f4a_7c15);
        // Then pages whose payments also show their events and refunds: each payment's row
        // fields written straight in, the nested lists by the page's loaders.
        for (nested, rounds) in [(false, 80), (true, 40)] {
            sweep.nested = nested;
            for round in 0..rounds {
                let document = sweep.document(["CREATED_AT", "AMOUNT"][round % 2]);
                let fast = answer(&app, &key, &document).await;
                let usual = answer(&slow, &key, &document).await;
                same(&fast, &usual, &document);
            }
        }
        // A payment on its own is answered alike too, its events and refunds (resolved by
        // their loaders beside the row's fields) among its fields, in the order selected.
        sweep.nested = true;
        // (flags turned, a fragment dropped by its directive) pairs the documents held.
        let mut swept = std::collections::BTreeSet::new();
        for round in 0..40 {
            sweep.fragments.clear();
            let id = &ids[round % ids.len()];
            let selection = sweep.payment(2);
            let document = format!(
                "query Sweep($yes: Boolean!, $no: Boolean!) {{ payment(id: \"{id}\") {{ \
                 x_id: id @include(if: $yes) @skip(if: $no) {selection} }} }} {}",
                sweep.fragments.join(" ")
            );
            let flags = flags_of(round);
            swept.insert(("payment", flags["no"] == true, drops_a_fragment(&document)));
            let fast = answer_with(&app, &key, &document, flags.clone()).await;
            same(&fast, &answer_with(&slow, &key, &document, flags).await, &document);
        }
        // And objects found by id, through fragments on `Payment` and `Node`; an unknown id
        // answers null among them.
        let listed = ids
            .iter()
            .map(|id| format!("\"{id}\""))
            .chain(["\"pay_00000000000000000000000000\"".to_string()])
            .collect::<Vec<_>>()
            .join(", ");
        for round in 0..40 {
            sweep.fragments.clear();
            let on = ["... on Payment", "... on Payment @include(if: $yes)", "... on Node"][round % 3];
            let inner = if on == "... on Node" { "id __typename".to_string() } else { sweep.payment(2) };
            let found = if round % 2 == 0 {
                format!("node(id: \"{}\")", ids[round % ids.len()])
            } else {
                format!("nodes(ids: [{listed}])")
            };
            let document = format!(
                "query Sweep($yes: Boolean!, $no: Boolean!) {{ {found} {{ \
                 x_id: id @include(if: $yes) @skip(if: $no) __typename {on} {{ {inner} }} }} }} {}",
                sweep.fragments.join(" ")
            );
            let flags = flags_of(round / 3);
            let root = if round % 2 == 0 { "node" } else { "nodes" };
            swept.insert((root, flags["no"] == true, drops_a_fragment(&document)));
            let fast = answer_with(&app, &key, &document, flags.clone()).await;
            same(&fast, &answer_with(&slow, &key, &document, flags).await, &document);
        }
        // Each root had fragments its directives dropped, and kept with the flags turned.
        for root in ["payment", "node", "nodes"] {
            for turned in [false, true] {
                assert!(swept.contains(&(root, turned, true)), "{root} {turned}: {swept:?}");
            }
        }
    }
}

on_both_backends! {
    async fn a_kept_plan_follows_the_flags_each_request_sends(app: TestApp) {
        // A page's plan (which fields its rows answer, which columns it reads, whether it
        // counts) is kept with the document it was made from: the same text sent again with
        // other values of the flags `@skip` and `@include` read must be planned for those
        // values, and each answer must be the one the usual path gives for them.
        let (_, key) = app.account("Alice").await;
        for (i, description) in ["a gift", "a loan"].into_iter().enumerate() {
            let input = json!({"amount": 500 + i, "currency": "USD", "source": "tok_visa",
                "description": description});
            create(&app, &key, &format!("k{i}"), input).await;
        }
        let slow = app
            .another_instance_with(|config| config.resolve_field_by_field = true)
            .await;
        let document = "query Kept($yes: Boolean!, $no: Boolean!) { payments(first: 5) { \
                        totalCount @include(if: $yes) edges { cursor @skip(if: $yes) \
                        node { id ...Shown @include(if: $yes) amount @skip(if: $no) } } \
                        nodes @include(if: $no) { description } } } \
                        fragment Shown on Payment { description status }";
        // A payment on its own, and each payment of a page that shows their events: the
        // row's fields and the events' place, kept the same way.
        let direct = "query Direct($yes: Boolean!, $no: Boolean!) { payments(first: 5) { \
                      nodes { id ...Shown @skip(if: $no) events @include(if: $yes) { toStatus } } } \
                      node(id: \"ID\") { ... on Payment @include(if: $no) { amount ...Shown } id } } \
                      fragment Shown on Payment { description refunds @include(if: $yes) { id } }";
        let first = app.query(&key, "{ payments(first: 1) { nodes { id } } }", json!({})).await;
        let id = first["payments"]["nodes"][0]["id"].as_str().expect("an id").to_string();
        let direct = direct.replace("ID", &id);
        let flags = [(true, false), (false, true), (true, true), (false, false), (true, false)];
        let mut answers = Vec::new();
        // Each flag pair twice in a row: the second finds the plan the first kept.
        for (yes, no) in flags.into_iter().flat_map(|pair| [pair, pair]) {
            let variables = json!({"yes": yes, "no": no});
            let fast = answer_with(&app, &key, document, variables.clone()).await;
            let usual = answer_with(&slow, &key, document, variables.clone()).await;
            same(&fast, &usual, document);
            answers.push(((yes, no), fast));
            let fast = answer_with(&app, &key, &direct, variables.clone()).await;
            let usual = answer_with(&slow, &key, &direct, variables).await;
            same(&fast, &usual, &direct);
        }
        let shown = |flags: (bool, bool)| &answers.iter().find(|(f, _)| *f == flags).expect("sent").1;
        let (counted, plain) = (shown((true, false)), shown((false, false)));
        assert!(counted.contains("\"totalCount\":2") && counted.contains("a gift"), "{counted}");
        assert!(!plain.contains("totalCount") && !plain.contains("a gift"), "{plain}");
        assert!(plain.contains("\"cursor\""), "{plain}");
        assert!(shown((false, true)).contains("\"nodes\":[{\"description\":\"a loan\"}"), "{}", shown((false, true)));
    }
}

on_both_backends! {
    async fn a_selection_whose_every_field_is_skipped_is_an_empty_object(app: TestApp) {
        // As the GraphQL spec executes it: `{}`, not null (the fields are non-null lists of
        // non-null payments), written from the rows or field by field; and merged with
        // another selection of the same key, whichever of the two is answered first.
        let (_, key) = app.account("Alice").await;
        for i in 0..2 {
            let input = json!({"amount": 500 + i, "currency": "USD", "source": "tok_visa",
                "reference": format!("r{i}")});
            create(&app, &key, &format!("e{i}"), input).await;
        }
        let slow = app
            .another_instance_with(|config| config.resolve_field_by_field = true)
            .await;
        let merged = "{ viewer { payments(first: 2) { nodes { id @include(if: false) } } ...F } } \
                      fragment F on Account { payments(first: 2) { nodes { reference } } }";
        let merged_first = "{ viewer { ...F payments(first: 2) { nodes { id @include(if: false) } } } } \
                            fragment F on Account { payments(first: 2) { nodes { reference } } }";
        for (document, data) in [
            ("{ viewer { id @include(if: false) } }", json!({"viewer": {}})),
            ("{ viewer @include(if: false) { id } }", json!({})),
            (
                "{ payments(first: 2) { nodes { ... on Payment @include(if: false) { id } } edges { node { ...P @skip(if: true) } } } } fragment P on Payment { id }",
                json!({"payments": {"nodes": [{}, {}], "edges": [{"node": {}}, {"node": {}}]}}),
            ),
            (merged, json!({"viewer": {"payments": {"nodes": [{"reference": "r1"}, {"reference": "r0"}]}}})),
            (merged_first, json!({"viewer": {"payments": {"nodes": [{"reference": "r1"}, {"reference": "r0"}]}}})),
        ] {
            // Several times: the two `payments` of the merged documents are merged in the
            // order they are selected, whichever is answered first.
            for _ in 0..5 {
                for instance in [&app, &slow] {
                    let answer: Value = serde_json::from_str(&answer(instance, &key, document).await)
                        .expect("JSON");
                    assert_eq!(answer["data"], data, "{document}: {answer}");
                }
            }
        }
    }
}

on_both_backends! {
    async fn fields_are_answered_in_the_order_selected_whichever_is_ready_first(app: TestApp) {
        // `totalCount` of a filter the status counts do not answer waits for a statement of
        // its own, a payment's `events` and `refunds` for their loaders, while the fields
        // beside them are ready at once: the answer keeps the selection's order all the same,
        // as the GraphQL spec serializes it, on both ways of answering.
        let (_, key) = app.account("Alice").await;
        let paid = create(&app, &key, "o1", json!({"amount": 900, "currency": "USD", "source": "tok_visa"})).await;
        let id = paid["payment"]["id"].as_str().expect("an id").to_string();
        assert_eq!(refund(&app, &key, "o1-r", &id, Some(100)).await.0, 200);
        let slow = app
            .another_instance_with(|config| config.resolve_field_by_field = true)
            .await;
        let page = |fields: &[&str]| {
            format!("{{ payments(first: 2, filter: {{amountMin: 1}}) {{ {} }} }}", fields.join(" "))
        };
        let one = |fields: &[&str]| format!("{{ payment(id: \"{id}\") {{ {} }} }}", fields.join(" "));
        let count = "totalCount";
        let edges = "edges { node { id } }";
        let info = "pageInfo { hasNextPage }";
        let cases = [
            (page(&[count, info, edges]), vec!["totalCount", "pageInfo", "edges"]),
            (page(&[edges, count, info]), vec!["edges", "totalCount", "pageInfo"]),
            (
                one(&["events { toStatus }", "id", "refunds { amount }", "amount"]),
                vec!["events", "id", "refunds", "amount"],
            ),
            (
                one(&["amount", "refunds { amount }", "id", "events { toStatus }"]),
                vec!["amount", "refunds", "id", "events"],
            ),
        ];
        for (document, keys) in cases {
            for _ in 0..5 {
                for instance in [&app, &slow] {
                    let text = answer(instance, &key, &document).await;
                    let at: Vec<usize> = keys
                        .iter()
                        .map(|k| text.find(&format!("\"{k}\":")).unwrap_or_else(|| panic!("{k}: {text}")))
                        .collect();
                    assert!(at.windows(2).all(|w| w[0] < w[1]), "{document}: {text}");
                }
            }
        }
    }
}

/// Two answers to `document`, written from the rows and field by field: the same bytes, also
/// where the usual path waits for a field (a payment's events or refunds, a page given twice),
/// since fields are answered in the order the selection gives them, not as they come in.
pub(crate) fn same(fast: &str, usual: &str, document: &str) {
    assert_eq!(fast, usual, "{document}");
}

// Over HTTP a page's rows are written as JSON text; a query over the WebSocket is answered as a
// value tree. Both answer the same page alike, and the socket's answer holds no row in any
// other form (a row carried as text outside HTTP would show as a list of bytes).
on_both_backends! {
    async fn a_page_read_over_the_websocket_is_answered_as_over_http(app: TestApp) {
        use futures_util::SinkExt;
        use tokio_tungstenite::tungstenite::Message;

        let (_, key) = app.account("Alice").await;
        for i in 0..3 {
            let input = json!({"amount": 500 + i, "currency": "EUR", "source": "tok_visa", "description": format!("row \"{i}\" \\ é")});
            create(&app, &key, &format!("ws{i}"), input).await;
        }
        let document = "query Rows { payments(first: 10) { totalCount edges { cursor node { ...Row } } \
                        nodes { id __typename } } } fragment Row on Payment { id amount currency status description createdAt }";
        let over_http: Value = app.query(&key, document, json!({})).await;
        let mut socket = crate::helpers::connect(&app, &key).await.expect("connected");
        let message = json!({"id": "q", "type": "subscribe", "payload": {"query": document}});
        socket.send(Message::text(message.to_string())).await.expect("sent");
        let next = crate::helpers::next_message(&mut socket).await.expect("an answer");
        assert_eq!(next["type"], "next", "{next}");
        assert!(next["payload"].get("errors").is_none(), "{next}");
        assert_eq!(next["payload"]["data"], over_http, "{next}");
        let edges = over_http["payments"]["edges"].as_array().expect("edges");
        assert_eq!(edges.len(), 3, "{over_http}");
        assert!(edges.iter().all(|e| e["node"]["description"].is_string()), "{over_http}");
    }
}
