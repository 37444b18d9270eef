//! Consistency tokens on the answers of mutations: the primary's log position right after the
//! mutation committed (see [`crate::domain::consistency`]), in `extensions.consistency.token`.
//! Over HTTP the header carries it too (`crate::http`); over the WebSocket the extension here
//! adds it.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use async_graphql::extensions::{
    Extension, ExtensionContext, ExtensionFactory, NextExecute, NextParseQuery,
};
use async_graphql::parser::types::{ExecutableDocument, OperationType};
use async_graphql::{Name, Response, ServerResult, Value, Variables};

use super::Primary;
use crate::persistence::{Db, wal};

/// Adds the token of what the primary has written by now to a mutation's answer: a read that
/// sends it back sees this mutation's writes. Nothing on SQLite, which has no replicas; a
/// position that cannot be read leaves the answer without a token (and says so in the log).
pub async fn stamp(primary: &Db, response: &mut Response) {
    match wal::written(primary).await {
        Ok(Some(lsn)) => {
            let token = Value::Object([(Name::new("token"), Value::from(lsn.token()))].into());
            response.extensions.insert("consistency".into(), token);
        }
        Ok(None) => {}
        Err(err) => {
            tracing::warn!(error = %err, "a mutation's answer has no consistency token");
        }
    }
}

/// The extension that stamps the answers of documents holding a mutation (over the
/// WebSocket; HTTP stamps its own).
pub struct Stamp;

impl ExtensionFactory for Stamp {
    fn create(&self) -> Arc<dyn Extension> {
        Arc::new(Stamped::default())
    }
}

#[derive(Default)]
struct Stamped {
    mutation: AtomicBool,
}

#[async_trait::async_trait]
impl Extension for Stamped {
    async fn parse_query(
        &self,
        ctx: &ExtensionContext<'_>,
        query: &str,
        variables: &Variables,
        next: NextParseQuery<'_>,
    ) -> ServerResult<ExecutableDocument> {
        let doc = next.run(ctx, query, variables).await?;
        let mutation = doc
            .operations
            .iter()
            .any(|(_, operation)| operation.node.ty == OperationType::Mutation);
        self.mutation.store(mutation, Ordering::Relaxed);
        Ok(doc)
    }

    async fn execute(
        &self,
        ctx: &ExtensionContext<'_>,
        operation_name: Option<&str>,
        next: NextExecute<'_>,
    ) -> Response {
        let mut response = next.run(ctx, operation_name).await;
        if self.mutation.load(Ordering::Relaxed)
            && let Ok(Primary(primary)) = ctx.data::<Primary>()
        {
            stamp(primary, &mut response).await;
        }
        response
    }
}
