//! Requests over HTTP, run on a schema without extensions.
//!
//! async-graphql wraps the resolution of every field in the chain of extensions whenever a
//! schema has any, which costs more than many fields' resolution itself. Over HTTP the
//! request policy (the query limits and budget, the scopes of client tokens, the error codes
//! and the request metrics) therefore runs around the execution here, in the order the
//! extensions run it over the WebSocket (`super::build`): the same functions in both places.
//!
//! A request is prepared first ([`HttpSchema::prepare`]): its document read once (parsed, or
//! found parsed before) and the operation it runs found once ([`super::operation`]), which
//! every check, the metrics' label and the HTTP layer's choice of task then share.

use std::sync::Arc;
use std::time::Instant;

use async_graphql::parser::types::{ExecutableDocument, OperationType};
use async_graphql::{Name, Request, Response, ServerError};

use super::limits::cost::TypeTable;
use super::limits::{Guard, GuardedRequest};
use super::on_replica::{self, OnReplica};
use super::operation::{self, root_type};
use super::read_only::OverGet;
use super::{AppSchema, Viewer, metrics, prevalidated, scopes};
use crate::error::{self, ApiError};
use crate::persistence::Db;

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

/// A request that has been through every check before execution, or been refused by one.
pub struct Prepared {
    schema: HttpSchema,
    started: Instant,
    guarded: Option<GuardedRequest>,
    admitted: Result<Admitted, ServerError>,
    /// Set when the read is answered by a replica.
    on_replica: Option<OnReplica>,
}

/// What a request that may execute carries to its execution.
struct Admitted {
    /// With its parsed document set, so that async-graphql does not parse it again.
    request: Request,
    /// The metrics' `operation` label, when the schema knows the first root field.
    label: Option<Name>,
    mutation: bool,
    /// Whether it reads what only the primary may answer (see [`on_replica::PRIMARY_ONLY`]).
    primary_only: bool,
}

impl HttpSchema {
    pub(crate) fn new(bare: AppSchema, guard: Option<Guard>, table: TypeTable) -> Self {
        Self {
            inner: std::sync::Arc::new(Inner { bare, guard, table }),
        }
    }

    /// Runs every check before execution, as the schema with its extensions would: nothing
    /// here waits, so a request that is prepared is either refused or ready to execute.
    pub fn prepare(&self, request: Request) -> Prepared {
        let started = Instant::now();
        let guarded = self.inner.guard.as_ref().map(Guard::begin);
        let admitted = self.inner.admit(guarded.as_ref(), request);
        Prepared {
            schema: self.clone(),
            started,
            guarded,
            admitted,
            on_replica: None,
        }
    }
}

impl Prepared {
    /// Whether the checks before execution let the request run.
    pub fn is_admitted(&self) -> bool {
        self.admitted.is_ok()
    }

    /// Whether the operation that will run is a mutation.
    pub fn runs_mutation(&self) -> bool {
        self.admitted
            .as_ref()
            .is_ok_and(|admitted| admitted.mutation)
    }

    /// Sends this read to `replica` (a pool on a streaming replica), to be answered by
    /// `primary` should the replica fail it; whether it was sent (a mutation, or a request
    /// refused already, stays where it is).
    pub fn read_from(&mut self, replica: (&Db, &Arc<str>), primary: &Db) -> bool {
        let Ok(admitted) = &mut self.admitted else {
            return false;
        };
        if admitted.mutation || admitted.primary_only {
            return false;
        }
        self.on_replica = OnReplica::send(&mut admitted.request, replica, primary);
        self.on_replica.is_some()
    }

    /// Executes the request (unless it was refused), and settles and counts its response.
    pub async fn execute(self) -> Response {
        let Prepared {
            schema,
            started,
            guarded,
            admitted,
            on_replica,
        } = self;
        let (response, label) = match admitted {
            Ok(Admitted { request, label, .. }) => {
                let taken = match &guarded {
                    Some(guarded) => guarded.take().await,
                    None => Ok(()),
                };
                if let Err(err) = taken {
                    return finish(guarded, Response::from_errors(vec![err]), label, started);
                }
                let mut response = match on_replica {
                    Some(on_replica) => on_replica.run(&schema.inner.bare, request).await,
                    None => schema.inner.bare.execute(request).await,
                };
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
                (response, label)
            }
            Err(err) => (Response::from_errors(vec![err]), None),
        };
        finish(guarded, response, label, started)
    }
}

/// Settles a response's cost, codes its errors and counts it.
fn finish(
    guarded: Option<GuardedRequest>,
    mut response: Response,
    label: Option<Name>,
    started: Instant,
) -> Response {
    if let Some(guarded) = &guarded {
        response = guarded.settle(response);
    }
    error::code_uncoded(&mut response);
    crate::metrics::record_request(
        label
            .as_ref()
            .map_or(crate::metrics::UNKNOWN_OPERATION, Name::as_str),
        metrics::first_code(&response),
        started.elapsed(),
    );
    response
}

/// A request's document: shared with the cache of parsed documents (the query limits), or
/// parsed for this request alone (without them).
enum RequestDocument {
    Shared(Arc<prevalidated::Parsed>),
    Own(ExecutableDocument),
}

impl RequestDocument {
    fn get(&self) -> &ExecutableDocument {
        match self {
            RequestDocument::Shared(parsed) => parsed.document(),
            RequestDocument::Own(doc) => doc,
        }
    }

    /// The document for async-graphql, which takes it whole; a shared one marks the request
    /// as validated before, where it was ([`prevalidated::Parsed::mark`]).
    fn into_request(self, request: &mut Request) {
        match self {
            RequestDocument::Shared(parsed) => {
                parsed.mark(request);
                request.set_parsed_query(ExecutableDocument::clone(parsed.document()));
            }
            RequestDocument::Own(doc) => request.set_parsed_query(doc),
        }
    }
}

impl Inner {
    /// The query limits, then the method and the scopes, on the one operation found in the
    /// document; the document is parsed at most once here.
    fn admit(
        &self,
        guarded: Option<&GuardedRequest>,
        mut request: Request,
    ) -> Result<Admitted, ServerError> {
        let viewer = Viewer::in_request(&request);
        let account = viewer.map(|viewer| viewer.account_id.clone());
        let restricted = viewer
            .filter(|viewer| viewer.caller.is_restricted())
            .map(|viewer| viewer.caller.clone());
        let over_get = OverGet::of(&request);
        let parsed = match guarded {
            Some(guarded) => {
                RequestDocument::Shared(guarded.read(account.as_deref(), &mut request)?)
            }
            None => match prevalidated::preparsed(&request) {
                Some(parsed) => RequestDocument::Shared(parsed),
                None => {
                    crate::metrics::record_document_parsed();
                    RequestDocument::Own(
                        async_graphql::parser::parse_query(&request.query)
                            .map_err(|err| ApiError::ParseFailed(err.to_string()))?,
                    )
                }
            },
        };
        let found = operation::find(parsed.get(), request.operation_name.as_deref());
        if let (Some(guarded), RequestDocument::Shared(shared)) = (guarded, &parsed) {
            guarded.check(account.as_deref(), &request, shared, &found)?;
        }
        // Without the query limits, a document with no operation to run is async-graphql's
        // to refuse.
        let operation = found.ok();
        scopes::admit(operation.as_ref(), over_get.as_ref(), restricted.as_ref()).map_err(
            |err| match guarded {
                Some(guarded) => guarded.refused_after_checks(account.as_deref(), err),
                None => err,
            },
        )?;
        let label = operation
            .as_ref()
            .and_then(|operation| {
                metrics::label(operation, |ty, name| {
                    self.table.has_field(root_type(ty), name)
                })
            })
            .cloned();
        let mutation = operation.is_some_and(|operation| operation.ty == OperationType::Mutation);
        let mut primary_only = false;
        if let Some(operation) = &operation {
            operation
                .root_fields(|field| primary_only |= on_replica::PRIMARY_ONLY.contains(&field));
        }
        parsed.into_request(&mut request);
        Ok(Admitted {
            request,
            label,
            mutation,
            primary_only,
        })
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

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::graphql::limits::QueryLimits;
    use crate::graphql::limits::budget::{Throttle, ThrottleSettings};
    use crate::graphql::limits::budgets::Budget;
    use crate::graphql::{Mutation, Query, Subscription, sdl};

    fn schemas() -> [HttpSchema; 2] {
        let bare = || async_graphql::Schema::build(Query, Mutation, Subscription).finish();
        let table = || TypeTable::from_sdl(&sdl());
        let throttle = Arc::new(Throttle::new(ThrottleSettings::new(1_000, 1_000)));
        let guard = Guard::new(QueryLimits::default(), table(), Budget::Local(throttle));
        [
            HttpSchema::new(bare(), Some(guard), table()),
            HttpSchema::new(bare(), None, table()),
        ]
    }

    fn prepared(schema: &HttpSchema, query: &str, name: Option<&str>) -> Prepared {
        let mut request = Request::new(query).data(crate::graphql::limits::OverHttp);
        request.operation_name = name.map(str::to_string);
        schema.prepare(request)
    }

    #[test]
    fn only_an_operation_that_will_run_as_a_mutation_gets_a_task_of_its_own() {
        let cancel = "mutation Cancel { cancelPayment(paymentId: \"p\") { payment { id } } }";
        let two = "query Read { viewer { id } } mutation Cancel { cancelPayment(paymentId: \"p\") { payment { id } } }";
        let cases = [
            (cancel, None, true),
            (two, Some("Cancel"), true),
            (two, Some("Read"), false),
            // Refused before execution, so nothing of it runs anywhere.
            (two, None, false),
            (cancel, Some("Other"), false),
            ("mutation { cancelPayment(", None, false),
            // The word alone makes no mutation.
            ("query mutation { viewer { id } }", None, false),
            ("{ payment(id: \"mutation\") { id } }", None, false),
        ];
        for schema in schemas() {
            for (query, name, mutation) in cases {
                assert_eq!(
                    prepared(&schema, query, name).runs_mutation(),
                    mutation,
                    "{query} {name:?}"
                );
            }
        }
    }

    #[test]
    fn the_label_is_the_first_root_field_of_the_operation_that_runs() {
        let two = "query Read { __typename viewer { id } } query Other { payments { totalCount } }";
        for schema in schemas() {
            let label = |name| {
                prepared(&schema, two, name)
                    .admitted
                    .ok()
                    .and_then(|admitted| admitted.label)
                    .map(|label| label.to_string())
            };
            assert_eq!(label(Some("Read")).as_deref(), Some("__typename"));
            assert_eq!(label(Some("Other")).as_deref(), Some("payments"));
        }
    }
}
