//! A read answered by a streaming replica, and answered again by the primary when the replica
//! fails it (a query cancelled for a recovery conflict, a replica gone away) or takes longer
//! than [`REPLICA_BUDGET`] (a replica that hangs): the client never sees the replica's
//! failure. The replica's run is stopped at its first failed statement.
//!
//! async-graphql consumes a request when it executes it, so what it takes to run it again is
//! kept aside when the read is sent to a replica: its text, variables and the markers the
//! checks before execution put in its data. The document is parsed again only then.

use std::sync::Arc;
use std::time::Duration;

use async_graphql::{Request, Response, Variables};

use super::limits::fields::FieldBudget;
use super::prevalidated::Registered;
use super::read_only::OverGet;
use super::{AppSchema, Viewer};
use crate::error::codes;
use crate::metrics::replicas::{record_fallback, record_read};
use crate::persistence::{Db, Watch};

/// Root fields whose documents the primary always answers: what became of a money-moving
/// request is read where it was written, so that a client polling it sees it finish (with its
/// payment or refund) as soon as it has.
pub const PRIMARY_ONLY: [&str; 1] = ["idempotencyRecord"];

/// The longest a read may run on a replica before the primary answers it instead.
pub const REPLICA_BUDGET: Duration = Duration::from_secs(5);

/// A read sent to a replica, and what it takes to answer it from the primary instead.
pub(super) struct OnReplica {
    /// Raised when any statement of the read failed on the replica.
    watch: Arc<Watch>,
    /// The replica's name, for the log.
    replica: Arc<str>,
    primary: Db,
    query: String,
    variables: Variables,
    operation_name: Option<String>,
    extensions: async_graphql::Extensions,
    registered: bool,
    over_get: Option<OverGet>,
    viewer: Viewer,
    fields: Option<Arc<FieldBudget>>,
}

impl OnReplica {
    /// Points `request` (a read, prepared for the primary) at `replica`; `None` when it has
    /// no viewer (it is then refused before it reads anything).
    pub(super) fn send(
        request: &mut Request,
        replica: (&Db, &Arc<str>),
        primary: &Db,
    ) -> Option<OnReplica> {
        let viewer = Viewer::in_request(request)?.clone();
        let (db, watch) = replica.0.watched();
        let on_replica = OnReplica {
            watch,
            replica: replica.1.clone(),
            primary: primary.clone(),
            query: request.query.clone(),
            variables: request.variables.clone(),
            operation_name: request.operation_name.clone(),
            extensions: request.extensions.clone(),
            registered: request
                .data
                .contains_key(&std::any::TypeId::of::<Registered>()),
            over_get: OverGet::of(request),
            fields: request
                .data
                .get(&std::any::TypeId::of::<Arc<FieldBudget>>())
                .and_then(|d| d.downcast_ref::<Arc<FieldBudget>>())
                .cloned(),
            viewer,
        };
        request
            .data
            .insert(super::loader(&db, &on_replica.viewer.account_id));
        request.data.insert(db);
        Some(on_replica)
    }

    /// Runs `request` (sent to the replica) on the replica; its answer, or, when the replica
    /// failed it or took too long, the primary's.
    pub(super) async fn run(self, schema: &AppSchema, request: Request) -> Response {
        let on_replica = tokio::select! {
            response = schema.execute(request) => Some(response),
            () = self.watch.failure() => None,
            () = tokio::time::sleep(REPLICA_BUDGET) => None,
        };
        match on_replica {
            Some(response) if !self.watch.failed() && !internal(&response) => {
                record_read("replica");
                response
            }
            _ => self.again(schema).await,
        }
    }

    /// The read answered by the primary.
    async fn again(self, schema: &AppSchema) -> Response {
        tracing::warn!(
            replica = %self.replica,
            "a replica failed a read or took too long; the primary answers it"
        );
        record_fallback("replica_error");
        record_read("primary");
        if let Some(fields) = &self.fields {
            fields.reset();
        }
        let mut request = Request::new(self.query).variables(self.variables);
        request.operation_name = self.operation_name;
        request.extensions = self.extensions;
        if self.registered {
            request = request.data(Registered);
        }
        if let Some(over_get) = self.over_get {
            request = request.data(over_get);
        }
        if let Some(fields) = self.fields {
            request = request.data(fields);
        }
        let request = super::request_for(request, &self.primary, self.viewer.caller);
        schema.execute(request).await
    }
}

/// Whether an answer holds an internal error: a statement that failed, or a connection that
/// could not be had (which fails before any statement, so the watch never sees it).
fn internal(response: &Response) -> bool {
    let internal = async_graphql::Value::from(codes::INTERNAL);
    response
        .errors
        .iter()
        .any(|err| crate::error::code_of(err) == Some(&internal))
}
