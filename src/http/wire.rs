//! A GraphQL response as GraphQL over HTTP sends it: the body in the negotiated media type,
//! without `data` when the request failed before execution, and what makes its status (a
//! request error, or the budget's `Retry-After`).

use async_graphql::BatchResponse;
use axum::http::header::CONTENT_TYPE;
use axum::http::{HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};

use super::media;
use crate::error::codes;
use crate::graphql::json;

/// The seconds to wait when the account's budget refused the request.
pub(super) fn retry_after(response: &async_graphql::Response) -> Option<u64> {
    response.errors.iter().find_map(|err| {
        let ext = err.extensions.as_ref()?;
        match (ext.get("code"), ext.get("retryAfterSeconds")) {
            (Some(async_graphql::Value::String(code)), Some(async_graphql::Value::Number(n)))
                if code == codes::THROTTLED =>
            {
                n.as_u64()
            }
            _ => None,
        }
    })
}

/// Whether the request failed before execution began: no data, and no error that belongs to
/// a field.
pub(super) fn is_request_error(response: &async_graphql::Response) -> bool {
    response.data == async_graphql::Value::Null
        && !response.errors.is_empty()
        && response.errors.iter().all(|err| err.path.is_empty())
}

/// A response as GraphQL over HTTP sends it: without `data` when the request failed before
/// execution began (a `data` of null would say that execution ran and failed). `data` is
/// written by [`json::write_value`], which writes the rows a page carries as JSON text.
fn write_response(out: &mut Vec<u8>, response: &async_graphql::Response) -> serde_json::Result<()> {
    out.push(b'{');
    let mut first = true;
    let mut key = |out: &mut Vec<u8>, name: &str| {
        if !std::mem::take(&mut first) {
            out.push(b',');
        }
        out.extend_from_slice(name.as_bytes());
    };
    if !is_request_error(response) {
        key(out, "\"data\":");
        json::write_value(out, &response.data)?;
    }
    if !response.errors.is_empty() {
        key(out, "\"errors\":");
        serde_json::to_writer(&mut *out, &response.errors)?;
    }
    if !response.extensions.is_empty() {
        key(out, "\"extensions\":");
        serde_json::to_writer(&mut *out, &response.extensions)?;
    }
    out.push(b'}');
    Ok(())
}

/// The body of `response`: one response, or a batch's as a list.
fn body_of(response: &BatchResponse) -> serde_json::Result<Vec<u8>> {
    let responses = match response {
        BatchResponse::Single(one) => std::slice::from_ref(one),
        BatchResponse::Batch(many) => many.as_slice(),
    };
    // Room for the rows a page carries as JSON text, and for what is written around them.
    let carried: usize = responses
        .iter()
        .map(|one| json::carried_len(&one.data))
        .sum();
    let mut out = Vec::with_capacity(carried + 4096);
    match response {
        BatchResponse::Single(one) => write_response(&mut out, one)?,
        BatchResponse::Batch(many) => {
            out.push(b'[');
            for (i, one) in many.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_response(&mut out, one)?;
            }
            out.push(b']');
        }
    }
    Ok(out)
}

pub(super) fn respond(
    status: StatusCode,
    response: &BatchResponse,
    graphql_media: bool,
) -> Response {
    let content_type = if graphql_media {
        media::GRAPHQL_RESPONSE
    } else {
        media::JSON
    };
    match body_of(response) {
        Ok(body) => (
            status,
            [(CONTENT_TYPE, HeaderValue::from_static(content_type))],
            body,
        )
            .into_response(),
        Err(err) => {
            tracing::error!(error = %err, "could not serialise a response");
            StatusCode::INTERNAL_SERVER_ERROR.into_response()
        }
    }
}

/// The name of the first named operation in a document, for logs; a cheap scan, not a parse.
pub fn operation_name_in(query: &str) -> Option<&str> {
    let rest = query.trim_start();
    let rest = ["query", "mutation", "subscription"]
        .iter()
        .find_map(|kw| rest.strip_prefix(kw))?
        .trim_start();
    let end = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(rest.len());
    (end > 0).then(|| &rest[..end])
}

#[cfg(test)]
mod operation_name_tests {
    use super::operation_name_in;

    #[test]
    fn finds_the_operation_name_for_logs() {
        assert_eq!(
            operation_name_in("query Viewer { viewer { id } }"),
            Some("Viewer")
        );
        assert_eq!(
            operation_name_in("  mutation Pay($a: Int) { x }"),
            Some("Pay")
        );
        assert_eq!(operation_name_in("{ viewer { id } }"), None);
        assert_eq!(operation_name_in("query { viewer { id } }"), None);
    }
}
