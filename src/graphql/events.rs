//! The event log as clients read it: `PaymentEvent` (a payment's own status changes), `Event`
//! (one change in the log, with the payment as it left it), and `Query.events`, a connection in
//! feed order through the one keyset paginator. `Subscription.events` tails the same log from a
//! cursor (`subscription/events.rs`).

use std::sync::Arc;

use async_graphql::dataloader::DataLoader;
use async_graphql::{Context, ID, InputObject, Object, Result, SimpleObject};

use super::Viewer;
use super::listed::{self, EventFields, Rows, listed_connection};
use super::loaders::{AccountLoader, PaymentById};
use super::objects::{Payment, PaymentStatus, Refund};
use super::paging::{Listing, Paged, page_size, position};
use super::scalars::DateTime;
use crate::domain::cursor::CursorCodec;
use crate::domain::ids::{IdKind, PaymentId};
use crate::domain::paging::Position;
use crate::domain::payment::{self, event_type};
use crate::domain::time::Timestamp;
use crate::error::ApiError;
use crate::persistence::Db;
use crate::persistence::event_log::{self, EventFilter, EventPageQuery, LoggedEvent};
use crate::persistence::keyset::{self, PageRequest};
use crate::service::payments::PaymentService;

/// One status change of a payment.
pub struct PaymentEvent {
    pub event: payment::PaymentEvent,
}

#[Object]
impl PaymentEvent {
    /// The event's id (`evt_...`): the same as the `Event` in `Query.events` and the
    /// `webhook-id` of its webhooks.
    async fn id(&self) -> ID {
        ID(self.event.id.clone())
    }
    /// Null for the event that created the payment.
    #[allow(clippy::wrong_self_convention)]
    async fn from_status(&self) -> Option<PaymentStatus> {
        self.event.from_status.map(Into::into)
    }
    async fn to_status(&self) -> PaymentStatus {
        self.event.to_status.into()
    }
    async fn reason(&self) -> Option<&str> {
        self.event.reason.as_deref()
    }
    async fn created_at(&self) -> DateTime {
        DateTime(self.event.created_at)
    }
}

/// One change in the event log. Its id (`evt_...`) is the `webhook-id` of its webhooks and
/// the id of the payment's `PaymentEvent`.
#[derive(Clone)]
pub struct Event {
    pub logged: Arc<LoggedEvent>,
}

#[Object]
impl Event {
    /// Opaque id, prefixed `evt_`.
    pub async fn id(&self) -> ID {
        ID(self.logged.event.id.clone())
    }
    /// `payment.<status>` (the payment's new status in lower case), `payment.updated`,
    /// `refund.created`, `refund.succeeded` or `refund.failed`.
    #[graphql(name = "type")]
    async fn event_type(&self) -> &str {
        &self.logged.event.event_type
    }
    async fn created_at(&self) -> DateTime {
        DateTime(self.logged.event.created_at)
    }
    /// The payment with its fields as they stood right after this change.
    async fn payment(&self, ctx: &Context<'_>) -> Result<Payment> {
        if let Some(payment) = &self.logged.payment {
            return Ok(Payment::as_changed(payment.clone()));
        }
        // An event written before the log kept its payment: the payment as it is now.
        let loader = ctx.data::<DataLoader<AccountLoader>>()?;
        loader
            .load_one(PaymentById(self.logged.event.payment_id.clone()))
            .await?
            .map(Payment::from)
            .ok_or_else(|| ApiError::internal("an event's payment is missing").into())
    }
    /// For `refund.*` events, the refund as this change left it.
    async fn refund(&self) -> Option<Refund> {
        let refund = self.logged.refund.clone()?;
        Some(Refund {
            refund,
            parent: self.logged.payment.clone().map(Arc::new),
        })
    }
}

#[derive(SimpleObject, Clone)]
pub struct EventEdge {
    /// Opaque; pass it as `after` (to `Query.events` or `Subscription.events`) with the same
    /// filter.
    pub cursor: String,
    pub node: Event,
}

/// A page of the event log, oldest first.
pub struct EventConnection {
    paged: Paged<EventPageQuery>,
}

impl Rows for EventConnection {
    type Query = EventPageQuery;
    type Fields = EventFields;
    type Edge = EventEdge;
    type Node = Event;

    fn paged(&self) -> &Paged<EventPageQuery> {
        &self.paged
    }

    fn node(&self, logged: &Arc<LoggedEvent>) -> Event {
        Event {
            logged: logged.clone(),
        }
    }

    fn edge(cursor: String, node: Event) -> EventEdge {
        EventEdge { cursor, node }
    }
}

listed_connection!(EventConnection);

/// Which events to read; every part is optional and they combine.
#[derive(InputObject, Clone, Debug, Default)]
#[graphql(name = "EventFilter")]
pub struct EventFilterInput {
    /// Any of these types (`payment.succeeded`, `payment.updated`, `refund.created`, ...).
    pub types: Option<Vec<String>>,
    /// The events of this payment only.
    pub payment_id: Option<ID>,
    /// Made at or after this instant.
    pub created_after: Option<DateTime>,
    /// Made strictly before this instant.
    pub created_before: Option<DateTime>,
}

impl EventFilterInput {
    pub fn into_domain(self) -> Result<EventFilter, ApiError> {
        let known = event_type::all();
        let mut types = self.types.unwrap_or_default();
        if let Some(index) = types.iter().position(|t| !known.contains(t)) {
            return Err(ApiError::bad_input(
                &format!("filter.types[{index}]"),
                format!("not an event type; they are {}", known.join(", ")),
            ));
        }
        types.sort();
        types.dedup();
        let payment_id = self
            .payment_id
            .map(|id| PaymentId::parse(&id).map(|id| id.as_str().to_string()))
            .transpose()
            .map_err(|not| ApiError::bad_input("filter.paymentId", not.to_string()))?;
        Ok(EventFilter {
            types,
            payment_id,
            created_after: self.created_after.map(|t| t.0),
            created_before: self.created_before.map(|t| t.0),
        })
    }
}

/// What an event cursor is bound to: the event log, and the filter it was read with.
pub fn listing(filter: &EventFilter) -> Listing {
    let canonical = format!(
        "events|types={}|payment={}|created=[{},{})",
        filter.types.join(","),
        filter.payment_id.as_deref().unwrap_or_default(),
        filter
            .created_after
            .map(|t| t.micros().to_string())
            .unwrap_or_default(),
        filter
            .created_before
            .map(|t| t.micros().to_string())
            .unwrap_or_default(),
    );
    Listing {
        kind: IdKind::PaymentEvent,
        fingerprint: crate::domain::paging::fingerprint_of(&canonical),
    }
}

/// The oldest instant the event log is kept from, now.
pub fn kept_since(service: &PaymentService) -> Timestamp {
    let retention = i64::try_from(service.feed().retention().as_secs()).unwrap_or(i64::MAX);
    Timestamp::now().plus_seconds(-retention)
}

/// An event cursor, checked as any cursor is, and then against the retention: one that points
/// at an event older than what is kept gets `CURSOR_EXPIRED` (an event id carries the time it
/// was made).
pub fn event_position(
    codec: &CursorCodec,
    listing: Listing,
    cursor: Option<String>,
    kept_since: Timestamp,
) -> Result<Option<Position>, ApiError> {
    let position = position(codec, listing, cursor)?;
    if let Some(at) = &position {
        let made = crate::domain::ids::made_at(&at.id).unwrap_or(kept_since);
        if made < kept_since {
            return Err(ApiError::CursorExpired);
        }
    }
    Ok(position)
}

/// `Query.events`.
pub async fn events(
    ctx: &Context<'_>,
    first: Option<i32>,
    after: Option<String>,
    last: Option<i32>,
    before: Option<String>,
    filter: Option<EventFilterInput>,
) -> Result<EventConnection> {
    let viewer = ctx.data::<Viewer>()?;
    let codec = ctx.data::<CursorCodec>()?;
    let service = ctx.data::<PaymentService>()?;
    let size = page_size(first, last)?;
    let filter = filter.unwrap_or_default().into_domain()?;
    let listing = listing(&filter);
    let kept_since = kept_since(service);
    let query = EventPageQuery {
        backend: ctx.data::<Db>()?.backend(),
        account_id: viewer.account_id.clone(),
        request: PageRequest {
            size,
            after: event_position(codec, listing, after, kept_since)?,
            before: event_position(codec, listing, before, kept_since)?,
        },
        filter,
        kept_since,
        snapshots: *crate::graphql::kept::planned::<EventConnection, _, _>(
            ctx,
            ctx.item.pos,
            || listed::shows_snapshots(listed::document(ctx), &ctx.item.node.selection_set.node),
            |_| 1,
        ),
    };
    let page = keyset::fetch(ctx.data::<Db>()?, &query)
        .await
        .map_err(ApiError::from)?;
    Ok(EventConnection {
        paged: Paged::new(page, query, listing),
    })
}

/// `node(id)` for an event's id.
pub async fn event_node(ctx: &Context<'_>, id: &str) -> Result<Option<Event>> {
    let viewer = ctx.data::<Viewer>()?;
    let found = event_log::find(ctx.data::<Db>()?, &viewer.account_id, id)
        .await
        .map_err(ApiError::from)?;
    Ok(found.map(|logged| Event {
        logged: Arc::new(logged),
    }))
}
