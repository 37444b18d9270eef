//! The management operations on merchant webhook endpoints that `Mutation` exposes:
//! create, update, delete, and redeliver one delivery; their inputs and payloads.

use std::sync::Arc;

use async_graphql::{Context, ID, InputObject, Result, SimpleObject};

use super::deliveries::WebhookDelivery;
use super::endpoints::WebhookEndpoint;
use super::{service, viewer};
use crate::domain::status;
use crate::error::ApiError;
use crate::graphql::objects::PaymentStatus;
use crate::merchant_webhooks::endpoints::{EndpointChanges, NewEndpoint};

#[derive(InputObject, Clone, Debug)]
pub struct CreateWebhookEndpointInput {
    /// `https` (or `http`) URL that must resolve to public addresses.
    pub url: String,
    pub description: Option<String>,
    /// The payment statuses whose status changes to send; empty or null: all of them.
    #[graphql(deprecation = "Use eventTypes.")]
    pub statuses: Option<Vec<PaymentStatus>>,
    /// The event types to send (`payment.succeeded`, `payment.updated`, `refund.created`,
    /// ...); empty or null: every type (or the status changes `statuses` selects).
    pub event_types: Option<Vec<String>>,
}

#[derive(InputObject, Clone, Debug)]
pub struct UpdateWebhookEndpointInput {
    pub id: ID,
    pub url: Option<String>,
    pub description: Option<String>,
    #[graphql(deprecation = "Use eventTypes.")]
    pub statuses: Option<Vec<PaymentStatus>>,
    /// Replaces the event types it is sent; an empty list: every type.
    pub event_types: Option<Vec<String>>,
    /// Enabling an endpoint clears its `disabledReason`.
    pub enabled: Option<bool>,
}

#[derive(SimpleObject)]
pub struct CreateWebhookEndpointPayload {
    pub endpoint: WebhookEndpoint,
    /// The signing secret (`whsec_...`). Shown only here: store it now.
    pub secret: String,
}

#[derive(InputObject, Clone, Debug)]
pub struct RollWebhookEndpointSecretInput {
    pub id: ID,
    /// How long the old secret keeps signing every delivery beside the new one: 0 (it stops
    /// at once) to 604,800 seconds (7 days).
    #[graphql(default = 0)]
    pub expire_old_in_seconds: i32,
}

#[derive(SimpleObject)]
pub struct RollWebhookEndpointSecretPayload {
    pub endpoint: WebhookEndpoint,
    /// The new signing secret (`whsec_...`). Shown only here: store it now.
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
        event_types: input.event_types.unwrap_or_default(),
    };
    let (endpoint, secret) = service(ctx)?
        .create(viewer(ctx)?, new)
        .await
        .map_err(ApiError::from)?;
    Ok(CreateWebhookEndpointPayload {
        secret,
        endpoint: WebhookEndpoint(Arc::new(endpoint)),
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
        event_types: input.event_types,
        enabled: input.enabled,
    };
    let endpoint = service(ctx)?
        .update(viewer(ctx)?, &input.id, changes)
        .await
        .map_err(ApiError::from)?;
    Ok(WebhookEndpointPayload {
        endpoint: WebhookEndpoint(Arc::new(endpoint)),
    })
}

pub async fn roll_secret(
    ctx: &Context<'_>,
    input: RollWebhookEndpointSecretInput,
) -> Result<RollWebhookEndpointSecretPayload> {
    let (endpoint, secret) = service(ctx)?
        .roll_secret(
            viewer(ctx)?,
            &input.id,
            i64::from(input.expire_old_in_seconds),
        )
        .await
        .map_err(ApiError::from)?;
    Ok(RollWebhookEndpointSecretPayload {
        secret,
        endpoint: WebhookEndpoint(Arc::new(endpoint)),
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
            delivery: Arc::new(delivery),
            attempts: None,
        },
    })
}
