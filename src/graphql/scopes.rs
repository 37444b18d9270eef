//! What a restricted credential (a restricted key, a client token) may ask for: the root
//! fields its scopes name, checked on the parsed document before anything runs (over HTTP and
//! WebSocket alike). A request that asks for one field outside the scopes is refused whole
//! with `FORBIDDEN` and the scope it lacked (`extensions.requiredScope`), so nothing of it
//! runs. Unrestricted secret keys pass untouched. The same extension refuses mutations sent
//! over GET (`read_only`): every extension adds a layer to the resolution of every field, so
//! checks made once per request share one.

use std::sync::Arc;

use async_graphql::extensions::{
    Extension, ExtensionContext, ExtensionFactory, NextPrepareRequest,
};
use async_graphql::parser::types::OperationType;
use async_graphql::{Request, ServerError, ServerResult};

use super::Viewer;
use super::operation::{self, Operation};
use super::read_only::OverGet;
use crate::domain::scope::Scope;
use crate::error::ApiError;
use crate::service::accounts::Caller;

/// What a root field needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Needs {
    /// Any credential: introspection and `__typename` (the schema is public).
    Anyone,
    /// A credential holding the scope: an unrestricted key, a restricted key or a client
    /// token with it.
    Scope(Scope),
    /// A secret key holding the scope (unrestricted, or restricted with it); never a client
    /// token, whatever it holds.
    KeyScope(Scope),
    /// A credential holding the first scope, or a secret key holding the second (the field's
    /// resolver tells what each allows).
    ScopeOrKeyScope(Scope, Scope),
    /// An unrestricted secret key: what manages keys themselves.
    Unrestricted,
}

/// What the root field `field` of an `operation` needs. Every root field of the schema is
/// named here; a test checks that against introspection, so a new field cannot slip through
/// as unrestricted by omission (unknown fields need an unrestricted key).
pub fn needs(operation: OperationType, field: &str) -> Needs {
    use OperationType::{Mutation, Query, Subscription};
    if field.starts_with("__") {
        return Needs::Anyone;
    }
    match (operation, field) {
        (
            Query,
            "viewer" | "payment" | "payments" | "node" | "nodes" | "idempotencyRecord" | "events",
        )
        | (Subscription, "paymentUpdated" | "events") => Needs::Scope(Scope::PaymentsRead),
        (Mutation, "createPayment" | "confirmPayment") => Needs::Scope(Scope::PaymentsWrite),
        // Cancelling needs PAYMENTS_WRITE; voiding an authorization, PAYMENTS_CAPTURE.
        (Mutation, "cancelPayment") => {
            Needs::ScopeOrKeyScope(Scope::PaymentsWrite, Scope::PaymentsCapture)
        }
        (Mutation, "updatePayment" | "createSubmitToken") => Needs::KeyScope(Scope::PaymentsWrite),
        (Mutation, "refundPayment") => Needs::Scope(Scope::RefundsWrite),
        (Mutation, "capturePayment") => Needs::KeyScope(Scope::PaymentsCapture),
        (Query, "webhookEndpoints")
        | (
            Mutation,
            "createWebhookEndpoint"
            | "updateWebhookEndpoint"
            | "deleteWebhookEndpoint"
            | "rollWebhookEndpointSecret"
            | "redeliverWebhook",
        ) => Needs::KeyScope(Scope::WebhooksManage),
        (Mutation, "createClientToken") => Needs::KeyScope(Scope::ClientTokensCreate),
        _ => Needs::Unrestricted,
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
            .filter(|viewer| viewer.caller.is_restricted())
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

/// Refuses a mutation sent with GET (`over_get`), and an operation outside the scopes of a
/// `restricted` caller (`None` for an unrestricted key, which may run anything). Without an
/// operation to run there is nothing to check: the query limits or async-graphql refuse the
/// request for it.
pub(crate) fn admit(
    operation: Option<&Operation<'_>>,
    over_get: Option<&OverGet>,
    restricted: Option<&Caller>,
) -> ServerResult<()> {
    let Some(operation) = operation else {
        return Ok(());
    };
    super::read_only::refuse_mutation_over_get(operation, over_get)?;
    if let Some(caller) = restricted {
        check(operation, Holder::of(caller)).map_err(ServerError::from)?;
    }
    Ok(())
}

/// What a restricted credential holds, as the check needs it.
#[derive(Clone, Copy)]
struct Holder {
    client_token: bool,
    scopes: crate::domain::scope::Scopes,
}

impl Holder {
    fn of(caller: &Caller) -> Self {
        Self {
            client_token: caller.is_client_token(),
            scopes: caller.scopes.unwrap_or_default(),
        }
    }
}

/// `Err(FORBIDDEN)` for the first root field of `operation` that `holder` may not use, with
/// the scope it lacks (none for what only an unrestricted key may do).
fn check(operation: &Operation<'_>, holder: Holder) -> Result<(), ApiError> {
    let ty = operation.ty;
    let mut refused = None;
    operation.root_fields(|field| {
        if refused.is_some() {
            return;
        }
        let (required_scope, keys_only) = match needs(ty, field) {
            Needs::Anyone => return,
            Needs::Scope(scope) if holder.scopes.contains(scope) => return,
            Needs::KeyScope(scope) if !holder.client_token && holder.scopes.contains(scope) => {
                return;
            }
            Needs::ScopeOrKeyScope(scope, key_scope)
                if holder.scopes.contains(scope)
                    || (!holder.client_token && holder.scopes.contains(key_scope)) =>
            {
                return;
            }
            Needs::Scope(scope) | Needs::ScopeOrKeyScope(scope, _) => (Some(scope.as_str()), false),
            Needs::KeyScope(scope) => (Some(scope.as_str()), holder.client_token),
            Needs::Unrestricted => (None, false),
        };
        refused = Some(ApiError::Forbidden {
            field: field.to_string(),
            required_scope,
            keys_only,
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
        let holder = Holder {
            client_token: true,
            scopes: scopes.iter().copied().collect(),
        };
        match check(&operation, holder) {
            Ok(()) => None,
            Err(ApiError::Forbidden {
                field,
                required_scope,
                ..
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
            Some(("webhookEndpoints".into(), Some("WEBHOOKS_MANAGE")))
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
