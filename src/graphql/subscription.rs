//! The `Subscription` root: live payment updates over `graphql-transport-ws`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use async_graphql::{Context, ID, Result, Subscription as SubscriptionRoot};
use futures_util::Stream;
use tokio::sync::broadcast::error::RecvError;

use super::Viewer;
use super::objects::Payment;
use crate::domain::ids::PaymentId;
use crate::domain::time::Timestamp;
use crate::error::ApiError;
use crate::service::accounts::Keys;
use crate::service::payments::PaymentService;

/// How often an open subscription checks that its key (or its token's minting key) is still
/// live; with keys remembered for half a second, a revoked key ends its subscriptions within
/// about a second and a half.
const KEY_CHECK_INTERVAL: std::time::Duration = std::time::Duration::from_secs(1);

pub struct Subscription;

#[SubscriptionRoot]
impl Subscription {
    /// The viewer's payments, each time one changes; only the one with `id` when given.
    async fn payment_updated(
        &self,
        ctx: &Context<'_>,
        id: Option<ID>,
    ) -> Result<impl Stream<Item = Result<Payment>> + use<>> {
        let caller = ctx.data::<Viewer>()?.caller.clone();
        let keys = ctx.data::<Keys>()?.clone();
        let viewer = caller.account_id.clone();
        // A client token's subscription ends when the token expires.
        let expires_in = caller.expires_at.map(|at| {
            std::time::Duration::from_micros(
                u64::try_from(at.micros() - Timestamp::now().micros()).unwrap_or(0),
            )
        });
        let deadline = tokio::time::Instant::now()
            + expires_in.unwrap_or(std::time::Duration::from_secs(100 * 365 * 86_400));
        let id = id
            .map(|id| PaymentId::parse(&id))
            .transpose()
            .map_err(|not| ApiError::bad_input("id", not.to_string()))?;
        let slot = ctx.data::<Arc<SubscriptionSlots>>()?.acquire(&viewer)?;
        let only = id.map(|id| id.to_string());
        let receiver = ctx.data::<PaymentService>()?.feed().subscribe();
        let mut key_check = tokio::time::interval(KEY_CHECK_INTERVAL);
        key_check.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        Ok(futures_util::stream::unfold(
            Some((receiver, slot, key_check)),
            move |state| {
                let (viewer, only) = (viewer.clone(), only.clone());
                let (keys, caller) = (keys.clone(), caller.clone());
                async move {
                    let (mut receiver, slot, mut key_check) = state?;
                    loop {
                        let received = tokio::select! {
                            received = receiver.recv() => received,
                            () = tokio::time::sleep_until(deadline) => {
                                return Some((Err(ApiError::Unauthenticated.into()), None));
                            }
                            _ = key_check.tick() => {
                                // A database that cannot answer is not a revocation: the next
                                // tick asks again.
                                if let Ok(false) = keys.still_live(&caller).await {
                                    return Some((Err(ApiError::Unauthenticated.into()), None));
                                }
                                continue;
                            }
                        };
                        match received {
                            Ok(entry)
                                if entry.payment.account_id == viewer
                                    && only.as_ref().is_none_or(|id| *id == entry.payment.id) =>
                            {
                                let payment = Payment::as_changed(entry.payment.clone());
                                return Some((Ok(payment), Some((receiver, slot, key_check))));
                            }
                            Ok(_) => {}
                            Err(RecvError::Lagged(missed)) => {
                                // Skipping changes silently would leave the client wrong: end
                                // the subscription, so it reads afresh and subscribes again.
                                tracing::warn!(missed, "a subscriber fell behind the change feed");
                                return Some((Err(fell_behind().into()), None));
                            }
                            Err(RecvError::Closed) => return None,
                        }
                    }
                }
            },
        ))
    }
}

fn fell_behind() -> ApiError {
    ApiError::Throttled {
        retry_after_seconds: 1,
        message: "this subscription fell too far behind the change feed and was ended; read \
                  the payments again and subscribe again"
            .to_string(),
    }
}

/// How many subscriptions each account has open in this process, against a maximum.
#[derive(Debug)]
pub struct SubscriptionSlots {
    max_per_account: usize,
    open: Mutex<HashMap<String, usize>>,
}

impl SubscriptionSlots {
    pub fn new(max_per_account: usize) -> Arc<Self> {
        Arc::new(Self {
            max_per_account,
            open: Mutex::new(HashMap::new()),
        })
    }

    /// A slot for one more of `account`'s subscriptions, held until the subscription ends.
    fn acquire(self: &Arc<Self>, account: &str) -> Result<Slot, ApiError> {
        let mut open = self.open.lock().unwrap_or_else(|p| p.into_inner());
        let count = open.entry(account.to_string()).or_default();
        if *count >= self.max_per_account {
            return Err(ApiError::Throttled {
                retry_after_seconds: 1,
                message: format!(
                    "this account already has {} open subscriptions, the most allowed; end \
                     one before starting another",
                    self.max_per_account
                ),
            });
        }
        *count += 1;
        ::metrics::gauge!(crate::metrics::SUBSCRIPTIONS_OPEN).increment(1.0);
        Ok(Slot {
            slots: self.clone(),
            account: account.to_string(),
        })
    }
}

/// One open subscription; dropping it frees the slot.
struct Slot {
    slots: Arc<SubscriptionSlots>,
    account: String,
}

impl Drop for Slot {
    fn drop(&mut self) {
        ::metrics::gauge!(crate::metrics::SUBSCRIPTIONS_OPEN).decrement(1.0);
        let mut open = self.slots.open.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(count) = open.get_mut(&self.account) {
            *count -= 1;
            if *count == 0 {
                open.remove(&self.account);
            }
        }
    }
}
