//! Settings of `graphpay sandbox`, the sandbox processor as its own service.

use std::net::SocketAddr;
use std::time::Duration;

use clap::Args;

use crate::persistence::DbConfig;
use crate::sandbox::{SandboxConfig, WebhookTarget};

/// Settings of `graphpay sandbox`.
#[derive(Args, Clone, Debug)]
pub struct SandboxArgs {
    /// Address to listen on; port 0 picks a free port (printed).
    #[arg(long, env = "SANDBOX_LISTEN", default_value = "127.0.0.1:9000")]
    pub listen: SocketAddr,

    /// The sandbox's own database, where it keeps every charge and refund by idempotency key.
    #[arg(
        long,
        env = "SANDBOX_DATABASE_URL",
        default_value = "sqlite://sandbox.db?mode=rwc"
    )]
    pub database_url: String,

    /// Where to send webhooks, e.g. `http://127.0.0.1:8000/webhooks/processor`; unset: none.
    #[arg(long, env = "SANDBOX_WEBHOOK_URL")]
    pub webhook_url: Option<String>,

    /// Secret to sign webhooks with; the gateway's `PROCESSOR_WEBHOOK_SECRET` must match.
    #[arg(long, env = "SANDBOX_WEBHOOK_SECRET", hide_env_values = true)]
    pub webhook_secret: Option<String>,

    /// How long to wait before sending a webhook, in milliseconds.
    #[arg(long, env = "SANDBOX_WEBHOOK_DELAY_MS", default_value_t = 1_000)]
    pub webhook_delay_ms: u64,
}

impl SandboxArgs {
    pub fn config(self) -> Result<SandboxConfig, String> {
        let webhooks = match (self.webhook_url, self.webhook_secret) {
            (Some(url), Some(secret)) => Some(WebhookTarget {
                url,
                secret: secret.into_bytes(),
                delay: Duration::from_millis(self.webhook_delay_ms),
            }),
            (None, _) => None,
            (Some(_), None) => return Err("--webhook-url needs --webhook-secret".into()),
        };
        Ok(SandboxConfig {
            listen: self.listen,
            database: DbConfig {
                url: self.database_url,
                schema: None,
                max_connections: 16,
                busy_timeout: Duration::from_secs(10),
                acquire_timeout: Duration::from_secs(3),
            },
            webhooks,
        })
    }
}
