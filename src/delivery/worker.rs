//! The two loops behind merchant webhooks, run by every instance.
//!
//! **Fan-out** tails the change feed from a durable cursor that all instances share (one at a
//! time holds it, see `persistence::webhooks::begin_fan_out`) and turns each event into one
//! delivery per endpoint that wants it, storing the body to send on every attempt. It wakes
//! when this instance's feed reader hands out a change, and once a second regardless.
//!
//! **Dispatch** claims due deliveries with a lease (so exactly one instance makes each
//! attempt, and another takes over after a crash), signs and sends them, and records each
//! attempt: acknowledged, to be retried on the schedule (exponential backoff, full jitter),
//! or given up, which disables an endpoint that has not acknowledged anything since.

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::{Notify, watch};
use tokio::task::JoinSet;

use super::address::AddressPolicy;
use super::body::body;
use super::outbound::{Attempt, Outbound};
use super::schedule::RetrySchedule;
use super::signing::{Secret, sign};
use crate::domain::feed::FeedEntry;
use crate::domain::ids::{IdKind, new_id};
use crate::domain::time::Timestamp;
use crate::domain::webhook_endpoint::WebhookAttempt;
use crate::persistence::webhooks::{self, AttemptResult, Claimed, NewDelivery};
use crate::persistence::{Db, DbError, feed, payments};
use crate::service::feed::PaymentFeed;

/// How merchant webhooks are sent.
#[derive(Clone, Copy, Debug)]
pub struct DeliverySettings {
    pub policy: AddressPolicy,
    pub schedule: RetrySchedule,
    pub connect_timeout: Duration,
    pub attempt_timeout: Duration,
    /// How long a claim on a delivery lasts; longer than an attempt can take.
    pub lease: Duration,
    /// Attempts this instance makes at once.
    pub concurrency: usize,
    /// Events fanned out per round.
    pub batch: u32,
}

impl Default for DeliverySettings {
    fn default() -> Self {
        Self::with_attempt_timeout(Duration::from_secs(10))
    }
}

impl DeliverySettings {
    /// The defaults with attempts of at most `attempt_timeout` (the connection's 2 s
    /// included), claimed for twice that and a second more.
    pub fn with_attempt_timeout(attempt_timeout: Duration) -> Self {
        Self {
            policy: AddressPolicy::default(),
            schedule: RetrySchedule::default(),
            connect_timeout: Duration::from_secs(2).min(attempt_timeout),
            attempt_timeout,
            lease: attempt_timeout * 2 + Duration::from_secs(1),
            concurrency: 16,
            batch: 200,
        }
    }
}

/// How often the fan-out's cursor is moved to the log's end while no endpoint is enabled.
const SKIP_EVERY: Duration = Duration::from_secs(5);

/// Why an endpoint was disabled when it failed for the whole schedule.
pub const DISABLED_FOR_FAILING: &str =
    "every delivery failed for the whole retry schedule; fix the endpoint and enable it again";

/// The webhook loops of one instance, ready to run.
pub struct Deliveries {
    db: Db,
    feed: PaymentFeed,
    settings: DeliverySettings,
    outbound: Outbound,
}

impl Deliveries {
    pub fn new(db: Db, feed: PaymentFeed, settings: DeliverySettings) -> Result<Self, String> {
        let outbound = Outbound::new(
            settings.policy,
            settings.connect_timeout,
            settings.attempt_timeout,
        )?;
        Ok(Self {
            db,
            feed,
            settings,
            outbound,
        })
    }

    /// Runs both loops until `stopped` turns true.
    pub async fn run(self, stopped: watch::Receiver<bool>) {
        let due = Arc::new(Notify::new());
        let fan_out = fan_out_loop(
            self.db.clone(),
            self.feed.clone(),
            self.settings.batch,
            due.clone(),
            stopped.clone(),
        );
        let dispatch = dispatch_loop(self, due, stopped);
        tokio::join!(fan_out, dispatch);
    }
}

async fn until_stopped(stopped: &mut watch::Receiver<bool>) {
    let _ = stopped.wait_for(|s| *s).await;
}

async fn fan_out_loop(
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
        let any = webhooks::any_enabled_endpoint(db).await?;
        self.checked = Some((Instant::now(), any));
        Ok(any)
    }
}

/// One fan-out round: the events after the shared cursor, each to every endpoint that wants
/// it, and the cursor moved past them, in one commit.
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
        if let Some(round) = webhooks::begin_fan_out(db).await? {
            // The end first, then the check: an endpoint whose creation committed before
            // the check stops the skip, and one committed after it is owed only the events
            // committed after it, which lie beyond the end taken before.
            let head = feed::head(db).await?;
            let to = if webhooks::any_enabled_endpoint(db).await? {
                round.cursor
            } else {
                head
            };
            round.finish(Vec::new(), to, Timestamp::now()).await?;
        }
        return Ok(idle);
    }
    let peek = webhooks::fan_out_cursor(db).await?;
    if feed::read_after(db, peek, 1).await?.rows == 0 {
        return Ok(idle);
    }
    let Some(round) = webhooks::begin_fan_out(db).await? else {
        return Ok(idle);
    };
    let now = Timestamp::now();
    let read = feed::read_after(db, round.cursor, batch).await?;
    let entries = read.entries;
    let Some(last) = read.last else {
        let cursor = round.cursor;
        round.finish(Vec::new(), cursor, now).await?;
        return Ok(idle);
    };
    let deliveries = deliveries_for(db, &entries).await?;
    let stored = round.finish(deliveries, last, now).await?;
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
    let endpoints = webhooks::enabled_endpoints_of(db, &accounts).await?;
    let wanted: Vec<(&FeedEntry, Vec<&str>)> = entries
        .iter()
        .filter_map(|entry| {
            let to: Vec<&str> = endpoints
                .iter()
                .filter(|ep| {
                    ep.account_id == entry.event.account_id
                        && ep.wants(entry.event.to_status, entry.at)
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
                event_type: entry.event_type(),
                payment_id: entry.payment.id.clone(),
                payment_version: entry.payment.version,
                body: text.clone(),
            });
        }
    }
    Ok(out)
}

async fn dispatch_loop(
    deliveries: Deliveries,
    due: Arc<Notify>,
    mut stopped: watch::Receiver<bool>,
) {
    let Deliveries {
        db,
        settings,
        outbound,
        ..
    } = deliveries;
    let mut inflight = JoinSet::new();
    loop {
        // Attempts that have finished make room.
        while inflight.try_join_next().is_some() {}
        let room = settings.concurrency.saturating_sub(inflight.len());
        if room > 0 {
            let now = Timestamp::now();
            let lease_until = later(now, settings.lease);
            match webhooks::claim_due(&db, now, lease_until, room as u64).await {
                Ok(claimed) => {
                    for claim in claimed {
                        inflight.spawn(attempt(
                            db.clone(),
                            outbound.clone(),
                            settings.schedule,
                            claim,
                        ));
                    }
                }
                Err(err) => tracing::warn!(error = %err, "could not claim webhook deliveries"),
            }
        }
        // Until the next claimable delivery is due (at least 10 ms: one due now but not
        // claimed is being claimed by another instance), at most a second.
        let wait = match webhooks::next_due(&db).await {
            Ok(Some(at)) => {
                let micros = (at.micros() - Timestamp::now().micros()).clamp(10_000, 1_000_000);
                Duration::from_micros(micros as u64)
            }
            _ => Duration::from_secs(1),
        };
        tokio::select! {
            _ = until_stopped(&mut stopped) => {
                // Attempts in flight are dropped; their leases run out and another claim
                // sends them again.
                inflight.abort_all();
                return;
            }
            _ = due.notified() => {}
            // Claims go in batches: once half the attempts in flight have finished.
            _ = drain_to(&mut inflight, settings.concurrency / 2), if !inflight.is_empty() => {}
            _ = tokio::time::sleep(wait) => {}
        }
    }
}

/// Waits until at most `left` attempts are still in flight.
async fn drain_to(inflight: &mut JoinSet<()>, left: usize) {
    while inflight.len() > left {
        if inflight.join_next().await.is_none() {
            return;
        }
    }
}

fn later(at: Timestamp, by: Duration) -> Timestamp {
    Timestamp::from_micros(at.micros().saturating_add(by.as_micros() as i64))
}

/// Signs and sends one claimed delivery, and records what came of it.
async fn attempt(db: Db, outbound: Outbound, schedule: RetrySchedule, claim: Claimed) {
    let started = Timestamp::now();
    let sent = match Secret::parse(&claim.secret) {
        Some(secret) => {
            let headers = sign(
                &secret,
                &claim.delivery.event_id,
                started.micros() / 1_000_000,
                claim.delivery.body.as_bytes(),
            );
            outbound
                .send(&claim.url, &headers, claim.delivery.body.as_bytes())
                .await
        }
        None => {
            // Not sent, but an attempt all the same, so the schedule still runs out.
            tracing::error!(delivery = %claim.delivery.id, "an endpoint's stored secret is unreadable");
            Attempt {
                status_code: None,
                duration_ms: 0,
                error: Some("not sent: the endpoint's secret is unreadable".to_string()),
            }
        }
    };
    let now = Timestamp::now();
    let result = if sent.acknowledged() {
        AttemptResult::Acknowledged
    } else {
        let first = claim.delivery.first_attempt_at.unwrap_or(started);
        if schedule.gives_up(first.micros(), now.micros()) {
            AttemptResult::GaveUp
        } else {
            let failed = u32::try_from(claim.delivery.attempt_count + 1).unwrap_or(u32::MAX);
            let delay = schedule.delay_after(failed, &mut rand::rng());
            AttemptResult::RetryAt(later(now, delay))
        }
    };
    let outcome = match result {
        AttemptResult::Acknowledged => "acknowledged",
        AttemptResult::RetryAt(_) => "retrying",
        AttemptResult::GaveUp => "gave_up",
    };
    crate::metrics::record_webhook_attempt(outcome);
    let record = WebhookAttempt {
        id: new_id(IdKind::WebhookAttempt),
        delivery_id: claim.delivery.id.clone(),
        at: started,
        status_code: sent.status_code.map(i32::from),
        duration_ms: i32::try_from(sent.duration_ms).unwrap_or(i32::MAX),
        error: sent.error.clone(),
    };
    match webhooks::record_attempt(&db, &claim, &record, result, DISABLED_FOR_FAILING).await {
        Ok(true) => {}
        Ok(false) => tracing::warn!(
            delivery = %claim.delivery.id,
            "a webhook attempt outlived its lease; another instance owns the delivery now"
        ),
        Err(err) => tracing::warn!(error = %err, delivery = %claim.delivery.id,
            "could not record a webhook attempt"),
    }
    if result == AttemptResult::GaveUp {
        tracing::warn!(delivery = %claim.delivery.id, endpoint = %claim.delivery.endpoint_id,
            "a webhook delivery was given up after its retry schedule");
    }
}
