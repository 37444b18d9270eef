//! Pure domain logic: no I/O, no framework types. Values here are validated once, at the edge,
//! and then carry that proof in their type.

pub mod account;
pub mod api_key;
pub mod capture;
pub mod client_token;
pub mod consistency;
pub mod currency;
pub mod cursor;
pub mod feed;
pub mod idempotency;
pub mod ids;
pub mod keyring;
pub mod merchant_data;
pub mod money;
pub mod paging;
pub mod payment;
pub mod processor_event;
pub mod return_url;
pub mod scope;
pub mod sealed;
pub mod state_machine;
pub mod status;
pub mod submit_token;
pub mod text;
pub mod time;
pub mod webhook_endpoint;
