//! `WebhookEndpoint` and its connection: the endpoints of the viewer's account, newest
//! first (`Query.webhookEndpoints`), and each endpoint's deliveries.

use std::sync::Arc;

use async_graphql::{Context, ID, Object, Result, SimpleObject};

use super::deliveries::{self, WebhookDeliveryConnection};
use super::{List, service, viewer};
use crate::domain::cursor::CursorCodec;
use crate::domain::time::Timestamp;
use crate::domain::webhook_endpoint as domain;
use crate::error::ApiError;
use crate::graphql::listed::{EndpointFields, Rows, listed_connection};
use crate::graphql::objects::PaymentStatus;
use crate::graphql::paging::{Paged, page_request};
use crate::graphql::scalars::DateTime;
use crate::persistence::merchant_webhooks::EndpointPageQuery;

/// A URL the gateway sends this account's payment events to, signed with its secret.
pub struct WebhookEndpoint(pub Arc<domain::WebhookEndpoint>);

#[Object]
impl WebhookEndpoint {
    /// Opaque id, prefixed `we_`.
    pub async fn id(&self) -> ID {
        ID(self.0.id.clone())
    }
    async fn url(&self) -> &str {
        &self.0.url
    }
    async fn description(&self) -> Option<&str> {
        self.0.description.as_deref()
    }
    /// The payment statuses whose status changes it is sent; empty: all of them.
    #[graphql(deprecation = "Use eventTypes.")]
    async fn statuses(&self) -> Vec<PaymentStatus> {
        self.0.statuses.iter().map(|s| (*s).into()).collect()
    }

    /// The event types it is sent; empty: every type (or the status changes `statuses`
    /// selects).
    async fn event_types(&self) -> &[String] {
        &self.0.event_types
    }
    /// False when the merchant disabled it, or when every delivery failed for the whole
    /// retry schedule; `disabledReason` says which.
    async fn enabled(&self) -> bool {
        self.0.enabled
    }
    async fn disabled_reason(&self) -> Option<&str> {
        self.0.disabled_reason.as_deref()
    }
    /// While a rolled secret still signs deliveries beside the current one, when it stops;
    /// otherwise `null`.
    async fn previous_secret_expires_at(&self) -> Option<DateTime> {
        self.0
            .previous_secret_expires_at(Timestamp::now())
            .map(DateTime)
    }

    async fn created_at(&self) -> DateTime {
        DateTime(self.0.created_at)
    }
    /// The events sent (or being sent) to this endpoint, newest first.
    async fn deliveries(
        &self,
        ctx: &Context<'_>,
        first: Option<i32>,
        after: Option<String>,
        last: Option<i32>,
        before: Option<String>,
    ) -> Result<WebhookDeliveryConnection> {
        deliveries::page(ctx, &self.0, first, after, last, before).await
    }
}

#[derive(SimpleObject)]
pub struct WebhookEndpointEdge {
    pub cursor: String,
    pub node: WebhookEndpoint,
}

/// A page of webhook endpoints, newest first.
pub struct WebhookEndpointConnection {
    paged: Paged<EndpointPageQuery>,
}

impl Rows for WebhookEndpointConnection {
    type Query = EndpointPageQuery;
    type Fields = EndpointFields;
    type Edge = WebhookEndpointEdge;
    type Node = WebhookEndpoint;

    fn paged(&self) -> &Paged<EndpointPageQuery> {
        &self.paged
    }

    fn node(&self, endpoint: &Arc<domain::WebhookEndpoint>) -> WebhookEndpoint {
        WebhookEndpoint(endpoint.clone())
    }

    fn edge(cursor: String, node: WebhookEndpoint) -> WebhookEndpointEdge {
        WebhookEndpointEdge { cursor, node }
    }
}

listed_connection!(WebhookEndpointConnection);

/// `Query.webhookEndpoints`.
pub async fn endpoints(
    ctx: &Context<'_>,
    first: Option<i32>,
    after: Option<String>,
    last: Option<i32>,
    before: Option<String>,
) -> Result<WebhookEndpointConnection> {
    let listing = List::Endpoints.listing();
    let codec = ctx.data::<CursorCodec>()?;
    let request = page_request(codec, listing, first, after, last, before)?;
    let query = EndpointPageQuery {
        account_id: viewer(ctx)?.to_string(),
        request,
    };
    let page = service(ctx)?.page(&query).await.map_err(ApiError::from)?;
    Ok(WebhookEndpointConnection {
        paged: Paged::new(page, query, listing),
    })
}

/// `node(id)` for a webhook endpoint's id.
pub async fn endpoint_node(ctx: &Context<'_>, id: &str) -> Result<Option<WebhookEndpoint>> {
    Ok(service(ctx)?
        .lookup(viewer(ctx)?, id)
        .await
        .map_err(ApiError::from)?
        .map(|endpoint| WebhookEndpoint(Arc::new(endpoint))))
}
