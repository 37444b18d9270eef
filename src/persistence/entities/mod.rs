//! sea-orm entities, one per table (see the `migration` crate for the DDL).

pub mod accounts;
pub mod api_keys;
pub mod feed_cursors;
pub mod idempotency_keys;
pub mod payment_events;
pub mod payment_metadata;
pub mod payments;
pub mod processor_events;
pub mod refunds;
pub mod sandbox_operations;
pub mod settings;
pub mod signing_keys;
pub mod submit_tokens;
pub mod webhook_attempts;
pub mod webhook_deliveries;
pub mod webhook_endpoints;
