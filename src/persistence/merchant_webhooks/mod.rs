//! Merchant webhooks in storage: endpoints, deliveries and attempts (with the one mapping
//! between their rows and the domain's values), the fan-out of the change feed into
//! deliveries, and the claiming of due deliveries by one instance at a time.

mod attempts;
mod deliveries;
mod endpoints;
mod fan_out;
mod rows;

pub use attempts::{AttemptResult, Claimed, claim_due, next_due, record_attempt};
pub use deliveries::{DeliveryPageQuery, attempts_of, find_delivery, redeliver};
pub use endpoints::{
    EndpointPageQuery, any_enabled_endpoint, delete_endpoint, enabled_endpoints_of, find_endpoint,
    insert_endpoint, update_endpoint,
};
pub use fan_out::{FanOutRound, NewDelivery, begin_fan_out, fan_out_cursor};
