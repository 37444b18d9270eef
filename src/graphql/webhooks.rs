//! Merchant webhook endpoints and their deliveries in the API: the object types, their Relay
//! connections (newest first, with signed keyset cursors), and the management operations the
//! `Query` and `Mutation` roots expose.

use std::collections::HashMap;
use std::sync::Arc;

use async_graphql::dataloader::DataLoader;
use async_graphql::{Context, Enum, ID, InputObject, Object, Result, SimpleObject};
use sha2::{Digest, Sha256};

use super::Viewer;
use super::connection::{KnownPage, PageInfo};
use super::limits::fields::charge_list;
use super::loaders::{AccountLoader, PaymentById};
use super::objects::{Payment, PaymentStatus};
use super::scalars::DateTime;
use crate::domain::cursor::{CursorCodec, CursorError};
use crate::domain::ids::IdKind;
use crate::domain::paging::{PageSize, Position};
use crate::domain::{status, webhook_endpoint as domain};
use crate::error::ApiError;
use crate::persistence::webhooks::{Page, PageRequest};
use crate::service::webhook_endpoints::{EndpointChanges, NewEndpoint, WebhookEndpoints};

#[derive(Enum, Copy, Clone, Debug, Eq, PartialEq)]
#[graphql(remote = "domain::DeliveryStatus")]
pub enum WebhookDeliveryStatus {
    Pending,
    Succeeded,
    Failed,
}

/// A URL the gateway sends this account's payment events to, signed with its secret.
pub struct WebhookEndpoint(pub domain::WebhookEndpoint);

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
    /// The payment statuses whose events it is sent; empty: all of them.
    async fn statuses(&self) -> Vec<PaymentStatus> {
        self.0.statuses.iter().map(|s| (*s).into()).collect()
    }
    /// False when the merchant disabled it, or when every delivery failed for the whole
    /// retry schedule; `disabledReason` says which.
    async fn enabled(&self) -> bool {
        self.0.enabled
    }
    async fn disabled_reason(&self) -> Option<&str> {
        self.0.disabled_reason.as_deref()
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
        let list = List::Deliveries(&self.0.id);
        let request = page_request(ctx, list, first, after, last, before)?;
        let page = service(ctx)?
            .deliveries(&self.0.account_id, &self.0.id, &request)
            .await
            .map_err(ApiError::from)?;
        let ids: Vec<String> = page.rows.iter().map(|d| d.id.clone()).collect();
        let attempts = service(ctx)?.attempts(&ids).await.map_err(ApiError::from)?;
        let mut by_delivery: HashMap<String, Vec<domain::WebhookAttempt>> = HashMap::new();
        for attempt in attempts {
            by_delivery
                .entry(attempt.delivery_id.clone())
                .or_default()
                .push(attempt);
        }
        let attempts = Arc::new(by_delivery);
        let codec = ctx.data::<CursorCodec>()?;
        let fingerprint = list.fingerprint();
        Ok(WebhookDeliveryConnection {
            page_info: known_page(&page, codec, fingerprint, |d| position(d.created_at, &d.id)),
            edges: page
                .rows
                .into_iter()
                .map(|d| WebhookDeliveryEdge {
                    cursor: codec.encode(&position(d.created_at, &d.id), fingerprint),
                    node: WebhookDelivery {
                        delivery: d,
                        attempts: Some(attempts.clone()),
                    },
                })
                .collect(),
        })
    }
}

/// One payment event on its way to one endpoint.
pub struct WebhookDelivery {
    pub delivery: domain::WebhookDelivery,
    /// The attempts of the page it was listed in, loaded together.
    pub attempts: Option<Arc<HashMap<String, Vec<domain::WebhookAttempt>>>>,
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
pub struct WebhookEndpointEdge {
    pub cursor: String,
    pub node: WebhookEndpoint,
}

/// A page of webhook endpoints, newest first.
pub struct WebhookEndpointConnection {
    edges: Vec<WebhookEndpointEdge>,
    page_info: KnownPage,
}

#[Object]
impl WebhookEndpointConnection {
    async fn edges(&self, ctx: &Context<'_>) -> Result<&[WebhookEndpointEdge]> {
        charge_list(ctx, self.edges.len())?;
        Ok(&self.edges)
    }
    async fn nodes(&self, ctx: &Context<'_>) -> Result<Vec<&WebhookEndpoint>> {
        charge_list(ctx, self.edges.len())?;
        Ok(self.edges.iter().map(|e| &e.node).collect())
    }
    async fn page_info(&self) -> PageInfo<'_> {
        PageInfo::Known(self.page_info.clone())
    }
}

#[derive(SimpleObject)]
pub struct WebhookDeliveryEdge {
    pub cursor: String,
    pub node: WebhookDelivery,
}

/// A page of deliveries, newest first.
pub struct WebhookDeliveryConnection {
    edges: Vec<WebhookDeliveryEdge>,
    page_info: KnownPage,
}

#[Object]
impl WebhookDeliveryConnection {
    async fn edges(&self, ctx: &Context<'_>) -> Result<&[WebhookDeliveryEdge]> {
        charge_list(ctx, self.edges.len())?;
        Ok(&self.edges)
    }
    async fn nodes(&self, ctx: &Context<'_>) -> Result<Vec<&WebhookDelivery>> {
        charge_list(ctx, self.edges.len())?;
        Ok(self.edges.iter().map(|e| &e.node).collect())
    }
    async fn page_info(&self) -> PageInfo<'_> {
        PageInfo::Known(self.page_info.clone())
    }
}

/// The lists cursors page through here; each has its own fingerprint, so a cursor of one is
/// refused by another.
#[derive(Clone, Copy)]
enum List<'a> {
    Endpoints,
    Deliveries(&'a str),
}

impl List<'_> {
    fn fingerprint(self) -> [u8; 8] {
        let canonical = match self {
            List::Endpoints => "webhookEndpoints".to_string(),
            List::Deliveries(endpoint) => format!("webhookDeliveries|{endpoint}"),
        };
        let digest = Sha256::digest(canonical.as_bytes());
        let mut out = [0u8; 8];
        out.copy_from_slice(&digest[..8]);
        out
    }

    fn kind(self) -> IdKind {
        match self {
            List::Endpoints => IdKind::WebhookEndpoint,
            List::Deliveries(_) => IdKind::WebhookDelivery,
        }
    }
}

fn position(created_at: crate::domain::time::Timestamp, id: &str) -> Position {
    Position {
        key: created_at.micros(),
        id: id.to_string(),
    }
}

fn page_request(
    ctx: &Context<'_>,
    list: List<'_>,
    first: Option<i32>,
    after: Option<String>,
    last: Option<i32>,
    before: Option<String>,
) -> Result<PageRequest, ApiError> {
    let codec = ctx
        .data::<CursorCodec>()
        .map_err(|e| ApiError::internal(e.message))?;
    let size = PageSize::from_params(first, last).map_err(ApiError::PageSizeOutOfRange)?;
    let decode = |cursor: Option<String>| -> Result<Option<Position>, ApiError> {
        cursor
            .map(|c| {
                codec
                    .decode_for(list.kind(), &c, list.fingerprint())
                    .map_err(|e| match e {
                        CursorError::Invalid(why) => ApiError::InvalidCursor(why.to_string()),
                        CursorError::Mismatch => ApiError::CursorMismatch,
                    })
            })
            .transpose()
    };
    Ok(PageRequest {
        size,
        after: decode(after)?,
        before: decode(before)?,
    })
}

fn known_page<T>(
    page: &Page<T>,
    codec: &CursorCodec,
    fingerprint: [u8; 8],
    at: impl Fn(&T) -> Position,
) -> KnownPage {
    KnownPage {
        has_next_page: page.has_next,
        has_previous_page: page.has_previous,
        start_cursor: page.rows.first().map(|r| codec.encode(&at(r), fingerprint)),
        end_cursor: page.rows.last().map(|r| codec.encode(&at(r), fingerprint)),
    }
}

fn service<'a>(ctx: &Context<'a>) -> Result<&'a WebhookEndpoints> {
    ctx.data::<WebhookEndpoints>()
}

fn viewer<'a>(ctx: &Context<'a>) -> Result<&'a str> {
    Ok(ctx.data::<Viewer>()?.account_id.as_str())
}

/// `Query.webhookEndpoints`.
pub async fn endpoints(
    ctx: &Context<'_>,
    first: Option<i32>,
    after: Option<String>,
    last: Option<i32>,
    before: Option<String>,
) -> Result<WebhookEndpointConnection> {
    let list = List::Endpoints;
    let request = page_request(ctx, list, first, after, last, before)?;
    let page = service(ctx)?
        .page(viewer(ctx)?, &request)
        .await
        .map_err(ApiError::from)?;
    let codec = ctx.data::<CursorCodec>()?;
    let fingerprint = list.fingerprint();
    Ok(WebhookEndpointConnection {
        page_info: known_page(&page, codec, fingerprint, |e| position(e.created_at, &e.id)),
        edges: page
            .rows
            .into_iter()
            .map(|e| WebhookEndpointEdge {
                cursor: codec.encode(&position(e.created_at, &e.id), fingerprint),
                node: WebhookEndpoint(e),
            })
            .collect(),
    })
}

#[derive(InputObject, Clone, Debug)]
pub struct CreateWebhookEndpointInput {
    /// `https` (or `http`) URL that must resolve to public addresses.
    pub url: String,
    pub description: Option<String>,
    /// The payment statuses whose events to send; empty or null: all of them.
    pub statuses: Option<Vec<PaymentStatus>>,
}

#[derive(InputObject, Clone, Debug)]
pub struct UpdateWebhookEndpointInput {
    pub id: ID,
    pub url: Option<String>,
    pub description: Option<String>,
    pub statuses: Option<Vec<PaymentStatus>>,
    /// Enabling an endpoint clears its `disabledReason`.
    pub enabled: Option<bool>,
}

#[derive(SimpleObject)]
pub struct CreateWebhookEndpointPayload {
    pub endpoint: WebhookEndpoint,
    /// The signing secret (`whsec_...`). Shown only here: store it now.
    pub secret: String,
}

#[derive(SimpleObject)]
pub struct WebhookEndpointPayload {
    pub endpoint: WebhookEndpoint,
}

#[derive(SimpleObject)]
pub struct DeleteWebhookEndpointPayload {
    pub deleted_id: ID,
}

#[derive(SimpleObject)]
pub struct WebhookDeliveryPayload {
    pub delivery: WebhookDelivery,
}

fn statuses(list: Option<Vec<PaymentStatus>>) -> Vec<status::PaymentStatus> {
    list.unwrap_or_default()
        .into_iter()
        .map(Into::into)
        .collect()
}

pub async fn create(
    ctx: &Context<'_>,
    input: CreateWebhookEndpointInput,
) -> Result<CreateWebhookEndpointPayload> {
    let new = NewEndpoint {
        url: input.url,
        description: input.description,
        statuses: statuses(input.statuses),
    };
    let endpoint = service(ctx)?
        .create(viewer(ctx)?, new)
        .await
        .map_err(ApiError::from)?;
    Ok(CreateWebhookEndpointPayload {
        secret: endpoint.secret.clone(),
        endpoint: WebhookEndpoint(endpoint),
    })
}

pub async fn update(
    ctx: &Context<'_>,
    input: UpdateWebhookEndpointInput,
) -> Result<WebhookEndpointPayload> {
    let changes = EndpointChanges {
        url: input.url,
        description: input.description,
        statuses: input.statuses.map(|s| statuses(Some(s))),
        enabled: input.enabled,
    };
    let endpoint = service(ctx)?
        .update(viewer(ctx)?, &input.id, changes)
        .await
        .map_err(ApiError::from)?;
    Ok(WebhookEndpointPayload {
        endpoint: WebhookEndpoint(endpoint),
    })
}

pub async fn delete(ctx: &Context<'_>, id: ID) -> Result<DeleteWebhookEndpointPayload> {
    service(ctx)?
        .delete(viewer(ctx)?, &id)
        .await
        .map_err(ApiError::from)?;
    Ok(DeleteWebhookEndpointPayload { deleted_id: id })
}

pub async fn redeliver(ctx: &Context<'_>, delivery_id: ID) -> Result<WebhookDeliveryPayload> {
    let delivery = service(ctx)?
        .redeliver(viewer(ctx)?, &delivery_id)
        .await
        .map_err(ApiError::from)?;
    Ok(WebhookDeliveryPayload {
        delivery: WebhookDelivery {
            delivery,
            attempts: None,
        },
    })
}

/// `node(id)` for webhook ids.
pub async fn endpoint_node(ctx: &Context<'_>, id: &str) -> Result<Option<WebhookEndpoint>> {
    Ok(service(ctx)?
        .lookup(viewer(ctx)?, id)
        .await
        .map_err(ApiError::from)?
        .map(WebhookEndpoint))
}

pub async fn delivery_node(ctx: &Context<'_>, id: &str) -> Result<Option<WebhookDelivery>> {
    Ok(service(ctx)?
        .delivery(viewer(ctx)?, id)
        .await
        .map_err(ApiError::from)?
        .map(|delivery| WebhookDelivery {
            delivery,
            attempts: None,
        }))
}
