//! Reading GraphQL responses: the parts of a body that many tests look at.

use serde_json::Value;

/// The `extensions.code` of a response's first error.
pub fn first_error_code(body: &Value) -> String {
    body["errors"][0]["extensions"]["code"]
        .as_str()
        .unwrap_or_else(|| panic!("expected an error with a code, got {body}"))
        .to_string()
}

/// The `message` of a response's first error.
pub fn first_error_message(body: &Value) -> &str {
    body["errors"][0]["message"]
        .as_str()
        .unwrap_or_else(|| panic!("expected an error with a message, got {body}"))
}

/// The extension `name` of a response's first error (`from`, `operation`, `cost`,
/// `retryAfterSeconds`, ...); `null` when it has none.
pub fn error_extension<'b>(body: &'b Value, name: &str) -> &'b Value {
    &body["errors"][0]["extensions"][name]
}

/// `extensions.cost`: what the request was costed and charged, and the account's budget.
pub fn cost(body: &Value) -> &Value {
    &body["extensions"]["cost"]
}

/// `data.createPayment` of a `createPayment` response.
pub fn create_payload(body: &Value) -> &Value {
    &body["data"]["createPayment"]
}

/// `data.refundPayment` of a `refundPayment` response.
pub fn refund_payload(body: &Value) -> &Value {
    &body["data"]["refundPayment"]
}
