//! The `Query` root.

use async_graphql::{Context, ID, Object, Result};

use super::connection::{self, PageArgs, PaymentConnection, PaymentFilterInput, PaymentOrderInput};
use super::direct::{Direct, DirectNode};
use super::events::{self, EventConnection, EventFilterInput};
use super::limits::fields::charge_list;
use super::objects::{Account, IdempotencyRecord};
use super::{Primary, Viewer};
use super::{api_keys, node};
use crate::domain::idempotency::IdempotencyKey;
use crate::domain::ids::PaymentId;
use crate::error::ApiError;
use crate::persistence::{Db, accounts};
use crate::service::idempotency;
use crate::service::payments::PaymentService;

/// Most ids `nodes` takes at once.
pub const MAX_NODES: usize = 100;

pub struct Query;

#[Object]
impl Query {
    /// The object with this id, when it is the viewer's; null otherwise.
    async fn node(&self, ctx: &Context<'_>, id: ID) -> Result<Option<DirectNode>> {
        let found = node::resolve_all(ctx, &[id.0]).await?;
        Ok(found.into_iter().next().flatten().map(DirectNode))
    }

    /// The objects with these ids, in the same order; null for any the viewer cannot see.
    /// At most 100 ids.
    async fn nodes(&self, ctx: &Context<'_>, ids: Vec<ID>) -> Result<Vec<Option<DirectNode>>> {
        if ids.len() > MAX_NODES {
            return Err(ApiError::bad_input(
                "ids",
                format!(
                    "at most {MAX_NODES} ids may be requested at once, got {}",
                    ids.len()
                ),
            )
            .into());
        }
        charge_list(ctx, ids.len())?;
        let ids: Vec<String> = ids.into_iter().map(|id| id.0).collect();
        let found = node::resolve_all(ctx, &ids).await?;
        Ok(found.into_iter().map(|node| node.map(DirectNode)).collect())
    }

    /// The account the API key belongs to.
    async fn viewer(&self, ctx: &Context<'_>) -> Result<Account> {
        let viewer = ctx.data::<Viewer>()?;
        let db = ctx.data::<Db>()?;
        let account = accounts::find(db, &viewer.account_id)
            .await
            .map_err(ApiError::from)?
            .ok_or_else(|| ApiError::internal("authenticated account vanished"))?;
        Ok(Account::from(account))
    }

    /// The account's newest 100 API keys, oldest first (unrestricted keys only): what they
    /// are, when they were last used and when they expire, never their secrets.
    async fn api_keys(&self, ctx: &Context<'_>) -> Result<Vec<api_keys::ApiKey>> {
        api_keys::list(ctx).await
    }

    /// The viewer's payments, a page at a time (Relay cursor connection). `first`/`after`
    /// page forward, `last`/`before` backward; with neither, `first: 20`; at most 100.
    #[allow(clippy::too_many_arguments)]
    async fn payments(
        &self,
        ctx: &Context<'_>,
        first: Option<i32>,
        after: Option<String>,
        last: Option<i32>,
        before: Option<String>,
        filter: Option<PaymentFilterInput>,
        order_by: Option<PaymentOrderInput>,
    ) -> Result<PaymentConnection> {
        let viewer = ctx.data::<Viewer>()?;
        let args = PageArgs {
            first,
            after,
            last,
            before,
            filter,
            order_by,
        };
        connection::payments(ctx, &viewer.account_id, args).await
    }

    /// What became of a request sent with this idempotency key (the viewer's own keys only);
    /// null when the key is unknown or expired.
    async fn idempotency_record(
        &self,
        ctx: &Context<'_>,
        key: String,
    ) -> Result<Option<IdempotencyRecord>> {
        let viewer = ctx.data::<Viewer>()?;
        // Always the primary's record, never a replica's: a client polling a request in
        // progress must see it finish as soon as it has.
        let db = &ctx.data::<Primary>()?.0;
        let service = ctx.data::<PaymentService>()?;
        let text = key;
        let key = IdempotencyKey::parse(&text).map_err(ApiError::InvalidIdempotencyKey)?;
        let settings = service.settings();
        let mut record = idempotency::record(db, &viewer.account_id, &key, settings).await?;
        if let Some(record) = record.as_mut() {
            // A submit token is kept as its hash; the record shows the key as it was sent.
            record.key = text;
        }
        let retention_seconds = i64::try_from(settings.retention.as_secs()).unwrap_or(i64::MAX);
        Ok(record.map(|record| IdempotencyRecord {
            record,
            retention_seconds,
        }))
    }

    /// The viewer's webhook endpoints, newest first.
    async fn webhook_endpoints(
        &self,
        ctx: &Context<'_>,
        first: Option<i32>,
        after: Option<String>,
        last: Option<i32>,
        before: Option<String>,
    ) -> Result<super::merchant_webhooks::WebhookEndpointConnection> {
        super::merchant_webhooks::endpoints(ctx, first, after, last, before).await
    }

    /// The viewer's event log, oldest first (feed order: commit order), kept for the event
    /// retention (at least 30 days).
    #[allow(clippy::too_many_arguments)]
    async fn events(
        &self,
        ctx: &Context<'_>,
        first: Option<i32>,
        after: Option<String>,
        last: Option<i32>,
        before: Option<String>,
        filter: Option<EventFilterInput>,
    ) -> Result<EventConnection> {
        events::events(ctx, first, after, last, before, filter).await
    }

    /// One of the viewer's payments; null when absent or another account's.
    async fn payment(&self, ctx: &Context<'_>, id: ID) -> Result<Option<Direct>> {
        let id = PaymentId::parse(&id).map_err(|not| ApiError::bad_input("id", not.to_string()))?;
        let id = id.as_str();
        let found = node::FoundPayments::read(ctx, &[id.to_string()]).await?;
        Ok(found.get(id).map(Direct))
    }
}
