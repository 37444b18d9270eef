//! Application services: the flows that combine domain rules, persistence and the processor.
//! No GraphQL here; resolvers call these.

pub mod feed;
pub mod idempotency;
pub mod payments;
pub mod reconcile;
pub mod refunds;
pub mod webhooks;
