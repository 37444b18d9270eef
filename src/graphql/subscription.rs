//! The `Subscription` root: live payment updates over `graphql-transport-ws`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use async_graphql::{Context, ID, Result, Subscription as SubscriptionRoot};
use futures_util::Stream;
use tokio::sync::broadcast::error::RecvError;

use super::Viewer;
use super::events::{EventEdge, EventFilterInput};
use super::objects::Payment;
use crate::domain::ids::PaymentId;
use crate::domain::time::Timestamp;
use crate::error::ApiError;
use crate::service::accounts::{Caller, Keys};
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
        let viewer = ctx.data::<Viewer>()?.account_id.clone();
        let id = id
            .map(|id| PaymentId::parse(&id))
            .transpose()
            .map_err(|not| ApiError::bad_input("id", not.to_string()))?;
        let held = Held::new(ctx, ctx.data::<Arc<SubscriptionSlots>>()?)?;
        let only = id.map(|id| id.to_string());
        let receiver = ctx.data::<PaymentService>()?.feed().subscribe();
        Ok(futures_util::stream::unfold(
            Some((receiver, held)),
            move |state| {
                let (viewer, only) = (viewer.clone(), only.clone());
                async move {
                    let (mut receiver, mut held) = state?;
                    loop {
                        let received = tokio::select! {
                            received = receiver.recv() => received,
                            ended = held.ended() => return Some((Err(ended.into()), None)),
                        };
                        match received {
                            Ok(entry)
                                if entry.payment.account_id == viewer
                                    && only.as_ref().is_none_or(|id| *id == entry.payment.id) =>
                            {
                                let payment = Payment::as_changed(entry.payment.clone());
                                return Some((Ok(payment), Some((receiver, held))));
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

    /// The viewer's events (as `Query.events` lists them), from the one after `after` (the
    /// cursor of the last event the client saw, from this subscription or from
    /// `Query.events`, with the same filter), then each one as it happens: nothing missed,
    /// nothing repeated. Without `after`, from now on. A cursor older than the event log's
    /// retention gets `CURSOR_EXPIRED`.
    async fn events(
        &self,
        ctx: &Context<'_>,
        after: Option<String>,
        filter: Option<EventFilterInput>,
    ) -> Result<impl Stream<Item = Result<EventEdge>> + use<>> {
        super::event_tail::events(ctx, after, filter).await
    }
}

/// What keeps a subscription open: a slot among its account's, and a credential that is
/// still good (a client token ends its subscriptions when it expires, a revoked key within
/// about a second and a half).
pub(super) struct Held {
    _slot: Slot,
    deadline: tokio::time::Instant,
    key_check: tokio::time::Interval,
    keys: Keys,
    caller: Caller,
}

impl Held {
    pub(super) fn new(ctx: &Context<'_>, slots: &Arc<SubscriptionSlots>) -> Result<Self> {
        let caller = ctx.data::<Viewer>()?.caller.clone();
        let keys = ctx.data::<Keys>()?.clone();
        let expires_in = caller.expires_at.map(|at| {
            std::time::Duration::from_micros(
                u64::try_from(at.micros() - Timestamp::now().micros()).unwrap_or(0),
            )
        });
        let deadline = tokio::time::Instant::now()
            + expires_in.unwrap_or(std::time::Duration::from_secs(100 * 365 * 86_400));
        let slot = slots.acquire(&caller.account_id)?;
        let mut key_check = tokio::time::interval(KEY_CHECK_INTERVAL);
        key_check.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        Ok(Held {
            _slot: slot,
            deadline,
            key_check,
            keys,
            caller,
        })
    }

    /// Waits until the credential is no longer good, and says so.
    pub(super) async fn ended(&mut self) -> ApiError {
        loop {
            tokio::select! {
                () = tokio::time::sleep_until(self.deadline) => return ApiError::Unauthenticated,
                _ = self.key_check.tick() => {
                    // A database that cannot answer is not a revocation: the next tick asks
                    // again.
                    if let Ok(false) = self.keys.still_live(&self.caller).await {
                        return ApiError::Unauthenticated;
                    }
                }
            }
        }
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
