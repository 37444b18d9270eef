//! Merchant webhook endpoints and their deliveries in the API: the object types, their Relay
//! connections (newest first, with signed keyset cursors), and the management operations the
//! `Query` and `Mutation` roots expose.

mod deliveries;
mod endpoints;
mod mutations;

use async_graphql::{Context, Result};
use sha2::{Digest, Sha256};

use super::Viewer;
use super::paging::Listing;
use crate::domain::ids::IdKind;
use crate::merchant_webhooks::endpoints::WebhookEndpoints;

pub use deliveries::{WebhookDelivery, WebhookDeliveryStatus, delivery_node};
pub use endpoints::{WebhookEndpoint, WebhookEndpointConnection, endpoint_node, endpoints};
pub use mutations::{
    CreateWebhookEndpointInput, CreateWebhookEndpointPayload, DeleteWebhookEndpointPayload,
    RollWebhookEndpointSecretInput, RollWebhookEndpointSecretPayload, UpdateWebhookEndpointInput,
    WebhookDeliveryPayload, WebhookEndpointPayload, create, delete, redeliver, roll_secret, update,
};

/// The lists cursors page through here; each has its own fingerprint, so a cursor of one is
/// refused by another.
#[derive(Clone, Copy)]
enum List<'a> {
    Endpoints,
    Deliveries(&'a str),
}

impl List<'_> {
    /// What the list's cursors are bound to.
    fn listing(self) -> Listing {
        let (kind, canonical) = match self {
            List::Endpoints => (IdKind::WebhookEndpoint, "webhookEndpoints".to_string()),
            List::Deliveries(endpoint) => (
                IdKind::WebhookDelivery,
                format!("webhookDeliveries|{endpoint}"),
            ),
        };
        let digest = Sha256::digest(canonical.as_bytes());
        let mut fingerprint = [0u8; 8];
        fingerprint.copy_from_slice(&digest[..8]);
        Listing { kind, fingerprint }
    }
}

fn service<'a>(ctx: &Context<'a>) -> Result<&'a WebhookEndpoints> {
    ctx.data::<WebhookEndpoints>()
}

fn viewer<'a>(ctx: &Context<'a>) -> Result<&'a str> {
    Ok(ctx.data::<Viewer>()?.account_id.as_str())
}
