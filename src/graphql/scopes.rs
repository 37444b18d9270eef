//! What a client token may ask for: the root fields its scopes name, checked on the parsed
//! document before anything runs (over HTTP and WebSocket alike). A request that asks for one
//! field outside the scopes is refused whole with `FORBIDDEN`, so nothing of it runs.
//! Secret API keys pass untouched. The same extension refuses mutations sent over GET
//! (`read_only`): every extension adds a layer to the resolution of every field, so checks
//! made once per request share one.

use std::sync::Arc;

use async_graphql::extensions::{
    Extension, ExtensionContext, ExtensionFactory, NextPrepareRequest,
};
use async_graphql::parser::types::OperationType;
use async_graphql::{Request, ServerError, ServerResult};

use super::Viewer;
use super::operation::{self, Operation};
use super::read_only::OverGet;
use crate::domain::capture::PAYMENTS_CAPTURE;
use crate::domain::client_token::Scope;
use crate::error::ApiError;
use crate::service::accounts::Caller;

/// What a root field needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Needs {
    /// Any credential: introspection and `__typename` (the schema is public).
    Anyone,
    Scope(Scope),
    /// A secret API key: everything no scope names.
    SecretKey,
    /// A secret API key, or (once keys can be restricted) one holding this scope, which no
    /// client token can hold.
    KeyScope(&'static str),
}

pub fn needs(operation: OperationType, field: &str) -> Needs {
    if field.starts_with("__") {
        return Needs::Anyone;
    }
    match (operation, field) {
        (
            OperationType::Query,
            "viewer" | "payment" | "payments" | "node" | "nodes" | "idempotencyRecord" | "events",
        )
        | (OperationType::Subscription, "paymentUpdated" | "events") => {
            Needs::Scope(Scope::PaymentsRead)
        }
        (OperationType::Mutation, "createPayment" | "confirmPayment" | "cancelPayment") => {
            Needs::Scope(Scope::PaymentsWrite)
        }
        (OperationType::Mutation, "refundPayment") => Needs::Scope(Scope::RefundsWrite),
        (OperationType::Mutation, "capturePayment") => Needs::KeyScope(PAYMENTS_CAPTURE),
        _ => Needs::SecretKey,
    }
}

/// The extension's factory.
pub struct ScopeCheck;

impl ExtensionFactory for ScopeCheck {
    fn create(&self) -> Arc<dyn Extension> {
        Arc::new(ScopeCheck)
    }
}

#[async_trait::async_trait]
impl Extension for ScopeCheck {
    async fn prepare_request(
        &self,
        ctx: &ExtensionContext<'_>,
        mut request: Request,
        next: NextPrepareRequest<'_>,
    ) -> ServerResult<Request> {
        let caller = Viewer::of(&request, ctx)
            .filter(|viewer| viewer.caller.is_client_token())
            .map(|viewer| viewer.caller.clone());
        let over_get = OverGet::of(&request);
        if caller.is_some() || over_get.is_some() {
            let operation_name = request.operation_name.clone();
            // Parsed once: the query limits (run before this) have parsed it already. A
            // document that does not parse is left to the parser's own error.
            if let Ok(doc) = request.parsed_query() {
                let operation = operation::find(doc, operation_name.as_deref()).ok();
                admit(operation.as_ref(), over_get.as_ref(), caller.as_ref())?;
            }
        }
        next.run(ctx, request).await
    }
}

/// Refuses a mutation sent with GET (`over_get`), and an operation outside the scopes of
/// `caller`'s client token (`None` for a secret key, which may run anything). Without an
/// operation to run there is nothing to check: the query limits or async-graphql refuse the
/// request for it.
pub(crate) fn admit(
    operation: Option<&Operation<'_>>,
    over_get: Option<&OverGet>,
    token_caller: Option<&Caller>,
) -> ServerResult<()> {
    let Some(operation) = operation else {
        return Ok(());
    };
    super::read_only::refuse_mutation_over_get(operation, over_get)?;
    if let Some(caller) = token_caller {
        check(operation, |scope| caller.may(scope)).map_err(ServerError::from)?;
    }
    Ok(())
}

/// `Err(FORBIDDEN)` for the first root field of `operation` that `may` refuses.
fn check(operation: &Operation<'_>, may: impl Fn(Scope) -> bool) -> Result<(), ApiError> {
    let ty = operation.ty;
    let mut refused = None;
    operation.root_fields(|field| {
        if refused.is_some() {
            return;
        }
        let required_scope = match needs(ty, field) {
            Needs::Anyone => return,
            Needs::Scope(scope) if may(scope) => return,
            Needs::Scope(scope) => Some(scope.as_str()),
            Needs::KeyScope(scope) => Some(scope),
            Needs::SecretKey => None,
        };
        refused = Some(ApiError::Forbidden {
            field: field.to_string(),
            required_scope,
        });
    });
    refused.map_or(Ok(()), Err)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(query: &str, scopes: &[Scope]) -> Option<(String, Option<&'static str>)> {
        let doc = async_graphql::parser::parse_query(query).unwrap();
        let operation = operation::find(&doc, None).expect("an operation");
        match check(&operation, |s| scopes.contains(&s)) {
            Ok(()) => None,
            Err(ApiError::Forbidden {
                field,
                required_scope,
            }) => Some((field, required_scope)),
            Err(other) => panic!("{other:?}"),
        }
    }

    #[test]
    fn fields_reached_through_fragments_are_checked_too() {
        let read = [Scope::PaymentsRead];
        assert_eq!(
            refused("{ viewer { id } payments { nodes { id } } }", &read),
            None
        );
        assert_eq!(
            refused(
                "{ ...F } fragment F on Query { ... on Query { webhookEndpoints { nodes { id } } } }",
                &read
            ),
            Some(("webhookEndpoints".into(), None))
        );
        assert_eq!(
            refused(
                "mutation { refundPayment(idempotencyKey: \"k\", input: {paymentId: \"p\"}) { replayed } }",
                &read
            ),
            Some(("refundPayment".into(), Some("REFUNDS_WRITE")))
        );
        assert_eq!(
            refused("{ __typename __schema { queryType { name } } }", &[]),
            None
        );
        // A fragment cycle (which validation refuses later) does not loop.
        assert_eq!(
            refused(
                "{ ...A } fragment A on Query { ...B viewer { id } } fragment B on Query { ...A }",
                &read
            ),
            None
        );
    }
}
