//! Reading GraphQL responses: the parts of a body that many tests look at.

use serde_json::Value;

/// The `extensions.code` of a response's first error.
pub fn first_error_code(body: &Value) -> String {
    body["errors"][0]["extensions"]["code"]
        .as_str()
        .unwrap_or_else(|| panic!("expected an error with a code, got {body}"))
        .to_string()
}
