//! `Subscription.events`: the viewer's event log from a cursor, then live, read by position.
//!
//! The subscription reads the log itself, forward from where it stands, in the order of
//! `Query.events` and with its horizon (see `persistence::event_log`): first every event after
//! the client's cursor, then, whenever the change feed says something may have committed (and
//! at least once a second), whatever lies past the last event sent. Replay and live events are
//! the same reads, so there is no seam at which one could be missed or sent twice, and a
//! change made on any instance is found the same way. A read that fails (the database
//! restarting) is retried with backoff from the same place; the subscription stays open.

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;

use async_graphql::{Context, Result};
use futures_util::Stream;
use tokio::sync::watch;

use super::Viewer;
use super::events::{Event, EventEdge, EventFilterInput, event_position, kept_since, listing};
use super::paging::Listing;
use super::subscription::{Held, SubscriptionSlots};
use crate::domain::cursor::CursorCodec;
use crate::domain::paging::PageSize;
use crate::error::ApiError;
use crate::persistence::event_log::{self, EventPageQuery, LoggedEvent, position_of};
use crate::persistence::keyset::{self, PageRequest};
use crate::persistence::{Db, DbError};
use crate::service::payments::PaymentService;

/// Events read per statement.
const BATCH: u64 = 100;
/// How soon the log is read again after a read that found nothing: soon after the change feed
/// said something may have committed (on PostgreSQL its event becomes readable only once
/// every older transaction has ended), backing off to once a second while nothing happens.
const POLL_MIN: Duration = Duration::from_millis(20);
const POLL_MAX: Duration = Duration::from_secs(1);
const RETRY_MIN: Duration = Duration::from_millis(100);
const RETRY_MAX: Duration = Duration::from_secs(2);

/// The stream of `Subscription.events(after, filter)`.
pub async fn events(
    ctx: &Context<'_>,
    after: Option<String>,
    filter: Option<EventFilterInput>,
) -> Result<impl Stream<Item = Result<EventEdge>> + use<>> {
    let viewer = ctx.data::<Viewer>()?;
    let service = ctx.data::<PaymentService>()?.clone();
    let codec = ctx.data::<CursorCodec>()?.clone();
    let db = ctx.data::<Db>()?.clone();
    let filter = filter.unwrap_or_default().into_domain()?;
    let listing = listing(&filter);
    let since = kept_since(&service);
    let after = event_position(&codec, listing, after, since)?;
    let held = Held::new(ctx, ctx.data::<Arc<SubscriptionSlots>>()?)?;
    let start = match after {
        Some(position) => position,
        None => event_log::head(&db).await.map_err(ApiError::from)?,
    };
    let tail = Tail {
        changes: service.feed().changes(),
        query: EventPageQuery {
            backend: db.backend(),
            account_id: viewer.account_id.clone(),
            filter,
            kept_since: since,
            request: PageRequest {
                size: PageSize::First(BATCH),
                after: Some(start),
                before: None,
            },
            snapshots: true,
        },
        db,
        service,
        codec,
        listing,
        buffer: VecDeque::new(),
        held,
        retry: RETRY_MIN,
        poll: POLL_MIN,
    };
    Ok(futures_util::stream::unfold(
        Some(tail),
        |tail| async move {
            let mut tail = tail?;
            match tail.next().await {
                Ok(edge) => Some((Ok(edge), Some(tail))),
                Err(ended) => Some((Err(ended.into()), None)),
            }
        },
    ))
}

struct Tail {
    db: Db,
    service: PaymentService,
    codec: CursorCodec,
    listing: Listing,
    query: EventPageQuery,
    /// Events read and not yet sent, in feed order.
    buffer: VecDeque<Arc<LoggedEvent>>,
    changes: watch::Receiver<u64>,
    held: Held,
    retry: Duration,
    poll: Duration,
}

impl Tail {
    /// The next event past the last one sent, waiting for it as long as it takes; an error
    /// ends the subscription (its credential ended).
    async fn next(&mut self) -> Result<EventEdge, ApiError> {
        loop {
            if let Some(logged) = self.buffer.pop_front() {
                let position = position_of(&logged);
                let edge = EventEdge {
                    cursor: self.codec.encode(&position, self.listing.fingerprint),
                    node: Event { logged },
                };
                self.query.request.after = Some(position);
                return Ok(edge);
            }
            self.changes.borrow_and_update();
            match self.read().await {
                Ok(found) if !found.is_empty() => {
                    self.retry = RETRY_MIN;
                    self.buffer.extend(found);
                }
                Ok(_) => {
                    self.retry = RETRY_MIN;
                    let changes = &mut self.changes;
                    let changed = async move {
                        if changes.changed().await.is_err() {
                            std::future::pending::<()>().await;
                        }
                    };
                    tokio::select! {
                        () = changed => self.poll = POLL_MIN,
                        () = tokio::time::sleep(self.poll) => {
                            self.poll = (self.poll * 2).min(POLL_MAX);
                        }
                        ended = self.held.ended() => return Err(ended),
                    }
                }
                Err(err) => {
                    tracing::warn!(error = %err, "an events subscription could not read the log; retrying");
                    let wait = self.retry;
                    self.retry = (self.retry * 2).min(RETRY_MAX);
                    tokio::select! {
                        () = tokio::time::sleep(wait) => {}
                        ended = self.held.ended() => return Err(ended),
                    }
                }
            }
        }
    }

    async fn read(&mut self) -> Result<Vec<Arc<LoggedEvent>>, DbError> {
        self.query.kept_since = kept_since(&self.service);
        Ok(keyset::fetch(&self.db, &self.query).await?.rows)
    }
}
