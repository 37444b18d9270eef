//! Requests over HTTP `GET` only read: `GET` is a safe method, so a mutation sent with it is
//! refused before anything runs (GraphQL over HTTP asks for 405 and `Allow: POST`, which the
//! HTTP layer answers once this check has said so).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use async_graphql::parser::types::{ExecutableDocument, OperationType};
use async_graphql::{Request, ServerError, ServerResult};

use crate::error::ApiError;

/// Marks a request that came over `GET`; tells the HTTP layer whether it was refused for
/// being a mutation.
#[derive(Clone, Debug, Default)]
pub struct OverGet {
    refused: Arc<AtomicBool>,
}

impl OverGet {
    pub fn new() -> Self {
        Self::default()
    }

    /// Whether the request was refused because its operation is a mutation.
    pub fn refused_mutation(&self) -> bool {
        self.refused.load(Ordering::Relaxed)
    }
}

/// The extension's factory.
/// Refuses a mutation sent over GET (`OverGet` in the request's data), before anything runs.
/// Called by the one extension that checks requests against policy (`scopes::ScopeCheck`), so
/// that it adds no layer of its own to every field's resolution.
pub fn refuse_mutation_over_get(request: &mut Request) -> ServerResult<()> {
    let over_get = request
        .data
        .get(&std::any::TypeId::of::<OverGet>())
        .and_then(|d| d.downcast_ref::<OverGet>())
        .cloned();
    if let Some(over_get) = over_get {
        let operation_name = request.operation_name.clone();
        let mutation = request.parsed_query().is_ok_and(|doc| {
            operation_type(doc, operation_name.as_deref()) == Some(OperationType::Mutation)
        });
        if mutation {
            over_get.refused.store(true, Ordering::Relaxed);
            return Err(ServerError::from(ApiError::ValidationFailed(
                "mutations cannot be sent with GET, which only reads; send them with POST".into(),
            )));
        }
    }
    Ok(())
}

fn operation_type(doc: &ExecutableDocument, operation_name: Option<&str>) -> Option<OperationType> {
    let mut operations = doc.operations.iter();
    let (_, operation) = match operation_name {
        Some(name) => operations.find(|(n, _)| n.is_some_and(|n| n.as_str() == name))?,
        None => {
            let first = operations.next()?;
            if operations.next().is_some() {
                return None;
            }
            first
        }
    };
    Some(operation.node.ty)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ty(query: &str, name: Option<&str>) -> Option<OperationType> {
        operation_type(&async_graphql::parser::parse_query(query).unwrap(), name)
    }

    #[test]
    fn finds_the_type_of_the_operation_that_would_run() {
        assert_eq!(ty("{ a }", None), Some(OperationType::Query));
        assert_eq!(ty("mutation { a }", None), Some(OperationType::Mutation));
        let two = "query A { a } mutation B { b }";
        assert_eq!(ty(two, Some("B")), Some(OperationType::Mutation));
        assert_eq!(ty(two, Some("A")), Some(OperationType::Query));
        assert_eq!(ty(two, None), None);
        assert_eq!(ty(two, Some("C")), None);
    }
}
