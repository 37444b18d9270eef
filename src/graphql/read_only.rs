//! Requests over HTTP `GET` only read: `GET` is a safe method, so a mutation sent with it is
//! refused before anything runs (GraphQL over HTTP asks for 405 and `Allow: POST`, which the
//! HTTP layer answers once this check has said so).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use async_graphql::parser::types::OperationType;
use async_graphql::{Request, ServerError, ServerResult};

use super::operation::Operation;
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

    /// The mark in `request`'s data, if it came over `GET`.
    pub(crate) fn of(request: &Request) -> Option<OverGet> {
        request
            .data
            .get(&std::any::TypeId::of::<OverGet>())
            .and_then(|d| d.downcast_ref::<OverGet>())
            .cloned()
    }
}

/// Refuses a mutation sent over GET (`over_get`), before anything runs. Called by the one
/// check of requests against policy (`scopes::admit`), so that over the WebSocket it adds no
/// extension of its own to every field's resolution.
pub fn refuse_mutation_over_get(
    operation: &Operation<'_>,
    over_get: Option<&OverGet>,
) -> ServerResult<()> {
    if let Some(over_get) = over_get
        && operation.ty == OperationType::Mutation
    {
        over_get.refused.store(true, Ordering::Relaxed);
        return Err(ServerError::from(ApiError::ValidationFailed(
            "mutations cannot be sent with GET, which only reads; send them with POST".into(),
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graphql::operation;

    fn ty(query: &str, name: Option<&str>) -> Option<OperationType> {
        let doc = async_graphql::parser::parse_query(query).unwrap();
        operation::find(&doc, name)
            .ok()
            .map(|operation| operation.ty)
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
