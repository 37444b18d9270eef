//! Relay Global Object Identification: the `Node` interface and id-based lookup.

use async_graphql::dataloader::DataLoader;
use async_graphql::{Context, ID, Interface, Result};

use super::Viewer;
use super::events::{self, Event};
use super::loaders::{AccountLoader, PaymentById, RefundById};
use super::merchant_webhooks::{self, WebhookDelivery, WebhookEndpoint};
use super::objects::{Account, Payment, Refund};
use crate::domain::ids::{self, IdKind};
use crate::domain::scope::Scope;
use crate::persistence::{Db, accounts};

/// An object with a globally unique, opaque id.
#[derive(Interface)]
#[graphql(field(name = "id", ty = "ID", desc = "Opaque, globally unique id."))]
pub enum Node {
    Account(Account),
    Payment(Payment),
    Refund(Refund),
    WebhookEndpoint(WebhookEndpoint),
    WebhookDelivery(WebhookDelivery),
    Event(Event),
}

/// Finds the object an id names, when the viewer may see it; `None` otherwise (other
/// accounts' objects are indistinguishable from absent ones).
pub async fn resolve(ctx: &Context<'_>, id: &str) -> Result<Option<Node>> {
    let viewer = ctx.data::<Viewer>()?;
    let loader = ctx.data::<DataLoader<AccountLoader>>()?;
    Ok(match ids::kind_of(id) {
        Some(IdKind::Account) if id == viewer.account_id => {
            let db = ctx.data::<Db>()?;
            accounts::find(db, id)
                .await?
                .map(|a| Node::Account(Account::from(a)))
        }
        Some(IdKind::Payment) => loader
            .load_one(PaymentById(id.to_string()))
            .await?
            .map(|p| Node::Payment(Payment::from(p))),
        Some(IdKind::Refund) => loader
            .load_one(RefundById(id.to_string()))
            .await?
            .map(|r| Node::Refund(Refund::from(r))),
        // Webhook objects are the business of a key that manages webhooks: to any other
        // credential they do not exist.
        Some(IdKind::WebhookEndpoint | IdKind::WebhookDelivery)
            if !viewer.caller.may(Scope::WebhooksManage) =>
        {
            None
        }
        Some(IdKind::WebhookEndpoint) => merchant_webhooks::endpoint_node(ctx, id)
            .await?
            .map(Node::WebhookEndpoint),
        Some(IdKind::WebhookDelivery) => merchant_webhooks::delivery_node(ctx, id)
            .await?
            .map(Node::WebhookDelivery),
        Some(IdKind::PaymentEvent) => events::event_node(ctx, id).await?.map(Node::Event),
        _ => None,
    })
}
