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
//! Nor is a trusted document parsed again: the document parsed at registration is kept with
//! the manifest ([`TrustedDocuments::parsed`]) and given to each request that runs it
//! ([`Preparsed`]), which executes a copy of it (async-graphql takes its document whole). Its
//! text is held to the query limits' text bounds the first time it runs, as any text is.
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
use async_graphql::{
    ContextBase, Request, Response, ServerError, ServerResult, ValidationResult, Value,
};

use super::kept::Kept;
use super::limits::plans::Plans;
use super::trusted_documents::{ManifestError, TrustedDocuments};
use super::{Mutation, Query, Subscription, variables};
use crate::error;

/// The mark of a request that runs a registered (and so already validated) document.
#[derive(Clone, Copy, Debug)]
pub struct Registered;

/// In a request that runs a trusted document, the document parsed and validated when the
/// manifest was registered.
pub struct Preparsed(pub Arc<Parsed>);

/// The document parsed at registration that `request` runs, when it runs a trusted one.
pub fn preparsed(request: &Request) -> Option<Arc<Parsed>> {
    request
        .data
        .get(&std::any::TypeId::of::<Preparsed>())
        .and_then(|data| data.downcast_ref::<Preparsed>())
        .map(|Preparsed(parsed)| parsed.clone())
}

/// A document parsed from its text, shared by the requests that send that text, and whether
/// the library's rules have passed it.
pub struct Parsed {
    document: ExecutableDocument,
    validated: AtomicBool,
    /// Whether its text passed the query limits' text bounds.
    text_passed: AtomicBool,
    /// Whether its shape passed the query limits' check (which reads nothing else).
    shape_passed: AtomicBool,
    /// Its cost plans, by operation and the values of the variables they read.
    plans: Plans,
    /// The arguments of its operations that read variables.
    arguments: variables::Found,
    /// What readers planned from its fields.
    kept: Kept,
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
            text_passed: AtomicBool::new(false),
            shape_passed: AtomicBool::new(false),
            plans: Plans::default(),
            arguments: variables::Found::default(),
            kept: Kept::default(),
        }
    }

    /// What readers planned from its fields.
    pub fn kept(&self) -> &Kept {
        &self.kept
    }

    /// Whether its text passed the query limits' text bounds before.
    pub fn text_passed(&self) -> bool {
        self.text_passed.load(Ordering::Acquire)
    }

    /// Remembers that its text passed the query limits' text bounds.
    pub fn pass_text(&self) {
        self.text_passed.store(true, Ordering::Release);
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

/// The shared document the request of `ctx` runs, when it runs one: the document it
/// executes is a copy of this one's (with what `@skip` and `@include` skip removed).
pub fn running<'a, T>(ctx: &ContextBase<'a, T>) -> Option<&'a Arc<Parsed>> {
    match ctx.data_opt::<Shared>() {
        Some(Shared(parsed)) => Some(parsed),
        None => ctx
            .data_opt::<Validating>()
            .map(|Validating(parsed)| parsed),
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
            // Without the query limits over the WebSocket, nothing before gave a trusted
            // document's request the document parsed at registration.
            let shared = shared.or_else(|| {
                let parsed = preparsed(&request)?;
                request.set_parsed_query(ExecutableDocument::clone(parsed.document()));
                Some(parsed)
            });
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
        crate::metrics::record_document_validated();
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
/// rules, executing none: a document that does not validate stops the start, naming it. Each
/// document is kept parsed with the manifest, marked validated.
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
        request.set_parsed_query(document.clone());
        let response = schema.execute(request).await;
        if let Some(err) = response.errors.first() {
            return Err(refused(err.message.clone()));
        }
        let parsed = Parsed::new(document);
        parsed.validated.store(true, Ordering::Release);
        documents.keep_parsed(id, Arc::new(parsed));
    }
    Ok(())
}

#[cfg(test)]
mod tests;
