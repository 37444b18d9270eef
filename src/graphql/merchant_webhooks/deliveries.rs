//! `WebhookDelivery`, its attempts, and the connection of one endpoint's deliveries, newest
//! first, with the attempts of a page loaded together.

use std::collections::HashMap;
use std::sync::Arc;

use async_graphql::dataloader::DataLoader;
use async_graphql::{Context, Enum, ID, Object, Result, SimpleObject};

use super::{List, service, viewer};
use crate::domain::cursor::CursorCodec;
use crate::domain::webhook_endpoint as domain;
use crate::error::ApiError;
use crate::graphql::limits::fields::charge_list;
use crate::graphql::listed::{DeliveryFields, Rows, listed_connection};
use crate::graphql::loaders::{AccountLoader, PaymentById};
use crate::graphql::objects::Payment;
use crate::graphql::paging::{Paged, page_request};
use crate::graphql::scalars::DateTime;
use crate::persistence::merchant_webhooks::DeliveryPageQuery;

#[derive(Enum, Copy, Clone, Debug, Eq, PartialEq)]
#[graphql(remote = "domain::DeliveryStatus")]
pub enum WebhookDeliveryStatus {
    Pending,
    Succeeded,
    Failed,
}

/// The attempts of a page of deliveries, by delivery id.
type AttemptsOf = HashMap<String, Vec<domain::WebhookAttempt>>;

/// One payment event on its way to one endpoint.
pub struct WebhookDelivery {
    pub delivery: Arc<domain::WebhookDelivery>,
    /// The attempts of the page it was listed in, loaded together.
    pub attempts: Option<Arc<AttemptsOf>>,
}

#[Object]
impl WebhookDelivery {
    /// Opaque id, prefixed `whd_`.
    pub async fn id(&self) -> ID {
        ID(self.delivery.id.clone())
    }
    /// The event's id (`evt_...`): the `webhook-id` header and the body's `id`, the same on
    /// every attempt and redelivery.
    async fn event_id(&self) -> &str {
        &self.delivery.event_id
    }
    /// `payment.` and the payment's new status in lower case, e.g. `payment.succeeded`.
    async fn event_type(&self) -> &str {
        &self.delivery.event_type
    }
    /// The payment as it stands now (the body carries it as the change left it).
    async fn payment(&self, ctx: &Context<'_>) -> Result<Option<Payment>> {
        let loader = ctx.data::<DataLoader<AccountLoader>>()?;
        Ok(loader
            .load_one(PaymentById(self.delivery.payment_id.clone()))
            .await?
            .map(Payment::from))
    }
    async fn status(&self) -> WebhookDeliveryStatus {
        self.delivery.status.into()
    }
    /// Every attempt, oldest first.
    async fn attempts(&self, ctx: &Context<'_>) -> Result<Vec<WebhookAttempt>> {
        let attempts = match &self.attempts {
            Some(loaded) => loaded.get(&self.delivery.id).cloned().unwrap_or_default(),
            None => service(ctx)?
                .attempts(std::slice::from_ref(&self.delivery.id))
                .await
                .map_err(ApiError::from)?,
        };
        charge_list(ctx, attempts.len())?;
        Ok(attempts.into_iter().map(WebhookAttempt::from).collect())
    }
    /// When the next attempt is due, while the delivery is pending.
    async fn next_attempt_at(&self) -> Option<DateTime> {
        match self.delivery.status {
            domain::DeliveryStatus::Pending => self.delivery.next_attempt_at.map(DateTime),
            _ => None,
        }
    }
    async fn created_at(&self) -> DateTime {
        DateTime(self.delivery.created_at)
    }
}

/// One attempt to deliver: when, what the receiver answered, and how long it took.
#[derive(SimpleObject)]
pub struct WebhookAttempt {
    pub at: DateTime,
    /// The receiver's HTTP status; null when it did not answer.
    pub status_code: Option<i32>,
    pub duration_ms: i32,
    /// Why the attempt did not count as acknowledged; null when it did.
    pub error: Option<String>,
}

impl From<domain::WebhookAttempt> for WebhookAttempt {
    fn from(a: domain::WebhookAttempt) -> Self {
        WebhookAttempt {
            at: DateTime(a.at),
            status_code: a.status_code,
            duration_ms: a.duration_ms,
            error: a.error,
        }
    }
}

#[derive(SimpleObject)]
pub struct WebhookDeliveryEdge {
    pub cursor: String,
    pub node: WebhookDelivery,
}

/// A page of deliveries, newest first.
pub struct WebhookDeliveryConnection {
    paged: Paged<DeliveryPageQuery>,
    attempts: Arc<AttemptsOf>,
}

impl Rows for WebhookDeliveryConnection {
    type Query = DeliveryPageQuery;
    type Fields = DeliveryFields;
    type Edge = WebhookDeliveryEdge;
    type Node = WebhookDelivery;

    fn paged(&self) -> &Paged<DeliveryPageQuery> {
        &self.paged
    }

    fn node(&self, delivery: &Arc<domain::WebhookDelivery>) -> WebhookDelivery {
        WebhookDelivery {
            delivery: delivery.clone(),
            attempts: Some(self.attempts.clone()),
        }
    }

    fn edge(cursor: String, node: WebhookDelivery) -> WebhookDeliveryEdge {
        WebhookDeliveryEdge { cursor, node }
    }
}

listed_connection!(WebhookDeliveryConnection);

/// `WebhookEndpoint.deliveries`: a page of `endpoint`'s deliveries, with their attempts.
pub(super) async fn page(
    ctx: &Context<'_>,
    endpoint: &domain::WebhookEndpoint,
    first: Option<i32>,
    after: Option<String>,
    last: Option<i32>,
    before: Option<String>,
) -> Result<WebhookDeliveryConnection> {
    let listing = List::Deliveries(&endpoint.id).listing();
    let codec = ctx.data::<CursorCodec>()?;
    let query = DeliveryPageQuery {
        account_id: endpoint.account_id.clone(),
        endpoint_id: endpoint.id.clone(),
        request: page_request(codec, listing, first, after, last, before)?,
    };
    let page = service(ctx)?
        .deliveries(&query)
        .await
        .map_err(ApiError::from)?;
    let ids: Vec<String> = page.rows.iter().map(|d| d.id.clone()).collect();
    let attempts = service(ctx)?.attempts(&ids).await.map_err(ApiError::from)?;
    let mut by_delivery = AttemptsOf::new();
    for attempt in attempts {
        by_delivery
            .entry(attempt.delivery_id.clone())
            .or_default()
            .push(attempt);
    }
    Ok(WebhookDeliveryConnection {
        paged: Paged::new(page, query, listing),
        attempts: Arc::new(by_delivery),
    })
}

/// `node(id)` for a webhook delivery's id.
pub async fn delivery_node(ctx: &Context<'_>, id: &str) -> Result<Option<WebhookDelivery>> {
    Ok(service(ctx)?
        .delivery(viewer(ctx)?, id)
        .await
        .map_err(ApiError::from)?
        .map(|delivery| WebhookDelivery {
            delivery: Arc::new(delivery),
            attempts: None,
        }))
}
