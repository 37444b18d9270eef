//! The event log's and the webhook connections' pages answer alike however their documents
//! select: written from their rows (events, with each event's payment as the change left it;
//! webhook endpoints; an endpoint's deliveries) or resolved field by field (an instance
//! started with `resolve_field_by_field`). A sweep of documents, with named and inline
//! fragments, aliases, response keys given twice, `@skip`/`@include`, `__typename`, both
//! lists and a list given twice, and fields a row does not answer (an event's refund, a
//! delivery's payment and attempts, an endpoint's deliveries), which send the whole list the
//! usual way. An event written before the log kept its payment is answered by its resolver.

use std::time::Duration;

use graphpay::merchant_webhooks::schedule::RetrySchedule;
use serde_json::{Value, json};

use crate::helpers::{Answer, Backend, Receiver, TestApp, create, on_both_backends_fn, refund};
use crate::selections::{Sweep, answer_with, drops_a_fragment, flags_of, same};

/// Documents for listed types, drawn by the payments sweep's generator.
struct Walk(Sweep);

/// A listed type: its name, its edge's, its connection's, and what its selections pick from.
struct Listed {
    on: &'static str,
    edge: &'static str,
    connection: &'static str,
    fields: &'static [&'static str],
}

const EVENT: Listed = Listed {
    on: "Event",
    edge: "EventEdge",
    connection: "EventConnection",
    fields: &[
        "__typename",
        "id",
        "type",
        "createdAt",
        "payment { id status amount amountRefunded description updatedAt }",
        "payment { __typename ... on Payment { currency metadata { key value } } }",
        "payment { ...on Node { id } nextAction { type redirectUrl } }",
        "payment { id events { toStatus } }",
        "payment { amountCapturable amountCaptured amountRefundable cancellationReason \
         captureBefore captureMethod createdAt failureCode failureMessage reference source }",
        "refund { amount status }",
    ],
};

const ENDPOINT: Listed = Listed {
    on: "WebhookEndpoint",
    edge: "WebhookEndpointEdge",
    connection: "WebhookEndpointConnection",
    fields: &[
        "__typename",
        "id",
        "url",
        "description",
        "statuses",
        "eventTypes",
        "enabled",
        "disabledReason",
        "previousSecretExpiresAt",
        "createdAt",
        "deliveries(first: 2) { nodes { id } }",
    ],
};

const DELIVERY: Listed = Listed {
    on: "WebhookDelivery",
    edge: "WebhookDeliveryEdge",
    connection: "WebhookDeliveryConnection",
    fields: &[
        "__typename",
        "id",
        "eventId",
        "eventType",
        "status",
        "nextAttemptAt",
        "createdAt",
        "payment { id status }",
        "attempts { statusCode }",
    ],
};

/// The field's name (before its arguments or selection).
fn name_of(field: &str) -> &str {
    field.split([' ', '(']).next().unwrap_or(field)
}

/// `field` with `directive` after its name and arguments, before its selection.
fn with_directive(field: &str, directive: &str) -> String {
    match field.find(" {") {
        Some(at) => format!("{}{directive}{}", &field[..at], &field[at..]),
        None => format!("{field}{directive}"),
    }
}

impl Walk {
    /// A field of `listed`, mostly one its row answers.
    fn field(&mut self, listed: &Listed) -> &'static str {
        let leaves = listed.fields.iter().filter(|f| !f.contains(' ')).count();
        if self.0.below(8) == 0 {
            listed.fields[self.0.below(listed.fields.len())]
        } else if self.0.below(3) == 0 {
            listed.fields[leaves + self.0.below(listed.fields.len() - leaves)]
        } else {
            listed.fields[self.0.below(leaves)]
        }
    }

    /// A selection of `listed`'s fields, `depth` fragments deep at most.
    fn object(&mut self, listed: &Listed, depth: usize) -> String {
        let count = 1 + self.0.below(4);
        let mut items = Vec::new();
        for _ in 0..count {
            let item = match self.0.below(if depth > 0 { 7 } else { 4 }) {
                0 | 1 => {
                    let field = self.field(listed);
                    let alias = if self.0.below(4) == 0 {
                        format!("x_{}: ", name_of(field))
                    } else {
                        String::new()
                    };
                    format!("{alias}{}", with_directive(field, self.0.kept()))
                }
                // A field given twice: the same key, merged.
                2 => {
                    let field = self.field(listed);
                    format!("{field} {field}")
                }
                // A field dropped by its directive.
                3 => {
                    let field = self.field(listed);
                    let dropped = [" @include(if: $no)", " @skip(if: $yes)"][self.0.below(2)];
                    format!("{} id", with_directive(field, dropped))
                }
                4 | 5 => {
                    let on = [
                        format!("on {} ", listed.on),
                        "on Node ".to_string(),
                        String::new(),
                    ][self.0.below(3)]
                    .clone();
                    let inner = if on == "on Node " {
                        "id".to_string()
                    } else {
                        self.object(listed, depth - 1)
                    };
                    format!("... {on}{}{{ {inner} }}", self.0.flag().trim_start())
                }
                // A named fragment on the type, or on `Node` (what `Node` has).
                _ => {
                    let spread = if self.0.below(4) == 0 {
                        self.0.fragment("Node", "id __typename".to_string())
                    } else {
                        let inner = self.object(listed, depth - 1);
                        self.0.fragment(listed.on, inner)
                    };
                    format!("{spread}{}", self.0.flag())
                }
            };
            items.push(item);
        }
        items.join(" ")
    }

    /// A selection of an edge's fields.
    fn edge(&mut self, listed: &Listed) -> String {
        let count = 1 + self.0.below(3);
        let mut items = Vec::new();
        for _ in 0..count {
            items.push(match self.0.below(5) {
                0 => "cursor".to_string(),
                1 => "__typename".to_string(),
                2 => {
                    let inner = self.object(listed, 1);
                    format!("... on {} {{ cursor node {{ {inner} }} }}", listed.edge)
                }
                3 => {
                    let inner = self.object(listed, 1);
                    self.0.fragment(listed.edge, format!("node {{ {inner} }}"))
                }
                _ => {
                    let inner = self.object(listed, 2);
                    format!("node{} {{ {inner} }}", self.0.kept())
                }
            });
        }
        items.join(" ")
    }

    /// What a connection of `listed` selects: edges, nodes, both, or edges given twice
    /// (after a flag that uses the document's variables).
    fn lists(&mut self, listed: &Listed) -> String {
        let lists = match self.0.below(4) {
            0 => format!("edges {{ {} }}", self.edge(listed)),
            1 => format!("nodes {{ {} }}", self.object(listed, 2)),
            2 => {
                let edges = self.edge(listed);
                format!("edges {{ {edges} }} nodes {{ {} }}", self.object(listed, 2))
            }
            _ => {
                let edges = self.edge(listed);
                let again = self.edge(listed);
                let again = self
                    .0
                    .fragment(listed.connection, format!("edges {{ {again} }}"));
                format!("edges {{ {edges} }} {again}")
            }
        };
        format!("pageInfo {{ hasNextPage @include(if: $yes) @skip(if: $no) }} {lists}")
    }

    fn document(&mut self, root: &str) -> String {
        format!(
            "query Sweep($yes: Boolean!, $no: Boolean!) {{ {root} }} {}",
            self.0.fragments.join(" ")
        )
    }
}

/// Retries days apart, so that a delivery's status and next attempt hold still while the
/// sweep reads them; loopback receivers allowed.
async fn gateway(backend: Backend) -> TestApp {
    TestApp::spawn_with(backend, |c| {
        c.deliveries.policy.allow_private = true;
        c.deliveries.schedule = RetrySchedule {
            base: Duration::from_secs(30 * 86_400),
            cap: Duration::from_secs(30 * 86_400),
            window: Duration::from_secs(60 * 86_400),
        };
    })
    .await
}

const ENDPOINTS: &str = "{ webhookEndpoints(first: 3) { nodes { id
  deliveries(first: 20) { nodes { status attempts { statusCode } } } } } }";

async fn event_and_webhook_pages_answer_alike_written_from_their_rows_or_field_by_field(
    backend: Backend,
) {
    let app = gateway(backend).await;
    let (_, key) = app.account("Alice").await;
    let accepting = Receiver::accepting().await;
    let failing = Receiver::start(|_, _| Answer::Status(500)).await;
    let mut endpoints = Vec::new();
    for (url, extra) in [
        (&accepting.url, json!({"description": "orders \"main\" é"})),
        (
            &failing.url,
            json!({"eventTypes": ["payment.succeeded", "refund.created"]}),
        ),
        (&accepting.url, json!({"statuses": ["FAILED"]})),
    ] {
        let mut input = json!({"url": url});
        input
            .as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        let created = app
            .query(
                &key,
                "mutation($input: CreateWebhookEndpointInput!) { createWebhookEndpoint(input: $input) { endpoint { id } } }",
                json!({"input": input}),
            )
            .await;
        endpoints.push(
            created["createWebhookEndpoint"]["endpoint"]["id"]
                .as_str()
                .unwrap()
                .to_string(),
        );
    }
    let rolled = app
        .query(
            &key,
            "mutation($id: ID!) { rollWebhookEndpointSecret(input: {id: $id, expireOldInSeconds: 3600}) { endpoint { previousSecretExpiresAt } } }",
            json!({"id": endpoints[0]}),
        )
        .await;
    assert!(
        rolled["rollWebhookEndpointSecret"]["endpoint"]["previousSecretExpiresAt"].is_string(),
        "{rolled}"
    );
    let disabled = app
        .query(
            &key,
            "mutation($id: ID!) { updateWebhookEndpoint(input: {id: $id, enabled: false}) { endpoint { enabled } } }",
            json!({"id": endpoints[2]}),
        )
        .await;
    assert_eq!(
        disabled["updateWebhookEndpoint"]["endpoint"]["enabled"], false,
        "{disabled}"
    );

    let inputs = [
        json!({"amount": 1200, "currency": "EUR", "source": "tok_visa", "description": "a gift",
            "metadata": [{"key": "order", "value": "8812"}]}),
        json!({"amount": 700, "currency": "USD", "source": "tok_chargeDeclined"}),
        json!({"amount": 300, "currency": "JPY", "source": "tok_threeDSecure", "returnUrl": "https://shop.example/back"}),
        json!({"amount": 1000, "currency": "USD", "source": "tok_visa"}),
    ];
    let mut ids = Vec::new();
    for (i, input) in inputs.into_iter().enumerate() {
        let created = create(&app, &key, &format!("p{i}"), input).await;
        ids.push(
            created["payment"]["id"]
                .as_str()
                .expect("created")
                .to_string(),
        );
    }
    assert_eq!(refund(&app, &key, "r", &ids[3], Some(250)).await.0, 200);

    // Every event delivered to the accepting endpoint; the failing endpoint's two
    // `payment.succeeded` tried once and pending until a retry days away, and its
    // `refund.created` waiting behind the refunded payment's.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    loop {
        let data = app.query(&key, ENDPOINTS, json!({})).await;
        let logged = app
            .query(&key, "{ events(first: 50) { nodes { id } } }", json!({}))
            .await;
        let logged = logged["events"]["nodes"].as_array().unwrap().len();
        let deliveries = |id: &str| -> Vec<Value> {
            data["webhookEndpoints"]["nodes"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|e| e["id"] == id)
                .flat_map(|e| e["deliveries"]["nodes"].as_array().unwrap().clone())
                .collect()
        };
        let accepted = deliveries(&endpoints[0]);
        let failed = deliveries(&endpoints[1]);
        let tried = |d: &&Value| !d["attempts"].as_array().unwrap().is_empty();
        if accepted.len() == logged
            && accepted.iter().all(|d| d["status"] == "SUCCEEDED")
            && failed.len() == 3
            && failed.iter().filter(tried).count() == 2
            && failed.iter().all(|d| d["status"] == "PENDING")
        {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the deliveries never got there: {data}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }

    // An event's payment is the payment as its change left it, however the document reaches
    // it (the page reads the rows' snapshots only when it shows a payment or a refund): a
    // `payment.<status>` event's payment has that status, although every payment has moved
    // on from `processing` since.
    for shown in [
        "edges { node { type payment { status } } }",
        "edges { ...E } } } fragment E on EventEdge { node { ... on Event { type payment { status } } } } #",
        "nodes { type ... { payment @include(if: true) { status } } }",
        "... on EventConnection { nodes { ...P type } } } } fragment P on Event { payment { status } } #",
    ] {
        let (document, _) = shown.split_once('#').unwrap_or((shown, ""));
        let document = if shown.contains('#') {
            format!("{{ events(first: 50) {{ {document}")
        } else {
            format!("{{ events(first: 50) {{ {document} }} }}")
        };
        let page = app.query(&key, &document, json!({})).await;
        let list = page["events"]["edges"]
            .as_array()
            .or(page["events"]["nodes"].as_array())
            .expect("a list");
        let mut processing = 0;
        for item in list {
            let event = if item.get("node").is_some() {
                &item["node"]
            } else {
                item
            };
            let event_type = event["type"].as_str().expect("a type");
            if let Some(status) = event_type.strip_prefix("payment.")
                && status != "updated"
            {
                assert_eq!(
                    event["payment"]["status"],
                    status.to_uppercase(),
                    "{document}: {page}"
                );
                processing += usize::from(status == "processing");
            }
        }
        assert!(processing >= 3, "{document}: {page}");
    }

    // An event written before the log kept its payment: its resolver loads the payment.
    let first = app
        .query(&key, "{ events(first: 1) { nodes { id } } }", json!({}))
        .await;
    let legacy = first["events"]["nodes"][0]["id"]
        .as_str()
        .expect("an event");
    app.db
        .query_text(&format!(
            "UPDATE payment_events SET snapshot = NULL WHERE id = '{legacy}'"
        ))
        .await
        .expect("updated");

    let slow = app
        .another_instance_with(|config| config.resolve_field_by_field = true)
        .await;
    let mut sweep = Walk(Sweep::new(0x2545_f491_4f6c_dd1d));
    // (root, flags turned, a fragment dropped by its directive, a named fragment on `Node`,
    // every scalar of an event's payment) of each document.
    let mut swept = Vec::new();
    for round in 0..120 {
        sweep.0.fragments.clear();
        let root = match round % 3 {
            0 => {
                let lists = sweep.lists(&EVENT);
                format!("events(first: 20) {{ {lists} }}")
            }
            1 => {
                let lists = sweep.lists(&ENDPOINT);
                format!("webhookEndpoints(first: 10) {{ {lists} }}")
            }
            _ => {
                let lists = sweep.lists(&DELIVERY);
                let endpoint = &endpoints[round % 2];
                format!(
                    "node(id: \"{endpoint}\") {{ ... on WebhookEndpoint {{ deliveries(first: 10) {{ {lists} }} }} }}"
                )
            }
        };
        let document = sweep.document(&root);
        let flags = flags_of(round / 3);
        swept.push((
            round % 3,
            flags["no"] == true,
            drops_a_fragment(&document),
            document.contains(" on Node { id __typename }"),
            document.contains("payment { amountCapturable"),
        ));
        let fast = answer_with(&app, &key, &document, flags.clone()).await;
        let usual = answer_with(&slow, &key, &document, flags).await;
        // Also what the usual path resolves by waiting (a payment's events, a delivery's
        // payment and attempts, an endpoint's deliveries), with its key given twice.
        same(&fast, &usual, &document);
    }
    // Each root had fragments its directives dropped, and kept with the flags turned, and
    // named fragments on `Node`; the event log showed its payments' other scalars.
    for root in 0..3 {
        for turned in [false, true] {
            assert!(
                swept.iter().any(|s| s.0 == root && s.1 == turned && s.2),
                "root {root}, flags turned {turned}: no fragment dropped"
            );
        }
        assert!(swept.iter().any(|s| s.0 == root && s.3), "root {root}");
    }
    assert!(
        swept.iter().any(|s| s.0 == 0 && s.4),
        "an event's payment's scalars"
    );
}

on_both_backends_fn!(
    event_and_webhook_pages_answer_alike_written_from_their_rows_or_field_by_field
);
