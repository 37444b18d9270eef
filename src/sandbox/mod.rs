//! The built-in sandbox processor: a stand-in for a real processor whose behaviour is chosen by
//! the payment source token. The gateway runs it in process when no processor URL is set, and
//! `graphpay sandbox` runs it as its own HTTP service with fault injection. Either way it keeps
//! durable records by idempotency key (`persistence::sandbox`) and settles asynchronous
//! operations by signed webhook.
//!
//! - `processor`: the logic, behind the `Processor` trait
//! - `action_page`: the customer-action page (3-D Secure)
//! - `service`: the HTTP service and its injected faults
//! - `webhooks`: delivery of the sandbox's webhooks to the gateway

pub mod action_page;
mod processor;
mod service;
mod webhooks;

pub use processor::{ActionAnswer, PendingAction, Sandbox};
pub use service::{FaultSettings, SandboxApp, SandboxConfig};
pub use webhooks::WebhookTarget;
