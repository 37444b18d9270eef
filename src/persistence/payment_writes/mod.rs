//! Writing payments and refunds, by subject: creates for idempotency keys, status
//! transitions, and refunds. Every change is version-checked where it can race, records an
//! event carrying the payment as the change left it, which the change feed (`feed`) reads.

mod captures;
mod creates;
mod refunds;
mod transitions;
mod updates;

pub use super::idempotency_keys::{Completion, KeyRef, StoredOutcome, complete_key_with};
pub use captures::{ClaimedCapture, approved, claim_and_capture, set_capture_in_flight};
pub use creates::{NewClaim, claim_and_create, create_for_key};
pub(crate) use refunds::settle_refund_in;
pub use refunds::{begin_refund, settle_refund};
pub(crate) use transitions::transition_in;
pub use transitions::{Changes, KeyAction, Written, transition};
pub use updates::{MerchantData, update_merchant_data};
