//! The feed of payment changes behind the `paymentUpdated` subscription. On SQLite it is
//! in-process; on PostgreSQL every change goes through `NOTIFY`, so a subscriber on any
//! gateway instance sharing the database hears of changes made by every other one.

use tokio::sync::broadcast;

use crate::persistence::payments::Payment;
use crate::persistence::{Backend, Db};

/// The PostgreSQL channel changes are announced on.
pub const CHANNEL: &str = "graphpay_payment_changes";
/// Changes a slow subscriber may fall behind by before it skips some.
const BUFFER: usize = 1024;

/// Where payment changes are published and heard.
#[derive(Clone, Debug)]
pub struct PaymentFeed {
    local: broadcast::Sender<Payment>,
    db: Db,
}

impl PaymentFeed {
    /// A feed on `db`; on PostgreSQL it also listens for every instance's announcements.
    pub async fn start(db: Db, listen_url: Option<&str>) -> Self {
        let (local, _) = broadcast::channel(BUFFER);
        if let (Backend::Postgres, Some(url)) = (db.backend(), listen_url) {
            let forward = local.clone();
            let url = url.to_string();
            tokio::spawn(async move {
                let result =
                    crate::persistence::listen(
                        &url,
                        CHANNEL,
                        |payload| match serde_json::from_str::<Payment>(payload) {
                            Ok(payment) => {
                                let _ = forward.send(payment);
                            }
                            Err(err) => tracing::warn!(error = %err, "unreadable payment change"),
                        },
                    )
                    .await;
                if let Err(err) = result {
                    tracing::error!(error = %err, "stopped listening for payment changes");
                }
            });
        }
        Self { local, db }
    }

    /// Announces a payment as it now stands.
    pub async fn publish(&self, payment: &Payment) {
        match self.db.backend() {
            Backend::Sqlite => {
                let _ = self.local.send(payment.clone());
            }
            Backend::Postgres => {
                let payload = serde_json::to_string(payment).unwrap_or_default();
                if let Err(err) = self.db.notify(CHANNEL, &payload).await {
                    tracing::warn!(error = %err, "could not announce a payment change");
                }
            }
        }
    }

    pub fn subscribe(&self) -> broadcast::Receiver<Payment> {
        self.local.subscribe()
    }
}
