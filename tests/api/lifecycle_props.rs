//! Property test: random sequences of create, confirm, cancel, refund, processor webhooks
//! (duplicated and reordered) and reconciliation runs; after every step the stored payments
//! agree with their event logs, refunds add up, and no transition outside the table exists.

use std::time::Duration;

use graphpay::service::reconcile::ReconcileSettings;
use proptest::prelude::*;
use serde_json::{Value, json};

use crate::helpers::{
    Backend, CANCEL, CONFIRM, CREATE, REFUND, TestApp, assert_consistent, charge_event,
    create_payload, refund_event, status_of,
};

const SOURCES: [&str; 4] = [
    "tok_visa",
    "tok_chargeDeclined",
    "tok_async",
    "tok_refundFail",
];

#[derive(Clone, Debug)]
enum Step {
    Create {
        amount: i64,
        source: usize,
        confirm: bool,
    },
    Confirm {
        payment: usize,
    },
    Cancel {
        payment: usize,
    },
    Refund {
        payment: usize,
        amount: Option<i64>,
    },
    ChargeWebhook {
        payment: usize,
        succeeded: bool,
    },
    RefundWebhook {
        payment: usize,
        succeeded: bool,
    },
    ResendWebhook {
        event: usize,
    },
    Reconcile,
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        3 => (100i64..1000, 0usize..4, any::<bool>()).prop_map(|(amount, source, confirm)| Step::Create { amount, source, confirm }),
        1 => (0usize..8).prop_map(|payment| Step::Confirm { payment }),
        1 => (0usize..8).prop_map(|payment| Step::Cancel { payment }),
        3 => (0usize..8, prop::option::of(1i64..700)).prop_map(|(payment, amount)| Step::Refund { payment, amount }),
        2 => (0usize..8, any::<bool>()).prop_map(|(payment, succeeded)| Step::ChargeWebhook { payment, succeeded }),
        2 => (0usize..8, any::<bool>()).prop_map(|(payment, succeeded)| Step::RefundWebhook { payment, succeeded }),
        2 => (0usize..16).prop_map(|event| Step::ResendWebhook { event }),
        1 => Just(Step::Reconcile),
    ]
}

struct World {
    payments: Vec<String>,
    sent: Vec<Value>,
    keys: usize,
}

impl World {
    fn key(&mut self) -> String {
        self.keys += 1;
        format!("k{}", self.keys)
    }

    fn pick(&self, i: usize) -> Option<String> {
        (!self.payments.is_empty()).then(|| self.payments[i % self.payments.len()].clone())
    }
}

async fn run_steps(app: &TestApp, steps: Vec<Step>) {
    let (account, key) = app.account("Prop").await;
    let mut world = World {
        payments: Vec::new(),
        sent: Vec::new(),
        keys: 0,
    };
    for step in steps {
        match step {
            Step::Create {
                amount,
                source,
                confirm,
            } => {
                let input = json!({"amount": amount, "currency": "EUR", "source": SOURCES[source], "confirm": confirm});
                let idem = world.key();
                let (_, body) = app
                    .post(Some(&key), CREATE, json!({"input": input, "key": idem}))
                    .await;
                if let Some(id) = create_payload(&body)["payment"]["id"].as_str() {
                    world.payments.push(id.to_string());
                }
            }
            Step::Confirm { payment } => {
                if let Some(id) = world.pick(payment) {
                    let idem = world.key();
                    app.post(Some(&key), CONFIRM, json!({"id": id, "key": idem}))
                        .await;
                }
            }
            Step::Cancel { payment } => {
                if let Some(id) = world.pick(payment) {
                    app.post(Some(&key), CANCEL, json!({"id": id})).await;
                }
            }
            Step::Refund { payment, amount } => {
                if let Some(id) = world.pick(payment) {
                    let idem = world.key();
                    app.post(
                        Some(&key),
                        REFUND,
                        json!({"input": {"paymentId": id, "amount": amount}, "key": idem}),
                    )
                    .await;
                }
            }
            Step::ChargeWebhook { payment, succeeded } => {
                if let Some(id) = world.pick(payment) {
                    // The sandbox settles its side first, as it does before it sends a webhook.
                    let to = if succeeded { "approved" } else { "declined" };
                    graphpay::persistence::sandbox::settle(&app.db, &id, "pending", to)
                        .await
                        .unwrap();
                    let event =
                        charge_event(&format!("evt_{}", ulid::Ulid::generate()), &id, succeeded);
                    assert_eq!(app.webhook(&event, 0).await.0, 200);
                    world.sent.push(event);
                }
            }
            Step::RefundWebhook { payment, succeeded } => {
                if let Some(id) = world.pick(payment) {
                    let refunds = status_of(app, &key, &id).await["refunds"].clone();
                    if let Some(last) = refunds.as_array().and_then(|r| r.last()) {
                        let refund_id = last["id"].as_str().unwrap().to_string();
                        let event = refund_event(
                            &format!("evt_{}", ulid::Ulid::generate()),
                            &refund_id,
                            succeeded,
                        );
                        assert_eq!(app.webhook(&event, 0).await.0, 200);
                        world.sent.push(event);
                    }
                }
            }
            Step::ResendWebhook { event } => {
                if !world.sent.is_empty() {
                    let again = world.sent[event % world.sent.len()].clone();
                    let (status, body) = app.webhook(&again, 0).await;
                    assert_eq!((status, body["status"].as_str()), (200, Some("duplicate")));
                }
            }
            Step::Reconcile => {
                let settings = ReconcileSettings {
                    pending_ttl: Duration::ZERO,
                    processing_deadline: Duration::ZERO,
                };
                app.payments.reconcile(settings).await.unwrap();
            }
        }
        assert_consistent(app, &account).await;
    }
}

fn run(backend: Backend, cases: u32) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let app = rt.block_on(TestApp::quiet(backend));
    let config = ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    };
    proptest!(config, |(steps in prop::collection::vec(step(), 1..30))| {
        rt.block_on(run_steps(&app, steps));
    });
    drop(app);
}

#[test]
fn random_operation_sequences_keep_payments_consistent_sqlite() {
    run(Backend::Sqlite, 24);
}

#[test]
#[cfg_attr(
    not(pg_tests),
    ignore = "TEST_DATABASE_URL is not set: PostgreSQL test NOT run"
)]
fn random_operation_sequences_keep_payments_consistent_postgres() {
    run(Backend::Postgres, 12);
}
