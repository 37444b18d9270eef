//! The sandbox's outgoing webhooks: each event signed, sent after a delay, and retried until
//! the gateway accepts it.

use std::time::Duration;

use crate::domain::processor_event::{SIGNATURE_HEADER, sign};
use crate::domain::time::Timestamp;
use crate::processor::events::WebhookEvent;

/// Where and how the sandbox delivers its webhooks.
#[derive(Clone, Debug)]
pub struct WebhookTarget {
    pub url: String,
    pub secret: Vec<u8>,
    pub delay: Duration,
}

const DELIVERY_ATTEMPTS: u32 = 8;

impl WebhookTarget {
    /// Sends `event` in the background after the delay, retrying with backoff until the
    /// gateway answers 2xx.
    pub fn deliver_later(
        &self,
        event: WebhookEvent,
        before: impl Future<Output = ()> + Send + 'static,
    ) {
        let target = self.clone();
        tokio::spawn(async move {
            tokio::time::sleep(target.delay).await;
            before.await;
            target.deliver(&event).await;
        });
    }

    /// Sends `event` now, retrying until the gateway accepts it or the attempts run out.
    pub async fn deliver(&self, event: &WebhookEvent) -> bool {
        crate::tls::install_default_provider();
        let client = reqwest::Client::new();
        let Ok(body) = serde_json::to_vec(event) else {
            return false;
        };
        let mut wait = Duration::from_millis(100);
        for attempt in 1..=DELIVERY_ATTEMPTS {
            let now = Timestamp::now().micros() / 1_000_000;
            let sent = client
                .post(&self.url)
                .header(SIGNATURE_HEADER, sign(&self.secret, now, &body))
                .header("content-type", "application/json")
                .body(body.clone())
                .timeout(Duration::from_secs(5))
                .send()
                .await;
            match sent {
                Ok(response) if response.status().is_success() => return true,
                Ok(response) => {
                    tracing::warn!(attempt, status = %response.status(), event = %event.id, "webhook refused")
                }
                Err(err) => {
                    tracing::warn!(attempt, error = %err, event = %event.id, "webhook not delivered")
                }
            }
            tokio::time::sleep(wait).await;
            wait = (wait * 2).min(Duration::from_secs(5));
        }
        false
    }
}
