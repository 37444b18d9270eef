//! The parameters of a GraphQL request, read from a `POST` body, a `GET` query string or a
//! WebSocket `subscribe` payload, and checked before anything runs: `query` (or `documentId`,
//! a trusted document's id), `operationName` (a string), `variables` (a map) and `extensions`
//! (a map, accepted and not used). Anything else is a malformed request, which GraphQL over
//! HTTP answers 400 whatever the media type.

use std::collections::BTreeMap;

use async_graphql::Variables;
use axum::extract::Query;
use axum::http::Uri;
use serde::Deserialize;
use serde::de::IgnoredAny;

use crate::error::ApiError;
use crate::graphql::prevalidated;
use crate::graphql::trusted_documents::{DocumentSource, TrustedDocuments};
use crate::service::accounts::Caller;

/// One GraphQL request, checked.
#[derive(Debug)]
pub struct Params {
    pub source: DocumentSource,
    pub operation_name: Option<String>,
    pub variables: Variables,
}

/// A POST body: one request, or a batch (a JSON array).
#[derive(Debug)]
pub enum Body {
    Single(Params),
    Batch(Vec<Params>),
}

/// Not a GraphQL request; the message says what is wrong and what to send.
#[derive(Debug)]
pub struct Malformed(pub String);

impl From<Malformed> for ApiError {
    fn from(Malformed(message): Malformed) -> Self {
        ApiError::ParseFailed(message)
    }
}

/// The parameters as sent, before they are checked.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Sent {
    #[serde(default)]
    query: Option<String>,
    #[serde(default)]
    document_id: Option<String>,
    #[serde(default)]
    operation_name: Option<String>,
    /// A map, or null (no variables).
    #[serde(default)]
    variables: Variables,
    /// A map, or null; read to be checked, then dropped.
    #[serde(default)]
    #[allow(dead_code)]
    extensions: Option<BTreeMap<String, IgnoredAny>>,
}

const SHAPE: &str = "expected JSON with `query` (or `documentId`), and optionally `variables` \
                     and `operationName`, or an array of such";

impl Sent {
    fn check(self) -> Result<Params, Malformed> {
        let source = match (self.query, self.document_id) {
            (Some(query), None) => DocumentSource::Text(query),
            (None, Some(id)) => DocumentSource::Id(id),
            (Some(_), Some(_)) => {
                return Err(Malformed(
                    "send either `query` or `documentId`, not both".into(),
                ));
            }
            (None, None) => {
                return Err(Malformed(
                    "the request has no `query` (the GraphQL document to run) and no \
                     `documentId` (a trusted document's id)"
                        .into(),
                ));
            }
        };
        Ok(Params {
            source,
            // An empty name is no name (GraphQL over HTTP).
            operation_name: self.operation_name.filter(|name| !name.is_empty()),
            variables: self.variables,
        })
    }
}

/// Reads a `POST` body (JSON).
pub fn from_body(body: &[u8]) -> Result<Body, Malformed> {
    let malformed = |err: serde_json::Error| {
        Malformed(format!(
            "the body is not a GraphQL request ({SHAPE}): {err}"
        ))
    };
    let is_batch = body
        .iter()
        .find(|b| !b.is_ascii_whitespace())
        .is_some_and(|&b| b == b'[');
    if is_batch {
        let batch: Vec<Sent> = serde_json::from_slice(body).map_err(malformed)?;
        if batch.is_empty() {
            return Err(Malformed(format!(
                "the body is an empty batch: send one GraphQL request ({SHAPE}), or an array \
                 of at least one"
            )));
        }
        let batch = batch
            .into_iter()
            .map(Sent::check)
            .collect::<Result<_, _>>()?;
        Ok(Body::Batch(batch))
    } else {
        let single: Sent = serde_json::from_slice(body).map_err(malformed)?;
        Ok(Body::Single(single.check()?))
    }
}

/// Reads a `GET` query string: `query` or `documentId`, `operationName`, and `variables` and
/// `extensions` as JSON text, each at most once.
pub fn from_uri(uri: &Uri) -> Result<Params, Malformed> {
    let Query(pairs) = Query::<Vec<(String, String)>>::try_from_uri(uri).map_err(|err| {
        Malformed(format!(
            "the query string cannot be read: {}",
            err.body_text()
        ))
    })?;
    let mut sent = Sent {
        query: None,
        document_id: None,
        operation_name: None,
        variables: Variables::default(),
        extensions: None,
    };
    let mut seen: Vec<&str> = Vec::new();
    for (name, value) in &pairs {
        let name = name.as_str();
        if !matches!(
            name,
            "query" | "documentId" | "operationName" | "variables" | "extensions"
        ) {
            continue;
        }
        if seen.contains(&name) {
            return Err(Malformed(format!("`{name}` is given more than once")));
        }
        seen.push(name);
        match name {
            "query" => sent.query = Some(value.clone()),
            "documentId" => sent.document_id = Some(value.clone()),
            "operationName" => sent.operation_name = Some(value.clone()),
            "variables" => {
                sent.variables = serde_json::from_str(value)
                    .map_err(|err| Malformed(format!("`variables` is not a JSON object: {err}")))?
            }
            _ => {
                let _: Option<BTreeMap<String, IgnoredAny>> =
                    serde_json::from_str(value).map_err(|err| {
                        Malformed(format!("`extensions` is not a JSON object: {err}"))
                    })?;
            }
        }
    }
    sent.check()
}

/// Reads a WebSocket `subscribe` message's payload.
pub fn from_payload(payload: serde_json::Value) -> Result<Params, Malformed> {
    Sent::deserialize(payload)
        .map_err(|err| {
            Malformed(format!(
                "the subscribe payload is not a GraphQL request: {err}"
            ))
        })?
        .check()
}

impl Params {
    /// The request to run for `caller`: its own text, or the trusted document it names.
    pub fn resolve(
        self,
        documents: &TrustedDocuments,
        caller: Option<&Caller>,
    ) -> Result<async_graphql::Request, ApiError> {
        let preparsed = match &self.source {
            DocumentSource::Id(id) => Some(documents.parsed(id)),
            DocumentSource::Text(_) => None,
        };
        let text = documents.resolve(self.source, caller)?;
        let mut request = async_graphql::Request::new(text).variables(self.variables);
        request.operation_name = self.operation_name;
        if let Some(preparsed) = preparsed {
            // Parsed and validated when the manifest was registered (`graphql::prevalidated`).
            request = request.data(prevalidated::Registered);
            if let Some(parsed) = preparsed {
                request = request.data(prevalidated::Preparsed(parsed));
            }
        }
        Ok(request)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(text: &str) -> Result<Body, Malformed> {
        from_body(text.as_bytes())
    }

    fn get(query: &str) -> Result<Params, Malformed> {
        from_uri(&format!("/graphql?{query}").parse().unwrap())
    }

    #[test]
    fn reads_well_formed_bodies() {
        let Ok(Body::Single(params)) = body(
            r#"{"query": "query A($n: String!) { __type(name: $n) { name } }",
                "operationName": "A", "variables": {"n": "x"}, "extensions": {"a": 1}}"#,
        ) else {
            panic!("a single request");
        };
        assert_eq!(params.operation_name.as_deref(), Some("A"));
        assert_eq!(params.variables.len(), 1);
        for nulls in [
            r#"{"query": "{ a }", "variables": null}"#,
            r#"{"query": "{ a }", "operationName": null}"#,
            r#"{"query": "{ a }", "extensions": null}"#,
        ] {
            assert!(body(nulls).is_ok(), "{nulls}");
        }
        let Ok(Body::Single(by_id)) = body(r#"{"documentId": "abc", "variables": {"a": 1}}"#)
        else {
            panic!("a single request");
        };
        assert_eq!(by_id.source, DocumentSource::Id("abc".into()));
        assert!(
            matches!(body(r#" [{"query": "{ a }"}, {"documentId": "b"}]"#), Ok(Body::Batch(b)) if b.len() == 2)
        );
    }

    #[test]
    fn refuses_malformed_bodies() {
        for bad in [
            "",
            "[]",
            " [ ] ",
            "{ \"not a JSON",
            r#"{"notquery": "{ a }"}"#,
            r#"{"query": {"obj": "ect"}}"#,
            r#"{"query": 0}"#,
            r#"{"query": false}"#,
            r#"{"query": ["array"]}"#,
            r#"{"query": "{ a }", "operationName": 0}"#,
            r#"{"query": "{ a }", "variables": "string"}"#,
            r#"{"query": "{ a }", "variables": ["array"]}"#,
            r#"{"query": "{ a }", "extensions": false}"#,
            r#"{"query": "{ a }", "documentId": "abc"}"#,
            r#"[{"query": "{ a }"}, {"qeury": "{ a }"}]"#,
            "\"a string\"",
        ] {
            assert!(body(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn reads_query_strings() {
        let params = get("query=query%20A(%24n%3AString!)%7Ba%7D&variables=%7B%22n%22%3A%22x%22%7D&operationName=A&other=1").unwrap();
        assert_eq!(
            params.source,
            DocumentSource::Text("query A($n:String!){a}".into())
        );
        assert_eq!(params.variables.len(), 1);
        assert_eq!(params.operation_name.as_deref(), Some("A"));
        let params = get("documentId=sha256%3Aab&operationName=").unwrap();
        assert_eq!(params.source, DocumentSource::Id("sha256:ab".into()));
        assert_eq!(params.operation_name, None);
        for bad in [
            "",
            "variables=%7B%7D",
            "query=%7Ba%7D&variables=%7Bnot",
            "query=%7Ba%7D&variables=%5B1%5D",
            "query=%7Ba%7D&extensions=1",
            "query=%7Ba%7D&query=%7Bb%7D",
        ] {
            assert!(get(bad).is_err(), "{bad}");
        }
    }
}
