//! The change feed: one reader per gateway instance tails the event log (see
//! `persistence::feed`) and hands every committed change to this instance's subscribers, in
//! feed order, whichever instance made it.
//!
//! The reader polls with an adaptive interval: a few milliseconds while changes keep coming,
//! backing off to half a second when the log is quiet. A change made here wakes it at once;
//! on PostgreSQL a change also sends one `NOTIFY`, after its commit and coalesced to at most
//! one per instance per `nudge_interval`, which wakes the readers of the other instances. On
//! PostgreSQL the reader has a connection of its own (`application_name` `graphpay-feed`).
//! When it cannot read, it reports the feed as not ready, retries with backoff, and resumes
//! from the last position it read: nothing is lost and nothing is handed out twice.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use tokio::sync::{Notify, broadcast, watch};

use crate::domain::feed::{FeedEntry, FeedPosition};
use crate::persistence::{self, Backend, Db, DbConfig, DbError, feed};

/// The `application_name` of the feed reader's own PostgreSQL connection.
pub const READER_NAME: &str = "graphpay-feed";
/// The `application_name` of the connection that listens for other instances' nudges.
pub const LISTENER_NAME: &str = "graphpay-feed-wake";

/// How the reader paces itself.
#[derive(Clone, Copy, Debug)]
pub struct FeedSettings {
    /// The polling interval while changes keep coming.
    pub poll_min: Duration,
    /// The polling interval the reader backs off to while the log is quiet.
    pub poll_max: Duration,
    /// Events read per statement.
    pub batch: u32,
    /// The shortest time between two nudges this instance sends to the others.
    pub nudge_interval: Duration,
    /// How long the event log is kept for readers of `Query.events` and
    /// `Subscription.events`.
    pub retention: Duration,
}

impl Default for FeedSettings {
    fn default() -> Self {
        Self {
            poll_min: Duration::from_millis(2),
            poll_max: Duration::from_millis(500),
            batch: 500,
            nudge_interval: Duration::from_millis(10),
            retention: Duration::from_secs(30 * 86_400),
        }
    }
}

/// Changes a subscriber may fall behind by before its subscription is ended.
const BUFFER: usize = 4096;
/// The first and the longest wait before reading again after a failed read.
const RETRY_MIN: Duration = Duration::from_millis(50);
const RETRY_MAX: Duration = Duration::from_secs(2);
/// How often the reader's lag is measured, and logged while there is any.
const LAG_EVERY: Duration = Duration::from_secs(1);
const LAG_LOG_EVERY: Duration = Duration::from_secs(10);

/// This instance's view of the change feed.
#[derive(Clone, Debug)]
pub struct PaymentFeed {
    shared: Arc<Shared>,
}

#[derive(Debug)]
struct Shared {
    entries: broadcast::Sender<Arc<FeedEntry>>,
    /// Counts what may mean new events (a change here, a nudge from elsewhere, events read),
    /// for consumers that read the log themselves (the webhook fan-out).
    changes: watch::Sender<u64>,
    /// Wakes this instance's reader.
    wake: Arc<Notify>,
    /// Wakes this instance's reader when somebody subscribes (it ignores `wake` while nobody
    /// is subscribed).
    subscribed: Arc<Notify>,
    /// Asks for a nudge to the other instances (PostgreSQL).
    nudge_others: Arc<Notify>,
    ready: AtomicBool,
    backend: Backend,
    retention: Duration,
}

impl PaymentFeed {
    /// Starts reading from the log's current end. The reader opens a connection of its own
    /// with `config`; on PostgreSQL a listener for other instances' nudges is started, and
    /// nudges are sent over `background`, a pool that requests do not use.
    pub async fn start(
        background: Db,
        config: &DbConfig,
        settings: FeedSettings,
    ) -> Result<Self, DbError> {
        let backend = background.backend();
        let reader_db = Db::connect_dedicated(config, READER_NAME, 1, true).await?;
        // Fails the start-up when the database cannot be read at all.
        feed::head(&reader_db).await?;
        let (entries, _) = broadcast::channel(BUFFER);
        let shared = Arc::new(Shared {
            entries,
            changes: watch::Sender::new(0),
            wake: Arc::new(Notify::new()),
            subscribed: Arc::new(Notify::new()),
            nudge_others: Arc::new(Notify::new()),
            ready: AtomicBool::new(true),
            backend,
            retention: settings.retention,
        });
        let reader = Reader {
            db: reader_db,
            shared: Arc::downgrade(&shared),
            wake: shared.wake.clone(),
            subscribed: shared.subscribed.clone(),
            settings,
            at: None,
        };
        tokio::spawn(reader.run());
        if backend == Backend::Postgres {
            let channel = channel_name(config.schema.as_deref());
            tokio::spawn(listen_for_nudges(
                config.url.clone(),
                channel.clone(),
                Arc::downgrade(&shared),
            ));
            tokio::spawn(send_nudges(
                background,
                channel,
                shared.nudge_others.clone(),
                Arc::downgrade(&shared),
                settings.nudge_interval,
            ));
        }
        Ok(Self { shared })
    }

    /// Says that a change has committed: this instance's reader looks at once, and the other
    /// instances' readers are nudged.
    pub fn nudge(&self) {
        self.shared.changed();
        self.shared.wake.notify_one();
        if self.shared.backend == Backend::Postgres {
            self.shared.nudge_others.notify_one();
        }
    }

    /// Every change read from now on, in feed order. The reader reads the log only while
    /// somebody is subscribed.
    pub fn subscribe(&self) -> broadcast::Receiver<Arc<FeedEntry>> {
        let receiver = self.shared.entries.subscribe();
        self.shared.subscribed.notify_one();
        receiver
    }

    /// Ticks whenever there may be new events in the log, for consumers that read it
    /// themselves.
    pub fn changes(&self) -> watch::Receiver<u64> {
        self.shared.changes.subscribe()
    }

    /// How long the event log is kept for readers.
    pub fn retention(&self) -> Duration {
        self.shared.retention
    }

    /// The backend of the database the log is in.
    pub fn backend(&self) -> Backend {
        self.shared.backend
    }

    /// Whether the reader's last attempt to read the log succeeded.
    pub fn is_ready(&self) -> bool {
        self.shared.ready.load(Ordering::Relaxed)
    }
}

impl Shared {
    fn changed(&self) {
        self.changes.send_modify(|n| *n = n.wrapping_add(1));
    }
}

/// The notification channel of one database (and schema): instances sharing it nudge each
/// other there.
fn channel_name(schema: Option<&str>) -> String {
    match schema {
        Some(schema) => format!("graphpay_feed_{schema}"),
        None => "graphpay_feed".to_string(),
    }
}

struct Reader {
    db: Db,
    shared: Weak<Shared>,
    wake: Arc<Notify>,
    subscribed: Arc<Notify>,
    settings: FeedSettings,
    /// Where reading goes on from; `None` while nobody is subscribed.
    at: Option<FeedPosition>,
}

impl Reader {
    /// Reads until the feed it serves is dropped. While nobody is subscribed it only checks,
    /// every `poll_max`, that it could read (changes do not wake it then, so a busy instance
    /// with no subscriber asks the database nothing per change); the next subscriber wakes it
    /// and starts at the log's end.
    async fn run(mut self) {
        let mut interval = self.settings.poll_min;
        let mut retry = RETRY_MIN;
        let mut failing_since: Option<Instant> = None;
        let mut lag = LagReport::default();
        loop {
            let Some(shared) = self.shared.upgrade() else {
                return;
            };
            let subscribed = shared.entries.receiver_count() > 0;
            if !subscribed {
                self.at = None;
            }
            let result = match self.at {
                Some(at) => feed::read_after(&self.db, at, self.settings.batch)
                    .await
                    .map(Some),
                None => feed::head(&self.db).await.map(|head| {
                    if subscribed {
                        self.at = Some(head);
                    }
                    None
                }),
            };
            match result {
                Ok(batch) => {
                    shared.ready.store(true, Ordering::Relaxed);
                    if let Some(since) = failing_since.take() {
                        tracing::info!(
                            unavailable_ms = since.elapsed().as_millis() as u64,
                            "reading the change feed again"
                        );
                    }
                    retry = RETRY_MIN;
                    let batch = batch.unwrap_or_default();
                    if let Some(last) = batch.last {
                        self.at = Some(last);
                        lag.read(last.position);
                        shared.changed();
                    }
                    for entry in batch.entries {
                        let _ = shared.entries.send(Arc::new(entry));
                    }
                    if subscribed {
                        lag.maybe_measure(&self.db).await;
                    }
                    if batch.rows == self.settings.batch as usize {
                        continue;
                    }
                    interval = if batch.rows > 0 {
                        self.settings.poll_min
                    } else if subscribed {
                        (interval * 2).min(self.settings.poll_max)
                    } else {
                        self.settings.poll_max
                    };
                }
                Err(err) => {
                    shared.ready.store(false, Ordering::Relaxed);
                    if failing_since.is_none() {
                        failing_since = Some(Instant::now());
                        tracing::warn!(error = %err, "cannot read the change feed; retrying");
                    }
                    drop(shared);
                    tokio::time::sleep(jittered(retry)).await;
                    retry = (retry * 2).min(RETRY_MAX);
                    continue;
                }
            }
            drop(shared);
            tokio::select! {
                _ = self.wake.notified(), if subscribed => interval = self.settings.poll_min,
                _ = self.subscribed.notified(), if !subscribed => {}
                _ = tokio::time::sleep(interval) => {}
            }
        }
    }
}

/// The reader's lag: the newest position in the log minus the newest it has read.
#[derive(Default)]
struct LagReport {
    read: i64,
    measured: Option<Instant>,
    logged: Option<Instant>,
}

impl LagReport {
    fn read(&mut self, position: i64) {
        self.read = self.read.max(position);
    }

    async fn maybe_measure(&mut self, db: &Db) {
        if self.measured.is_some_and(|at| at.elapsed() < LAG_EVERY) {
            return;
        }
        self.measured = Some(Instant::now());
        let Ok(newest) = feed::newest_position(db).await else {
            return;
        };
        if self.read == 0 {
            // Nothing read yet: the reader started at the log's end.
            self.read = newest;
        }
        let lag = (newest - self.read).max(0);
        crate::metrics::record_feed_lag(u64::try_from(lag).unwrap_or(0));
        if lag > 0 && self.logged.is_none_or(|at| at.elapsed() >= LAG_LOG_EVERY) {
            self.logged = Some(Instant::now());
            tracing::info!(lag, newest, read = self.read, "change feed lag");
        }
    }
}

/// `base` with up to half of it added at random, so instances do not retry in step.
fn jittered(base: Duration) -> Duration {
    let extra = rand::random_range(0..=base.as_millis() as u64 / 2);
    base + Duration::from_millis(extra)
}

/// Wakes this instance's reader whenever another instance nudges, reconnecting with backoff.
async fn listen_for_nudges(url: String, channel: String, shared: Weak<Shared>) {
    let mut retry = RETRY_MIN;
    loop {
        let Some(strong) = shared.upgrade() else {
            return;
        };
        let (wake, changes) = (strong.wake.clone(), strong.changes.clone());
        drop(strong);
        let alive = shared.clone();
        let result = persistence::listen(&url, LISTENER_NAME, &channel, move || {
            changes.send_modify(|n| *n = n.wrapping_add(1));
            wake.notify_one();
        });
        // Stop listening once the feed is gone.
        let stopped = async move {
            while alive.strong_count() > 0 {
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
        };
        tokio::select! {
            result = result => {
                if let Err(err) = result {
                    tracing::debug!(error = %err, "not listening for change nudges; retrying");
                }
            }
            _ = stopped => return,
        }
        tokio::time::sleep(jittered(retry)).await;
        retry = (retry * 2).min(RETRY_MAX);
    }
}

/// Sends the nudges this instance's changes ask for, at most one per `interval`.
async fn send_nudges(
    db: Db,
    channel: String,
    asked: Arc<Notify>,
    shared: Weak<Shared>,
    interval: Duration,
) {
    loop {
        tokio::select! {
            _ = asked.notified() => {}
            _ = tokio::time::sleep(Duration::from_secs(1)) => {
                if shared.strong_count() == 0 {
                    return;
                }
                continue;
            }
        }
        if let Err(err) = feed::nudge(&db, &channel).await {
            tracing::debug!(error = %err, "could not nudge the other instances");
        }
        tokio::time::sleep(interval).await;
    }
}
