//! Merchant webhook endpoints and their deliveries in the API: the object types, their Relay
//! connections (newest first, with signed keyset cursors), and the management operations the
//! `Query` and `Mutation` roots expose.

mod deliveries;
mod endpoints;
mod mutations;

use async_graphql::{Context, Result};
use sha2::{Digest, Sha256};

use super::Viewer;
use super::connection::KnownPage;
use crate::domain::cursor::{CursorCodec, CursorError};
use crate::domain::ids::IdKind;
use crate::domain::paging::{PageSize, Position};
use crate::error::ApiError;
use crate::persistence::webhooks::{Page, PageRequest};
use crate::service::webhook_endpoints::WebhookEndpoints;

pub use deliveries::{WebhookDelivery, delivery_node};
pub use endpoints::{WebhookEndpoint, WebhookEndpointConnection, endpoint_node, endpoints};
pub use mutations::{
    CreateWebhookEndpointInput, CreateWebhookEndpointPayload, DeleteWebhookEndpointPayload,
    UpdateWebhookEndpointInput, WebhookDeliveryPayload, WebhookEndpointPayload, create, delete,
    redeliver, update,
};

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
