//! Keeping an instance's signing secrets current: loaded at start (the first one made on a
//! fresh database) and reloaded every [`KeyringSettings::refresh`], so that a secret the
//! operator adds is known everywhere before any instance signs with it, and one retired stops
//! being accepted everywhere within the refresh.

use std::time::Duration;

use tokio::sync::watch;

use crate::domain::keyring::Keyring;
use crate::domain::time::Timestamp;
use crate::persistence::{Db, DbError, signing_keys};

/// How often the secrets are reloaded, and how long a new secret waits before it signs.
#[derive(Clone, Copy, Debug)]
pub struct KeyringSettings {
    pub refresh: Duration,
    /// Longer than `refresh` (with room for an instance that is slow to reload), so every
    /// instance verifies with a new secret before anything signed with it exists.
    pub activation: Duration,
}

impl Default for KeyringSettings {
    fn default() -> Self {
        Self {
            refresh: Duration::from_secs(1),
            activation: Duration::from_secs(10),
        }
    }
}

/// The secrets as stored now, with a first one made by `make` on a fresh database.
pub async fn load(
    db: &Db,
    settings: KeyringSettings,
    make: impl FnOnce() -> String,
) -> Result<Keyring, DbError> {
    let keys = signing_keys::all_or_first(db, make).await?;
    Keyring::of(&keys, Timestamp::now(), settings.activation)
        .ok_or_else(|| DbError::NotFound("a live signing secret".into()))
}

/// Reloads `ring` every `settings.refresh` until `stop` is set.
pub async fn refresh(
    db: Db,
    ring: Keyring,
    settings: KeyringSettings,
    mut stop: watch::Receiver<bool>,
) {
    let mut ticks = tokio::time::interval(settings.refresh);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            _ = ticks.tick() => {}
            _ = stop.changed() => return,
        }
        match signing_keys::all(&db).await {
            Ok(keys) => ring.replace(&keys, Timestamp::now(), settings.activation),
            Err(err) => tracing::warn!(error = %err, "reloading the signing secrets failed"),
        }
    }
}
