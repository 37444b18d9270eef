//! A watch on the statements of one request: raised by the first that fails, and awaitable,
//! so that a read a replica fails can be stopped there and answered by the primary at once.

use std::sync::atomic::{AtomicBool, Ordering};

use tokio::sync::Notify;

#[derive(Default)]
pub struct Watch {
    failed: AtomicBool,
    notify: Notify,
}

impl Watch {
    /// Called for every failed statement.
    pub(super) fn fail(&self) {
        if !self.failed.swap(true, Ordering::Relaxed) {
            self.notify.notify_one();
        }
    }

    /// Whether a statement has failed.
    pub fn failed(&self) -> bool {
        self.failed.load(Ordering::Relaxed)
    }

    /// Returns once a statement has failed (at once if one has).
    pub async fn failure(&self) {
        if !self.failed() {
            self.notify.notified().await;
        }
    }
}
