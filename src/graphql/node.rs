//! Relay Global Object Identification: the `Node` interface and id-based lookup.

use std::collections::HashMap;
use std::sync::Arc;

use async_graphql::{Context, ID, Interface, Result};
use futures_util::future::try_join_all;

use super::Viewer;
use super::events::{self, Event};
use super::merchant_webhooks::{self, WebhookDelivery, WebhookEndpoint};
use super::objects::{Account, Payment, Refund};
use super::relations::PageRelations;
use crate::domain::ids::{self, IdKind};
use crate::domain::scope::Scope;
use crate::error::ApiError;
use crate::persistence::{Db, accounts, payments};

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

/// Finds the objects `ids` name, in their order: `None` for one the viewer may not see (other
/// accounts' objects are indistinguishable from absent ones). Payments and refunds are read
/// by kind, each kind with one statement, at once (no window for gathering loads); the
/// payments' refunds and events, when asked, are read together as a page's are.
pub async fn resolve_all(ctx: &Context<'_>, ids: &[String]) -> Result<Vec<Option<Node>>> {
    let of_kind = |kind: IdKind| -> Vec<String> {
        ids.iter()
            .filter(|id| ids::kind_of(id) == Some(kind))
            .cloned()
            .collect()
    };
    let (payment_ids, refund_ids) = (of_kind(IdKind::Payment), of_kind(IdKind::Refund));
    let payments = if payment_ids.is_empty() {
        FoundPayments::default()
    } else {
        FoundPayments::read(ctx, &payment_ids).await?
    };
    let refunds = if refund_ids.is_empty() {
        HashMap::new()
    } else {
        refunds_by_id(ctx, &refund_ids).await?
    };
    try_join_all(ids.iter().map(|id| {
        let (payments, refunds) = (&payments, &refunds);
        async move {
            Ok(match ids::kind_of(id) {
                Some(IdKind::Payment) => payments.get(id).map(Node::Payment),
                Some(IdKind::Refund) => refunds
                    .get(id)
                    .map(|refund: &payments::Refund| Node::Refund(Refund::from(refund.clone()))),
                _ => resolve_other(ctx, id).await?,
            })
        }
    }))
    .await
}

/// The viewer's refunds among `ids`, by id, read with one statement.
pub async fn refunds_by_id(
    ctx: &Context<'_>,
    ids: &[String],
) -> Result<HashMap<String, payments::Refund>> {
    let viewer = ctx.data::<Viewer>()?;
    let db = ctx.data::<Db>()?;
    let found = payments::find_refunds(db, &viewer.account_id, ids)
        .await
        .map_err(ApiError::from)?;
    Ok(found.into_iter().map(|r| (r.id.clone(), r)).collect())
}

/// Payments found by id, read with one statement; their refunds and events, when any of them
/// asks, are read for all of them together.
#[derive(Default)]
pub struct FoundPayments {
    relations: Option<Arc<PageRelations>>,
    by_id: HashMap<String, Arc<payments::Payment>>,
}

impl FoundPayments {
    /// The viewer's payments among `ids`.
    pub async fn read(ctx: &Context<'_>, ids: &[String]) -> Result<Self> {
        let viewer = ctx.data::<Viewer>()?;
        let db = ctx.data::<Db>()?;
        let found: Vec<_> = payments::find_payments(db, &viewer.account_id, ids)
            .await
            .map_err(ApiError::from)?
            .into_iter()
            .map(Arc::new)
            .collect();
        Ok(Self {
            relations: Some(PageRelations::new(&viewer.account_id, found.clone())),
            by_id: found.into_iter().map(|p| (p.id.clone(), p)).collect(),
        })
    }

    /// The payment `id` names, when it was found.
    pub fn get(&self, id: &str) -> Option<Payment> {
        Some(Payment {
            payment: self.by_id.get(id)?.clone(),
            page: self.relations.clone(),
            as_of_change: false,
        })
    }
}

/// Finds an object of a kind other than a payment or a refund.
async fn resolve_other(ctx: &Context<'_>, id: &str) -> Result<Option<Node>> {
    let viewer = ctx.data::<Viewer>()?;
    Ok(match ids::kind_of(id) {
        Some(IdKind::Account) if id == viewer.account_id => {
            let db = ctx.data::<Db>()?;
            accounts::find(db, id)
                .await
                .map_err(ApiError::from)?
                .map(|a| Node::Account(Account::from(a)))
        }
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
