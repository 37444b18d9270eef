//! Requests over HTTP, run on a schema without extensions.
//!
//! async-graphql wraps the resolution of every field in the chain of extensions whenever a
//! schema has any, which costs more than many fields' resolution itself. Over HTTP the
//! request policy (the query limits and budget, the scopes of client tokens, the error codes
//! and the request metrics) therefore runs around the execution here, in the order the
//! extensions run it over the WebSocket (`super::build`): the same functions in both places.

use std::time::Instant;

use async_graphql::parser::types::OperationType;
use async_graphql::{Request, Response, ServerError};

use super::limits::cost::TypeTable;
use super::limits::{Guard, GuardedRequest};
use super::{AppSchema, Viewer, metrics, scopes};
use crate::error::{self, ApiError};

/// The schema for requests over HTTP, with the request policy around it.
#[derive(Clone)]
pub struct HttpSchema {
    inner: std::sync::Arc<Inner>,
}

struct Inner {
    /// The schema, without extensions.
    bare: AppSchema,
    /// The query limits and budget; `None` when they are off.
    guard: Option<Guard>,
    /// The schema's types, for telling a known root field (the metrics' label) from another.
    table: TypeTable,
}

impl HttpSchema {
    pub(crate) fn new(bare: AppSchema, guard: Option<Guard>, table: TypeTable) -> Self {
        Self {
            inner: std::sync::Arc::new(Inner { bare, guard, table }),
        }
    }

    /// Runs one request as the schema with its extensions would.
    pub async fn execute(&self, request: Request) -> Response {
        let started = Instant::now();
        let inner = &*self.inner;
        let guarded = inner.guard.as_ref().map(Guard::begin);
        let mut root_field = None;
        let mut response = match inner.admit(guarded.as_ref(), request) {
            Ok(mut request) => {
                let operation_name = request.operation_name.take();
                root_field = request.parsed_query().ok().and_then(|doc| {
                    metrics::root_field(doc, operation_name.as_deref(), |ty, name| {
                        inner.table.has_field(root_type(ty), name)
                    })
                    .map(|(_, field)| field)
                });
                request.operation_name = operation_name;
                let mut response = inner.bare.execute(request).await;
                if refused_before_execution(&response) {
                    // What validation refused: it has no path, and it has not been coded.
                    response.errors = std::mem::take(&mut response.errors)
                        .into_iter()
                        .map(|err| {
                            if error::is_coded(&err) {
                                err
                            } else {
                                error::code_validation_error(err)
                            }
                        })
                        .collect();
                } else if let Some(guarded) = &guarded {
                    guarded.executing();
                }
                response
            }
            Err(err) => Response::from_errors(vec![err]),
        };
        if let Some(guarded) = &guarded {
            response = guarded.settle(response);
        }
        error::code_uncoded(&mut response);
        crate::metrics::record_request(
            root_field
                .as_deref()
                .unwrap_or(crate::metrics::UNKNOWN_OPERATION),
            metrics::first_code(&response),
            started.elapsed(),
        );
        response
    }
}

impl Inner {
    /// The query limits, then the method and the scopes; the document is parsed once here.
    fn admit(
        &self,
        guarded: Option<&GuardedRequest>,
        request: Request,
    ) -> Result<Request, ServerError> {
        let viewer = Viewer::in_request(&request);
        let account = viewer.map(|viewer| viewer.account_id.clone());
        let token_caller = viewer
            .filter(|viewer| viewer.caller.is_client_token())
            .map(|viewer| viewer.caller.clone());
        let mut request = match guarded {
            Some(guarded) => guarded.prepare(account.as_deref(), request)?,
            None => request,
        };
        if let Err(err) = request.parsed_query() {
            return Err(ApiError::ParseFailed(err.to_string()).into());
        }
        scopes::admit(&mut request, token_caller.as_ref())?;
        Ok(request)
    }
}

fn root_type(ty: OperationType) -> &'static str {
    match ty {
        OperationType::Query => "Query",
        OperationType::Mutation => "Mutation",
        OperationType::Subscription => "Subscription",
    }
}

/// Whether async-graphql refused the request before executing it (validation, or no
/// operation to run): nothing resolved, and no error has a path. An error of a field always
/// has its path.
fn refused_before_execution(response: &Response) -> bool {
    !response.errors.is_empty()
        && response.data == async_graphql::Value::Null
        && response.errors.iter().all(|err| err.path.is_empty())
}
