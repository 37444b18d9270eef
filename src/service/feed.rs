//! The feed of payment changes behind the `paymentUpdated` subscription. On SQLite it is
//! in-process; on PostgreSQL every change is announced with `NOTIFY` by the transaction that
//! makes it (see `persistence::payment_writes`), so a subscriber on any gateway instance
//! sharing the database hears of changes made by every other one, once they commit.

use tokio::sync::broadcast;

use crate::persistence::announcements::{
    Announced, CHANGES_CHANNEL as CHANNEL, parse_announcement,
};
use crate::persistence::payments::{self, Payment};
use crate::persistence::{Backend, Db};

/// Changes a slow subscriber may fall behind by before it skips some.
const BUFFER: usize = 1024;

/// Where payment changes are published and heard.
#[derive(Clone, Debug)]
pub struct PaymentFeed {
    local: broadcast::Sender<Payment>,
    backend: Backend,
}

impl PaymentFeed {
    /// A feed on `db`; on PostgreSQL it also listens for every instance's announcements.
    pub async fn start(db: Db, listen_url: Option<&str>) -> Self {
        let (local, _) = broadcast::channel(BUFFER);
        if let (Backend::Postgres, Some(url)) = (db.backend(), listen_url) {
            let forward = local.clone();
            let url = url.to_string();
            let db = db.clone();
            tokio::spawn(async move {
                let result = crate::persistence::listen(&url, CHANNEL, |payload| {
                    match parse_announcement(payload) {
                        Some(Announced::Whole(payment)) => {
                            let _ = forward.send(*payment);
                        }
                        Some(Announced::Reread { id, account_id }) => {
                            let (db, forward) = (db.clone(), forward.clone());
                            tokio::spawn(async move {
                                match payments::find_payment(&db, &account_id, &id).await {
                                    Ok(Some(payment)) => {
                                        let _ = forward.send(payment);
                                    }
                                    Ok(None) => {}
                                    Err(err) => {
                                        tracing::warn!(error = %err, "could not read a changed payment")
                                    }
                                }
                            });
                        }
                        None => tracing::warn!("unreadable payment change"),
                    }
                })
                .await;
                if let Err(err) = result {
                    tracing::error!(error = %err, "stopped listening for payment changes");
                }
            });
        }
        Self {
            local,
            backend: db.backend(),
        }
    }

    /// Announces a payment as it now stands, once its change has committed. On PostgreSQL
    /// the writing transaction has announced it already, and the listener forwards it.
    pub fn publish(&self, payment: &Payment) {
        if self.backend == Backend::Sqlite {
            let _ = self.local.send(payment.clone());
        }
    }

    pub fn subscribe(&self) -> broadcast::Receiver<Payment> {
        self.local.subscribe()
    }
}
