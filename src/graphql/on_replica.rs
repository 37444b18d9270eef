//! A read answered by a streaming replica, and answered again by the primary when the replica
//! fails it (a query cancelled for a recovery conflict, or a replica gone away): the client
//! never sees the replica's failure.
//!
//! async-graphql consumes a request when it executes it, so what it takes to run it again is
//! kept aside when the read is sent to a replica: its text, variables and the markers the
//! checks before execution put in its data. The document is parsed again only then.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use async_graphql::{Request, Response, Variables};

use super::limits::fields::FieldBudget;
use super::prevalidated::Registered;
use super::read_only::OverGet;
use super::{AppSchema, Viewer};
use crate::error::codes;
use crate::metrics::replicas::{record_fallback, record_read};
use crate::persistence::Db;

/// A read sent to a replica, and what it takes to answer it from the primary instead.
pub(super) struct OnReplica {
    /// Raised when any statement of the read failed on the replica.
    failed: Arc<AtomicBool>,
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
    pub(super) fn send(request: &mut Request, replica: &Db, primary: &Db) -> Option<OnReplica> {
        let viewer = Viewer::in_request(request)?.clone();
        let (db, failed) = replica.watched();
        let on_replica = OnReplica {
            failed,
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

    /// The replica's answer, or, when the replica failed the read, the primary's.
    pub(super) async fn answer(self, schema: &AppSchema, response: Response) -> Response {
        let internal = response.errors.iter().any(|err| {
            err.extensions.as_ref().and_then(|ext| ext.get("code"))
                == Some(&async_graphql::Value::from(codes::INTERNAL))
        });
        if !self.failed.load(Ordering::Relaxed) && !internal {
            record_read("replica");
            return response;
        }
        tracing::warn!("a replica failed a read; it is answered by the primary");
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
