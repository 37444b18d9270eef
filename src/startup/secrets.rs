//! Secrets at rest at start-up: the operator's key read, every stored secret checked to
//! open with it, those still in the clear sealed, and a loud warning without a key.

use crate::config::Config;
use crate::domain::sealed::Sealer;
use crate::persistence::{Db, sealing};

use super::StartupError;

pub(super) fn sealer(config: &Config) -> Result<Sealer, StartupError> {
    config.secrets_key.sealer().map_err(StartupError::Settings)
}

pub(super) async fn seal_at_start(db: &Db, sealer: &Sealer) -> Result<(), StartupError> {
    // Every stored secret must open; with a key, those still in the clear are sealed now.
    let sealed = sealing::reseal(db, sealer, sealer, false)
        .await
        .map_err(|e| StartupError::Settings(format!("secrets at rest: {e}")))?;
    if sealed > 0 {
        sealing::purge_old_copies(db).await?;
        tracing::info!(sealed, "sealed the secrets stored in the clear");
    }
    if !sealer.has_key() {
        tracing::warn!(
            "NO SECRETS KEY: webhook and signing secrets are stored in the clear, and a copy \
             of the database is enough to forge webhooks and cursors; set \
             GRAPHPAY_SECRETS_KEY_FILE (graphpay secrets new-key makes a key)"
        );
    }
    Ok(())
}
