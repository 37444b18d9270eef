//! The query limits over the WebSocket, as async-graphql extension hooks: the same checks
//! and settling as around requests over HTTP (`crate::graphql::over_http`), and a
//! subscription's start paid for once.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use async_graphql::extensions::{
    Extension, ExtensionContext, ExtensionFactory, NextExecute, NextPrepareRequest, NextRequest,
    NextSubscribe,
};
use async_graphql::parser::types::ExecutableDocument;
use async_graphql::{Request, Response, ServerResult};
use futures_util::StreamExt;
use futures_util::stream::BoxStream;

use super::settle::settle;
use super::{Guard, GuardedRequest};
use crate::graphql::{Viewer, operation};

impl ExtensionFactory for Guard {
    fn create(&self) -> Arc<dyn Extension> {
        Arc::new(self.begin())
    }
}

#[async_trait::async_trait]
impl Extension for GuardedRequest {
    async fn prepare_request(
        &self,
        ctx: &ExtensionContext<'_>,
        request: Request,
        next: NextPrepareRequest<'_>,
    ) -> ServerResult<Request> {
        let account = Viewer::of(&request, ctx).map(|viewer| viewer.account_id.clone());
        let mut request = request;
        let parsed = self.read(account.as_deref(), &mut request)?;
        let doc = parsed.document();
        let operation = operation::find(doc, request.operation_name.as_deref());
        self.check(account.as_deref(), &request, &parsed, &operation)?;
        self.take().await?;
        parsed.mark(&mut request);
        request.set_parsed_query(ExecutableDocument::clone(doc));
        next.run(ctx, request).await
    }

    async fn request(&self, ctx: &ExtensionContext<'_>, next: NextRequest<'_>) -> Response {
        let response = next.run(ctx).await;
        self.settle(response)
    }

    /// Over WebSocket: a query or mutation is settled like one over HTTP; a subscription pays
    /// its requested cost when it starts, and its first frame reports it.
    fn subscribe<'s>(
        &self,
        ctx: &ExtensionContext<'_>,
        stream: BoxStream<'s, Response>,
        next: NextSubscribe<'_>,
    ) -> BoxStream<'s, Response> {
        let (shared, state) = (self.shared.clone(), self.state.clone());
        let stream = next.run(ctx, stream);
        Box::pin(stream.map(move |response| {
            state.executed.store(true, Ordering::Relaxed);
            // Each event of a subscription has the whole field budget.
            if let Ok(slot) = state.fields.lock()
                && let Some(budget) = slot.as_ref()
            {
                budget.reset();
            }
            settle(&shared, &state, response)
        }))
    }

    async fn execute(
        &self,
        ctx: &ExtensionContext<'_>,
        operation_name: Option<&str>,
        next: NextExecute<'_>,
    ) -> Response {
        self.executing();
        next.run(ctx, operation_name).await
    }
}
