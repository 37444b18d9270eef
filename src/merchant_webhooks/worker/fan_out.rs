//! The fan-out loop: each change in the feed, past the cursor all instances share, becomes
//! one delivery per endpoint that wants it, with the body to send on every attempt.

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::{Notify, watch};

use super::until_stopped;
use crate::domain::feed::FeedEntry;
use crate::domain::time::Timestamp;
use crate::merchant_webhooks::body::body;
use crate::persistence::merchant_webhooks::{self as stored, NewDelivery};
use crate::persistence::{Db, DbError, feed, payments};
use crate::service::feed::PaymentFeed;

/// How often the fan-out's cursor is moved to the log's end while no endpoint is enabled.
const SKIP_EVERY: Duration = Duration::from_secs(5);

pub(super) async fn fan_out_loop(
    db: Db,
    feed: PaymentFeed,
    batch: u32,
    due: Arc<Notify>,
    mut stopped: watch::Receiver<bool>,
) {
    let mut changes = feed.changes();
    let mut skipped = None;
    let mut endpoints = EndpointCheck::default();
    loop {
        loop {
            match fan_out_round(&db, batch, &mut skipped, &mut endpoints).await {
                Ok(Round { read, stored }) => {
                    if stored > 0 {
                        due.notify_one();
                    }
                    if read < batch as usize {
                        break;
                    }
                }
                Err(err) => {
                    tracing::warn!(error = %err, "webhook fan-out failed; retrying");
                    break;
                }
            }
        }
        tokio::select! {
            _ = until_stopped(&mut stopped) => return,
            _ = changes.changed() => {}
            _ = tokio::time::sleep(Duration::from_secs(1)) => {}
        }
    }
}

struct Round {
    read: usize,
    stored: usize,
}

/// Whether any endpoint is enabled, asked at most every `ENDPOINT_CHECK_EVERY` (an endpoint
/// registered meanwhile loses nothing: it is owed the changes from where the feed stood when
/// it was created, whenever the fan-out gets to them).
#[derive(Default)]
struct EndpointCheck {
    checked: Option<(Instant, bool)>,
}

const ENDPOINT_CHECK_EVERY: Duration = Duration::from_millis(250);

impl EndpointCheck {
    async fn any(&mut self, db: &Db) -> Result<bool, DbError> {
        if let Some((at, any)) = self.checked
            && at.elapsed() < ENDPOINT_CHECK_EVERY
        {
            return Ok(any);
        }
        let any = stored::any_enabled_endpoint(db).await?;
        self.checked = Some((Instant::now(), any));
        Ok(any)
    }
}

/// One fan-out round: the events after the shared cursor, each to every endpoint that wants
/// it, and the cursor moved past them, in one commit.
///
/// Everything a round reads is read before it takes the cursor's lock, and the lock is taken
/// only to store the result if the cursor has not moved meanwhile. A round never waits on a
/// second connection while it holds the lock: a statement queued behind the lock (a schema
/// change, say) could otherwise wait on that connection's read, and the wait would go round
/// in a circle the database cannot see.
async fn fan_out_round(
    db: &Db,
    batch: u32,
    skipped: &mut Option<Instant>,
    endpoints: &mut EndpointCheck,
) -> Result<Round, DbError> {
    let idle = Round { read: 0, stored: 0 };
    // Looks without the lock first: most rounds find nothing to do.
    if !endpoints.any(db).await? {
        // Nobody to send anything to. The cursor is moved to the log's end now and then, so
        // that the first endpoint registered does not make a round read old history.
        if skipped.is_some_and(|at| at.elapsed() < SKIP_EVERY) {
            return Ok(idle);
        }
        *skipped = Some(Instant::now());
        // The end first, then the check: an endpoint whose creation committed before the
        // check stops the skip, and one committed after it is owed only the events committed
        // after it, which lie beyond the end taken before.
        let head = feed::head(db).await?;
        if stored::any_enabled_endpoint(db).await? {
            return Ok(idle);
        }
        if let Some(round) = stored::begin_fan_out(db).await? {
            round.finish(Vec::new(), head, Timestamp::now()).await?;
        }
        return Ok(idle);
    }
    let cursor = stored::fan_out_cursor(db).await?;
    let read = feed::read_after(db, cursor, batch).await?;
    let Some(last) = read.last else {
        return Ok(idle);
    };
    // Endpoints are read after the events: one created after this read is owed none of them.
    let deliveries = deliveries_for(db, &read.entries).await?;
    let Some(round) = stored::begin_fan_out(db).await? else {
        return Ok(idle);
    };
    if round.cursor != cursor {
        // Another instance ran a round meanwhile; start again from where it left the cursor.
        round.abandon().await?;
        return Ok(Round {
            read: read.rows,
            stored: 0,
        });
    }
    let stored = round.finish(deliveries, last, Timestamp::now()).await?;
    Ok(Round {
        read: read.rows,
        stored,
    })
}

/// One delivery per event and endpoint that wants it, with the body to send.
async fn deliveries_for(db: &Db, entries: &[FeedEntry]) -> Result<Vec<NewDelivery>, DbError> {
    let accounts: Vec<String> = entries
        .iter()
        .map(|e| e.event.account_id.clone())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let endpoints = stored::enabled_endpoints_of(db, &accounts).await?;
    let wanted: Vec<(&FeedEntry, Vec<&str>)> = entries
        .iter()
        .filter_map(|entry| {
            let to: Vec<&str> = endpoints
                .iter()
                .filter(|ep| {
                    ep.account_id == entry.event.account_id
                        && ep.wants(entry.event_type(), entry.event.to_status, entry.at)
                })
                .map(|ep| ep.id.as_str())
                .collect();
            (!to.is_empty()).then_some((entry, to))
        })
        .collect();
    let mut by_account: HashMap<&str, Vec<String>> = HashMap::new();
    for (entry, _) in &wanted {
        by_account
            .entry(entry.event.account_id.as_str())
            .or_default()
            .push(entry.payment.id.clone());
    }
    let (mut refunds, mut events) = (Vec::new(), Vec::new());
    for (account, payment_ids) in by_account {
        refunds.extend(payments::refunds_of(db, account, &payment_ids).await?);
        events.extend(payments::events_of(db, account, &payment_ids).await?);
    }
    let mut out = Vec::new();
    for (entry, to) in wanted {
        let text = body(entry, &refunds, &events);
        for endpoint_id in to {
            out.push(NewDelivery {
                endpoint_id: endpoint_id.to_string(),
                account_id: entry.event.account_id.clone(),
                event_id: entry.event.id.clone(),
                event_type: entry.event_type().to_string(),
                payment_id: entry.payment.id.clone(),
                payment_version: entry.payment.version,
                body: text.clone(),
            });
        }
    }
    Ok(out)
}
