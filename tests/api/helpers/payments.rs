//! Payment requests as a client sends them: the operations, and shortcuts for the ones a
//! test needs to succeed; and what the database holds afterwards.

use graphpay::persistence::sandbox;
use serde_json::{Value, json};

use super::{TestApp, first_error_code};

pub const CREATE: &str = "mutation Create($input: CreatePaymentInput!, $key: String!) {
  createPayment(input: $input, idempotencyKey: $key) {
    replayed
    payment { id amount currency status source description failureCode failureMessage amountRefunded amountRefundable events { fromStatus toStatus } }
  }
}";

pub const CONFIRM: &str = "mutation Confirm($id: ID!, $key: String!) {
  confirmPayment(paymentId: $id, idempotencyKey: $key) { replayed payment { id status } }
}";

pub const REFUND: &str = "mutation Refund($input: RefundPaymentInput!, $key: String!) {
  refundPayment(input: $input, idempotencyKey: $key) {
    replayed
    refund { id amount currency status reason failureCode payment { id } }
    payment { id status amount amountRefunded amountRefundable }
  }
}";
pub const CANCEL: &str = "mutation Cancel($id: ID!) { cancelPayment(paymentId: $id) { replayed payment { id status } } }";
const STATUS: &str = "query S($id: ID!) { payment(id: $id) { status amountRefunded refunds { id amount status } events { fromStatus toStatus reason } } }";

/// A `CreatePaymentInput` in USD.
pub fn input(amount: i64, source: &str) -> Value {
    json!({"amount": amount, "currency": "USD", "source": source})
}

/// Creates a payment that must succeed at the GraphQL level; returns the payload.
pub async fn create(app: &TestApp, key: &str, idem: &str, input: Value) -> Value {
    app.query(key, CREATE, json!({"input": input, "key": idem}))
        .await["createPayment"]
        .clone()
}

/// Creates a payment that must succeed; returns its id.
pub async fn created_id(app: &TestApp, key: &str, idem: &str, input: Value) -> String {
    let created = create(app, key, idem, input).await;
    created["payment"]["id"]
        .as_str()
        .unwrap_or_else(|| panic!("no payment in {created}"))
        .to_string()
}

/// Sends a create that must answer `PROCESSOR_UNAVAILABLE`, and returns the key's record
/// afterwards, which must show the claim released (`IN_PROGRESS`), not done.
pub async fn create_while_unavailable(app: &TestApp, key: &str, idem: &str, source: &str) -> Value {
    let (_, body) = app
        .post(
            Some(key),
            CREATE,
            json!({"input": input(100, source), "key": idem}),
        )
        .await;
    assert_eq!(first_error_code(&body), "PROCESSOR_UNAVAILABLE", "{body}");
    let record = app
        .query(
            key,
            "query($key: String!) { idempotencyRecord(key: $key) { state payment { status } } }",
            json!({"key": idem}),
        )
        .await;
    let record = record["idempotencyRecord"].clone();
    assert_eq!(
        record["state"], "IN_PROGRESS",
        "the claim is released, not done"
    );
    record
}

/// The payment as `STATUS` reads it: status, refunds and events.
pub async fn status_of(app: &TestApp, key: &str, id: &str) -> Value {
    app.query(key, STATUS, json!({"id": id})).await["payment"].clone()
}

/// Sends `REFUND`; returns the HTTP status and the body, errors included.
pub async fn refund(
    app: &TestApp,
    key: &str,
    idem: &str,
    payment_id: &str,
    amount: Option<i64>,
) -> (u16, Value) {
    app.post(
        Some(key),
        REFUND,
        json!({"input": {"paymentId": payment_id, "amount": amount}, "key": idem}),
    )
    .await
}

/// Charges the built-in sandbox has settled.
pub async fn charges(app: &TestApp) -> u64 {
    sandbox::charge_count(&app.db).await.unwrap()
}

/// Rows in `table`, over all accounts.
pub async fn row_count(app: &TestApp, table: &str) -> i64 {
    app.db
        .query_text(&format!("SELECT COUNT(*) FROM {table}"))
        .await
        .unwrap()[0][0]
        .parse()
        .unwrap()
}
