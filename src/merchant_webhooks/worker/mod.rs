//! The two loops behind merchant webhooks, run by every instance.
//!
//! **Fan-out** (`fan_out.rs`) tails the change feed from a durable cursor that all instances
//! share (one at a time holds it, see `persistence::webhooks::begin_fan_out`) and turns each
//! event into one delivery per endpoint that wants it, storing the body to send on every
//! attempt. It wakes when this instance's feed reader hands out a change, and once a second
//! regardless.
//!
//! **Dispatch** (`dispatch.rs`) claims due deliveries with a lease (so exactly one instance
//! makes each attempt, and another takes over after a crash), signs and sends them, and
//! records each attempt: acknowledged, to be retried on the schedule (exponential backoff,
//! full jitter), or given up, which disables an endpoint that has not acknowledged anything
//! since.

mod dispatch;
mod fan_out;

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{Notify, watch};

use super::address::AddressPolicy;
use super::outbound::Outbound;
use super::schedule::RetrySchedule;
use crate::persistence::Db;
use crate::service::feed::PaymentFeed;
use dispatch::dispatch_loop;
use fan_out::fan_out_loop;

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

pub(super) async fn until_stopped(stopped: &mut watch::Receiver<bool>) {
    let _ = stopped.wait_for(|s| *s).await;
}
