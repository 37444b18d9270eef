//! Trusted documents are validated once, when the manifest is registered at start-up, and not
//! again when they are run by id.
//!
//! async-graphql validates every request inside `Schema::execute`; the one way around it the
//! library offers is an extension's `validation` hook, which may answer without running the
//! rules. [`Prevalidated`] is that extension. A request the gateway marked [`Registered`] (the
//! server sets the mark when it resolves a `documentId`, never from anything a client sends)
//! skips the library's rules: its document passed all of them at start-up
//! ([`validate_manifest`], which runs each document through a schema with every rule and
//! executes nothing). What validation checks that depends on the request is checked here
//! instead: the values of the variables where the document passes them as arguments, the only
//! part of a rule ("arguments of correct type") that reads variables. With no variables at
//! registration, the library skips exactly those arguments there; here they are checked with
//! the library's own messages, so a bad value gets the code it gets in free text. Any request
//! without the mark is validated as before.
//!
//! A document sent as text is validated once too: the query limits keep each text they parsed
//! with its document ([`Parsed`]), and once the library's rules have passed it (with whatever
//! variables came then: without them the rules check less), a request over HTTP that sends the
//! same text again is marked [`Registered`] and checked as a registered document is. A text
//! the rules refuse is never marked, and is validated (and refused) every time it comes.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use async_graphql::extensions::{
    Extension, ExtensionContext, ExtensionFactory, NextExecute, NextPrepareRequest, NextValidation,
};
use async_graphql::parser::types::{DocumentOperations, ExecutableDocument};
use async_graphql::{Request, Response, ServerError, ServerResult, ValidationResult, Value};

use super::limits::plans::Plans;
use super::trusted_documents::{ManifestError, TrustedDocuments};
use super::{Mutation, Query, Subscription, variables};
use crate::error;

/// The mark of a request that runs a registered (and so already validated) document.
#[derive(Clone, Copy, Debug)]
pub struct Registered;

/// A document parsed from its text, shared by the requests that send that text, and whether
/// the library's rules have passed it.
pub struct Parsed {
    document: ExecutableDocument,
    validated: AtomicBool,
    /// Whether its shape passed the query limits' check (which reads nothing else).
    shape_passed: AtomicBool,
    /// Its cost plans, by operation and the values of the variables they read.
    plans: Plans,
    /// The arguments of its operations that read variables.
    arguments: variables::Found,
}

/// In a [`Registered`] request, the shared document it runs: its arguments that read
/// variables are found once, not in each request.
struct Shared(Arc<Parsed>);

/// In a request whose document's validation is to be remembered when it passes.
struct Validating(Arc<Parsed>);

impl Parsed {
    pub fn new(document: ExecutableDocument) -> Self {
        Parsed {
            document,
            validated: AtomicBool::new(false),
            shape_passed: AtomicBool::new(false),
            plans: Plans::default(),
            arguments: variables::Found::default(),
        }
    }

    /// Whether its shape passed the query limits' check before.
    pub fn shape_passed(&self) -> bool {
        self.shape_passed.load(Ordering::Acquire)
    }

    /// Remembers that its shape passed the query limits' check.
    pub fn pass_shape(&self) {
        self.shape_passed.store(true, Ordering::Release);
    }

    /// Its cost plans.
    pub fn plans(&self) -> &Plans {
        &self.plans
    }

    /// How many of its operations' arguments that read variables it keeps.
    #[cfg(test)]
    pub fn kept_operations(&self) -> usize {
        self.arguments.len()
    }

    pub fn document(&self) -> &ExecutableDocument {
        &self.document
    }

    /// Whether the library's rules have passed the document.
    pub fn validated(&self) -> bool {
        self.validated.load(Ordering::Acquire)
    }

    /// Marks `request`, which runs this document: [`Registered`] when its rules passed it
    /// before (or it is a trusted document, marked so already), else so that it is
    /// remembered when they pass it now.
    pub fn mark(self: &Arc<Self>, request: &mut Request) {
        let trusted = request
            .data
            .contains_key(&std::any::TypeId::of::<Registered>());
        if trusted || self.validated() {
            request.data.insert(Registered);
            request.data.insert(Shared(self.clone()));
        } else {
            request.data.insert(Validating(self.clone()));
        }
    }
}

/// The extension that skips validation for [`Registered`] requests (see the module).
pub struct Prevalidated;

impl ExtensionFactory for Prevalidated {
    fn create(&self) -> Arc<dyn Extension> {
        Arc::new(Prevalidated)
    }
}

#[async_trait::async_trait]
impl Extension for Prevalidated {
    async fn prepare_request(
        &self,
        ctx: &ExtensionContext<'_>,
        request: Request,
        next: NextPrepareRequest<'_>,
    ) -> ServerResult<Request> {
        let mut request = next.run(ctx, request).await?;
        if request
            .data
            .contains_key(&std::any::TypeId::of::<Registered>())
        {
            // Taken out while the document is borrowed, and put back: no copy of either.
            let operation = request.operation_name.take();
            let variables = std::mem::take(&mut request.variables);
            let registry = &ctx.schema_env.registry;
            let shared = request
                .data
                .get(&std::any::TypeId::of::<Shared>())
                .and_then(|shared| shared.downcast_ref::<Shared>())
                .map(|Shared(parsed)| parsed.clone());
            let checked = match shared {
                // The request runs a copy of `parsed`'s document.
                Some(parsed) => parsed.arguments.check(
                    registry,
                    parsed.document(),
                    operation.as_deref(),
                    &variables,
                ),
                None => variables::check(
                    registry,
                    request.parsed_query()?,
                    operation.as_deref(),
                    &variables,
                ),
            };
            request.operation_name = operation;
            request.variables = variables;
            checked.map_err(error::code_validation_error)?;
        }
        Ok(request)
    }

    async fn validation(
        &self,
        ctx: &ExtensionContext<'_>,
        next: NextValidation<'_>,
    ) -> Result<ValidationResult, Vec<ServerError>> {
        if ctx.data_opt::<Registered>().is_some() {
            return Ok(ValidationResult {
                cache_control: Default::default(),
                complexity: 0,
                depth: 0,
            });
        }
        let validated = next.run(ctx).await;
        if validated.is_ok()
            && let Some(Validating(parsed)) = ctx.data_opt::<Validating>()
        {
            parsed.validated.store(true, Ordering::Release);
        }
        validated
    }
}

/// Validates a document for registration and answers without executing it.
struct Registration;

impl ExtensionFactory for Registration {
    fn create(&self) -> Arc<dyn Extension> {
        Arc::new(Registration)
    }
}

#[async_trait::async_trait]
impl Extension for Registration {
    async fn execute(
        &self,
        _ctx: &ExtensionContext<'_>,
        _operation_name: Option<&str>,
        _next: NextExecute<'_>,
    ) -> Response {
        Response::new(Value::Null)
    }
}

/// Validates every document of the manifest against the schema with all of async-graphql's
/// rules, executing none: a document that does not validate stops the start, naming it.
pub async fn validate_manifest(
    documents: &TrustedDocuments,
    path: &std::path::Path,
) -> Result<(), ManifestError> {
    let schema = async_graphql::Schema::build(Query, Mutation, Subscription)
        .extension(Registration)
        .finish();
    for (id, text) in documents.iter() {
        let refused = |reason: String| ManifestError::Invalid {
            path: path.display().to_string(),
            id: id.to_string(),
            reason,
        };
        let document =
            async_graphql::parser::parse_query(text).map_err(|err| refused(err.to_string()))?;
        // A document of several operations is validated whole; one of them is named so that
        // the library goes on to the (skipped) execution.
        let operation = match &document.operations {
            DocumentOperations::Single(_) => None,
            DocumentOperations::Multiple(operations) => {
                operations.keys().next().map(|name| name.to_string())
            }
        };
        let mut request = Request::new(text);
        request.operation_name = operation;
        request.set_parsed_query(document);
        let response = schema.execute(request).await;
        if let Some(err) = response.errors.first() {
            return Err(refused(err.message.clone()));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use async_graphql::Variables;

    use super::*;

    fn schema() -> async_graphql::Schema<Query, Mutation, Subscription> {
        async_graphql::Schema::build(Query, Mutation, Subscription)
            .extension(Prevalidated)
            .finish()
    }

    #[tokio::test]
    async fn a_registered_document_is_not_validated_again() {
        // An unused variable is refused by validation: only unmarked requests are validated.
        let text = "query($x: Int) { __typename }";
        let unmarked = schema().execute(Request::new(text)).await;
        assert!(
            unmarked.errors[0].message.contains("is not used"),
            "{:?}",
            unmarked.errors
        );
        let marked = schema().execute(Request::new(text).data(Registered)).await;
        assert!(marked.errors.is_empty(), "{:?}", marked.errors);
        assert_eq!(
            marked.data.into_json().unwrap(),
            serde_json::json!({"__typename": "Query"})
        );
    }

    /// A text is validated until the rules pass it once, then checked as a registered
    /// document: a wrong value still gets validation's own message, and a text the rules
    /// refuse is refused every time.
    #[tokio::test]
    async fn a_text_the_rules_passed_is_not_validated_again() {
        let run = |parsed: &Arc<Parsed>, text: &str, variables: serde_json::Value| {
            let mut request = Request::new(text).variables(Variables::from_json(variables));
            parsed.mark(&mut request);
            request.set_parsed_query(parsed.document().clone());
            async move { schema().execute(request).await }
        };
        let text = "query($n: Int) { payments(first: $n) { totalCount } }";
        let parsed = Arc::new(Parsed::new(
            async_graphql::parser::parse_query(text).expect("parsed"),
        ));
        let wrong = serde_json::json!({"n": "three"});
        let first = run(&parsed, text, wrong.clone()).await;
        assert!(!parsed.validated(), "refused, so not remembered");
        // Validation passes (the field itself fails: no database in this schema).
        let passed = run(&parsed, text, serde_json::json!({"n": 2})).await;
        assert!(
            passed.errors.iter().all(|err| !err.path.is_empty()),
            "{:?}",
            passed.errors
        );
        assert!(parsed.validated());
        let again = run(&parsed, text, wrong).await;
        assert_eq!(again.errors.len(), 1, "{:?}", again.errors);
        assert_eq!(again.errors[0].message, first.errors[0].message);
        assert_eq!(again.errors[0].locations, first.errors[0].locations);

        let unused = "query($x: Int) { __typename }";
        let refused = Arc::new(Parsed::new(
            async_graphql::parser::parse_query(unused).expect("parsed"),
        ));
        for _ in 0..2 {
            let response = run(&refused, unused, serde_json::json!({})).await;
            assert!(response.errors[0].message.contains("is not used"));
            assert!(!refused.validated());
        }
    }

    /// Each wrong value, wherever a variable sits in an argument (whole, inside an object
    /// literal, inside a list, in a directive), is refused by id with the message and place
    /// validation gives the same text.
    #[tokio::test]
    async fn wrong_values_are_refused_as_validation_refuses_them() {
        let create = "mutation($a: Int!, $k: String!) { createPayment(input: {amount: $a, \
                      currency: \"USD\", source: \"tok_visa\"}, idempotencyKey: $k) \
                      { payment { id } } }";
        let filter = "query($s: [PaymentStatus!]) { payments(first: 2, filter: {status: $s}) \
                      { totalCount } }";
        let skip = "query($b: Boolean!) { viewer { id @skip(if: $b) } }";
        let order = "query($o: PaymentOrder) { ...F } fragment F on Query { \
                     payments(first: 1, orderBy: $o) { totalCount } }";
        let cases = [
            (create, serde_json::json!({"a": "ten", "k": "x"})),
            (create, serde_json::json!({"a": 10, "k": 5})),
            (filter, serde_json::json!({"s": ["NOPE"]})),
            (filter, serde_json::json!({"s": ["SUCCEEDED", 3]})),
            (skip, serde_json::json!({"b": "yes"})),
            (order, serde_json::json!({"o": {"field": "COLOUR"}})),
            (
                order,
                serde_json::json!({"o": {"direction": "UP", "extra": 1}}),
            ),
        ];
        for (text, variables) in cases {
            let request = || Request::new(text).variables(Variables::from_json(variables.clone()));
            let unmarked = schema().execute(request()).await;
            let marked = schema().execute(request().data(Registered)).await;
            assert_eq!(
                unmarked.errors.len(),
                1,
                "{variables}: {:?}",
                unmarked.errors
            );
            assert_eq!(marked.errors.len(), 1, "{variables}: {:?}", marked.errors);
            assert_eq!(
                marked.errors[0].message, unmarked.errors[0].message,
                "{variables}"
            );
            assert_eq!(
                marked.errors[0].locations, unmarked.errors[0].locations,
                "{variables}"
            );
        }
    }

    #[tokio::test]
    async fn its_variables_are_checked_with_the_rule_s_own_message() {
        let text = "query($n: Int) { payments(first: $n) { totalCount } }";
        let variables = || Variables::from_json(serde_json::json!({"n": "three"}));
        let unmarked = schema()
            .execute(Request::new(text).variables(variables()))
            .await;
        let marked = schema()
            .execute(Request::new(text).variables(variables()).data(Registered))
            .await;
        assert_eq!(marked.errors.len(), 1, "{:?}", marked.errors);
        assert_eq!(marked.errors[0].message, unmarked.errors[0].message);
        assert_eq!(marked.errors[0].locations, unmarked.errors[0].locations);
        assert_eq!(
            marked.errors[0].message,
            "Invalid value for argument \"first\", expected type \"Int\""
        );
    }
}
