//! Reads on streaming replicas: which server answers a read.
//!
//! The operator lists PostgreSQL streaming replicas of the primary. A document without a
//! mutation may be answered by one of them; everything else stays on the primary. A replica
//! is chosen only when it is known to be far enough along:
//! - a read with a consistency token (the primary's log position after the client's
//!   mutation, [`crate::domain::consistency`]) goes to a replica that has replayed at least
//!   that far;
//! - a read without one goes to a replica whose lag is within the bound (default 1 s).
//!
//! A read with a token also needs a replica within the bound, so that a token kept for long
//! never makes a read staler than one without.
//!
//! What is known comes from [`monitor`], which asks the primary how far it has written, and
//! each replica (on a connection of its own, on a timer of its own) how far it has replayed,
//! every tenth of a second; between two checks the lag is taken to grow with the clock, so a
//! monitor that stops hearing from a replica (or from the primary) sends reads to the primary.
//! Each URL must name one server: behind a load balancer the check and the reads could reach
//! different replicas. Anything else — no replica far enough along,
//! none up, a token that does not parse — is answered by the primary, never refused.

mod monitor;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use crate::domain::consistency::{Lsn, ReadAfter};
use crate::persistence::{Backend, Db, DbConfig, DbError};

use self::monitor::run as run_monitor;

/// The replicas an operator listed, and how far behind one may be for a read without a token.
#[derive(Clone, Debug)]
pub struct ReplicaSettings {
    /// `postgres://` URLs of streaming replicas of the primary; empty: every read on the
    /// primary.
    pub urls: Vec<String>,
    /// The most a replica may lag for a read without a consistency token.
    pub max_lag: Duration,
    /// How often the replicas' positions are checked.
    pub check_interval: Duration,
}

impl Default for ReplicaSettings {
    fn default() -> Self {
        Self {
            urls: Vec::new(),
            max_lag: Duration::from_secs(1),
            check_interval: Duration::from_millis(100),
        }
    }
}

/// The replicas and what is known of them; cheap to clone.
#[derive(Clone)]
pub struct Reads {
    inner: Arc<Inner>,
}

struct Inner {
    replicas: Vec<Replica>,
    max_lag: Duration,
    /// Where the round-robin among eligible replicas starts next.
    next: AtomicUsize,
    /// The origin of the instants kept as nanoseconds below.
    epoch: Instant,
}

/// One replica, and what the last check found.
pub struct Replica {
    /// `host:port/database`, for logs and metrics (never the credentials).
    pub label: Arc<str>,
    /// For reads.
    db: Db,
    /// For the checks: one connection of their own, so that busy reads never delay them.
    check: Db,
    up: AtomicBool,
    /// How far it had replayed at the last check.
    replayed: AtomicU64,
    /// Nanoseconds after `epoch` of the latest moment it is known to have had everything the
    /// primary had; 0: never known.
    covered_at: AtomicU64,
}

/// Where a read goes.
pub enum Route<'a> {
    Replica(&'a Replica),
    /// The primary, and why (the `reason` of the fallbacks metric).
    Primary(&'static str),
}

impl Reads {
    /// Pools on the replicas in `settings` (connected lazily) and their check, run on
    /// `background` (a pool on the primary); `None` when there are none.
    pub async fn start(
        primary: &DbConfig,
        settings: &ReplicaSettings,
        background: &Db,
    ) -> Result<Option<Reads>, DbError> {
        let Some(reads) = Self::connect(primary, settings, primary.max_connections).await? else {
            return Ok(None);
        };
        if background.backend() != Backend::Postgres {
            return Err(DbError::Other(
                "replicas need a PostgreSQL primary (DATABASE_URL=postgres://...)".into(),
            ));
        }
        tokio::spawn(run_monitor(
            reads.clone(),
            background.clone(),
            settings.check_interval,
        ));
        tracing::info!(replicas = settings.urls.len(), "reads may go to replicas");
        Ok(Some(reads))
    }

    /// Pools on the replicas in `settings` (connected lazily); `None` when there are none.
    async fn connect(
        primary: &DbConfig,
        settings: &ReplicaSettings,
        max_connections: u32,
    ) -> Result<Option<Reads>, DbError> {
        if settings.urls.is_empty() {
            return Ok(None);
        }
        let mut replicas = Vec::with_capacity(settings.urls.len());
        for url in &settings.urls {
            replicas.push(Replica {
                label: label_of(url).into(),
                db: Db::connect_replica(primary, url, max_connections).await?,
                check: Db::connect_replica(primary, url, 1).await?,
                up: AtomicBool::new(false),
                replayed: AtomicU64::new(0),
                covered_at: AtomicU64::new(0),
            });
        }
        Ok(Some(Reads {
            inner: Arc::new(Inner {
                replicas,
                max_lag: settings.max_lag,
                next: AtomicUsize::new(0),
                epoch: Instant::now(),
            }),
        }))
    }

    /// Where a read that asked for `after` goes now.
    pub fn route(&self, after: ReadAfter) -> Route<'_> {
        let inner = &*self.inner;
        let now = inner.nanos(Instant::now());
        let max_lag = u64::try_from(inner.max_lag.as_nanos()).unwrap_or(u64::MAX);
        let within_bound = |replica: &Replica| {
            let covered = replica.covered_at.load(Ordering::Relaxed);
            covered != 0 && now.saturating_sub(covered) <= max_lag
        };
        let reached = |replica: &Replica| match after {
            ReadAfter::Anything => true,
            ReadAfter::Position(lsn) => replica.replayed.load(Ordering::Relaxed) >= lsn.0,
            ReadAfter::Unknown => false,
        };
        let eligible = |replica: &Replica| {
            replica.up.load(Ordering::Relaxed) && reached(replica) && within_bound(replica)
        };
        let count = inner.replicas.len();
        let start = inner.next.fetch_add(1, Ordering::Relaxed);
        for i in 0..count {
            let replica = &inner.replicas[(start + i) % count];
            if eligible(replica) {
                return Route::Replica(replica);
            }
        }
        let up = || {
            inner
                .replicas
                .iter()
                .filter(|r| r.up.load(Ordering::Relaxed))
        };
        Route::Primary(match after {
            ReadAfter::Unknown => "unknown_token",
            _ if up().next().is_none() => "unavailable",
            ReadAfter::Position(_) if !up().any(reached) => "behind_token",
            _ => "lagging",
        })
    }

    fn replicas(&self) -> &[Replica] {
        &self.inner.replicas
    }
}

impl Replica {
    /// The pool on this replica, and its name.
    pub fn target(&self) -> (&Db, &Arc<str>) {
        (&self.db, &self.label)
    }

    /// What a check found: how far it has replayed, and since when it has had everything the
    /// primary had (if that is known).
    fn found(&self, replayed: Lsn, covered_at: Option<u64>) {
        self.replayed.store(replayed.0, Ordering::Relaxed);
        if let Some(at) = covered_at {
            self.covered_at.store(at.max(1), Ordering::Relaxed);
        }
        self.up.store(true, Ordering::Relaxed);
    }

    /// A check that failed: no reads until one succeeds, which must show its position anew.
    fn down(&self) {
        self.up.store(false, Ordering::Relaxed);
        self.covered_at.store(0, Ordering::Relaxed);
        self.replayed.store(0, Ordering::Relaxed);
    }
}

impl Inner {
    fn nanos(&self, at: Instant) -> u64 {
        u64::try_from(at.saturating_duration_since(self.epoch).as_nanos()).unwrap_or(u64::MAX)
    }
}

/// `host:port/database` of a PostgreSQL URL, without user or password.
fn label_of(url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let rest = rest.rsplit_once('@').map_or(rest, |(_, host)| host);
    rest.split('?').next().unwrap_or(rest).to_string()
}

#[cfg(test)]
mod tests {
    use super::label_of;

    #[test]
    fn a_replica_is_named_without_its_credentials() {
        assert_eq!(
            label_of("postgres://user:secret@db-2:5433/pay?sslmode=require"),
            "db-2:5433/pay"
        );
        assert_eq!(
            label_of("postgres://127.0.0.1:5433/test"),
            "127.0.0.1:5433/test"
        );
    }
}
