//! Outgoing merchant webhooks: the gateway POSTs signed events to the URLs merchants register.
//!
//! - [`address`]: which endpoint URLs are accepted (public `http`/`https` only, so a merchant
//!   cannot point the gateway at its own network).
//! - [`signing`]: per-endpoint secrets and Standard Webhooks signatures.
//! - [`outbound`]: the HTTP client that makes one delivery attempt and reports its outcome.
//! - [`schedule`]: when a failed delivery is tried again, and when the gateway gives up.
//! - [`body`]: what is sent: the event and the payment as the change left it.
//! - [`endpoints`]: managing endpoints and reading their deliveries, for the API.
//! - [`worker`]: the fan-out of the change feed into deliveries, and their dispatch.

pub mod address;
pub mod body;
pub mod endpoints;
pub mod outbound;
pub mod schedule;
pub mod signing;
pub mod worker;
