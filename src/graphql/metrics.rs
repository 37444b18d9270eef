//! Counts and times every GraphQL request and subscription start by operation and outcome.
//!
//! The `operation` label is the first root field the operation selects (`payments`,
//! `createPayment`, `__schema`), and only when the schema has that field: a client can name
//! its operations anything, but it cannot add root fields, so the label stays bounded.
//! Anything else is `unknown`. The `code` label is `OK`, or the `extensions.code` of the
//! answer's first error; this extension is registered first, so it is the outermost and sees
//! the codes the error layer gave.

use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Instant;

use async_graphql::extensions::{
    Extension, ExtensionContext, ExtensionFactory, NextParseQuery, NextPrepareRequest, NextRequest,
    NextSubscribe, NextValidation,
};
use async_graphql::parser::types::{ExecutableDocument, OperationType};
use async_graphql::{
    Name, Request, Response, ServerError, ServerResult, ValidationResult, Value, Variables,
};
use futures_util::stream::{BoxStream, Stream, StreamExt};

use super::operation::{self, Operation};
use crate::error::codes;
use crate::metrics::{OK, UNKNOWN_OPERATION, record_request};

/// The extension factory: one [`Measured`] per request or subscription.
pub struct RequestMetrics;

impl ExtensionFactory for RequestMetrics {
    fn create(&self) -> Arc<dyn Extension> {
        Arc::new(Measured::default())
    }
}

/// What one request has shown of itself so far.
#[derive(Default)]
struct Seen {
    operation_name: Option<String>,
    /// The first root field, when the schema has it.
    root_field: Option<String>,
    subscription: bool,
    validated: bool,
}

#[derive(Default)]
struct Measured {
    seen: Arc<Mutex<Seen>>,
}

impl Measured {
    fn seen(&self) -> std::sync::MutexGuard<'_, Seen> {
        self.seen.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[async_trait::async_trait]
impl Extension for Measured {
    async fn request(&self, ctx: &ExtensionContext<'_>, next: NextRequest<'_>) -> Response {
        let started = Instant::now();
        let response = next.run(ctx).await;
        let operation = self.seen().root_field.clone();
        record_request(
            operation.as_deref().unwrap_or(UNKNOWN_OPERATION),
            first_code(&response),
            started.elapsed(),
        );
        response
    }

    fn subscribe<'s>(
        &self,
        ctx: &ExtensionContext<'_>,
        stream: BoxStream<'s, Response>,
        next: NextSubscribe<'_>,
    ) -> BoxStream<'s, Response> {
        Box::pin(StartOutcome {
            inner: next.run(ctx, stream),
            seen: self.seen.clone(),
            started: None,
            recorded: false,
        })
    }

    async fn prepare_request(
        &self,
        ctx: &ExtensionContext<'_>,
        request: Request,
        next: NextPrepareRequest<'_>,
    ) -> ServerResult<Request> {
        let request = next.run(ctx, request).await?;
        self.seen().operation_name = request.operation_name.clone();
        Ok(request)
    }

    async fn parse_query(
        &self,
        ctx: &ExtensionContext<'_>,
        query: &str,
        variables: &Variables,
        next: NextParseQuery<'_>,
    ) -> ServerResult<ExecutableDocument> {
        let document = next.run(ctx, query, variables).await?;
        let mut seen = self.seen();
        let registry = &ctx.schema_env.registry;
        let operation = operation::find(&document, seen.operation_name.as_deref()).ok();
        let field = operation.as_ref().and_then(|operation| {
            label(operation, |ty, name| {
                operation::registered_root(registry, ty)
                    .and_then(|root| registry.concrete_type_by_name(root))
                    .and_then(|root| root.field_by_name(name))
                    .is_some()
            })
        });
        if let (Some(operation), Some(field)) = (&operation, field) {
            seen.subscription = operation.ty == OperationType::Subscription;
            seen.root_field = Some(field.to_string());
        }
        Ok(document)
    }

    async fn validation(
        &self,
        ctx: &ExtensionContext<'_>,
        next: NextValidation<'_>,
    ) -> Result<ValidationResult, Vec<ServerError>> {
        let result = next.run(ctx).await;
        self.seen().validated = result.is_ok();
        result
    }
}

/// Records a subscription's start once its outcome is known: the first answer (an error that
/// refused it, or a first event), or the stream waiting for events after a subscription
/// operation passed validation. Operations other than subscriptions sent over the socket
/// count with their one answer.
struct StartOutcome<'s> {
    inner: BoxStream<'s, Response>,
    seen: Arc<Mutex<Seen>>,
    started: Option<Instant>,
    recorded: bool,
}

impl Stream for StartOutcome<'_> {
    type Item = Response;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Response>> {
        let this = self.get_mut();
        let started = *this.started.get_or_insert_with(Instant::now);
        let polled = this.inner.poll_next_unpin(cx);
        if !this.recorded {
            let seen = this.seen.lock().unwrap_or_else(|e| e.into_inner());
            let code = match &polled {
                Poll::Ready(Some(response)) => Some(first_code(response)),
                Poll::Ready(None) => Some(OK),
                Poll::Pending => (seen.subscription && seen.validated).then_some(OK),
            };
            if let Some(code) = code {
                let operation = seen.root_field.as_deref().unwrap_or(UNKNOWN_OPERATION);
                record_request(operation, code, started.elapsed());
                this.recorded = true;
            }
        }
        polled
    }
}

/// `OK`, or the code of the first error. An error without a code is one the error layer
/// reports as `INTERNAL`.
pub(crate) fn first_code(response: &Response) -> &str {
    let Some(error) = response.errors.first() else {
        return OK;
    };
    match error.extensions.as_ref().and_then(|ext| ext.get("code")) {
        Some(Value::String(code)) => code,
        Some(Value::Enum(code)) => code.as_str(),
        _ => codes::INTERNAL,
    }
}

/// The `operation` label of a request that runs `operation`: its first root field, when its
/// root type has that field (`known`); `__typename` belongs to every type.
pub(crate) fn label<'d>(
    operation: &Operation<'d>,
    known: impl Fn(OperationType, &str) -> bool,
) -> Option<&'d Name> {
    operation
        .first_field
        .filter(|name| name.as_str() == "__typename" || known(operation.ty, name.as_str()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graphql::{Mutation, Query, Subscription};

    /// Hands the schema one extension the test can look into afterwards.
    struct Shared(Arc<Measured>);

    impl ExtensionFactory for Shared {
        fn create(&self) -> Arc<dyn Extension> {
            self.0.clone()
        }
    }

    /// The `operation` label a request gets (`None`: `unknown`).
    async fn label(query: &str, operation_name: Option<&str>) -> Option<String> {
        let measured = Arc::new(Measured::default());
        let schema = async_graphql::Schema::build(Query, Mutation, Subscription)
            .extension(Shared(measured.clone()))
            .finish();
        let mut request = Request::new(query);
        if let Some(name) = operation_name {
            request = request.operation_name(name);
        }
        schema.execute(request).await;
        measured.seen().root_field.clone()
    }

    #[tokio::test]
    async fn the_label_is_the_first_root_field_the_schema_knows() {
        let cases = [
            ("query Anything { viewer { id } }", "viewer"),
            ("{ a: payments { totalCount } viewer { id } }", "payments"),
            ("mutation M { createPayment { x } }", "createPayment"),
            ("{ __schema { types { name } } }", "__schema"),
            ("{ __typename }", "__typename"),
            ("subscription { paymentUpdated { id } }", "paymentUpdated"),
        ];
        for (query, expected) in cases {
            assert_eq!(
                label(query, None).await.as_deref(),
                Some(expected),
                "{query}"
            );
        }
    }

    /// A stand-in for the error layer: gives every error the code `FROM_INNER`.
    struct Recode;

    impl ExtensionFactory for Recode {
        fn create(&self) -> Arc<dyn Extension> {
            Arc::new(Recode)
        }
    }

    #[async_trait::async_trait]
    impl Extension for Recode {
        async fn request(&self, ctx: &ExtensionContext<'_>, next: NextRequest<'_>) -> Response {
            let mut response = next.run(ctx).await;
            for error in &mut response.errors {
                error
                    .extensions
                    .get_or_insert_with(Default::default)
                    .set("code", "FROM_INNER");
            }
            response
        }
    }

    #[test]
    fn registered_first_it_counts_the_codes_that_later_extensions_give() {
        let recorder = metrics_exporter_prometheus::PrometheusBuilder::new().build_recorder();
        let scrape = recorder.handle();
        let schema = async_graphql::Schema::build(Query, Mutation, Subscription)
            .extension(RequestMetrics)
            .extension(Recode)
            .finish();
        ::metrics::with_local_recorder(&recorder, || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .build()
                .expect("a runtime");
            runtime.block_on(schema.execute("{ viewer { nope } }"));
        });
        let text = scrape.render();
        assert!(
            text.contains(r#"graphpay_requests_total{operation="viewer",code="FROM_INNER"} 1"#),
            "{text}"
        );
    }

    #[tokio::test]
    async fn fragments_are_followed_to_the_first_field() {
        let query =
            "query Q { ...F } fragment F on Query { ... on Query { payment(id: \"x\") { id } } }";
        assert_eq!(label(query, None).await.as_deref(), Some("payment"));
        let cycle = "query Q { ...A } fragment A on Query { ...B } fragment B on Query { ...A }";
        assert_eq!(label(cycle, None).await, None);
    }

    #[tokio::test]
    async fn fields_the_schema_lacks_and_operations_that_will_not_run_have_no_label() {
        let two = "query A { viewer { id } } query B { payments { totalCount } }";
        assert_eq!(label("{ randomField123 { id } }", None).await, None);
        assert_eq!(label("mutation { viewer { id } }", None).await, None);
        assert_eq!(label("{ viewer { id }", None).await, None, "does not parse");
        assert_eq!(label(two, None).await, None, "which one is not said");
        assert_eq!(label(two, Some("B")).await.as_deref(), Some("payments"));
        assert_eq!(label("{ viewer { id } }", Some("Named")).await, None);
    }
}
