//! Where the accounts' budgets are kept: in this process ([`Throttle`]), or in Redis, shared
//! by every instance ([`SharedBudget`]).

use std::sync::Arc;

use super::budget::{BudgetStatus, Held, Throttle, ThrottleSettings, Throttled};
use super::shared_budget::SharedBudget;

#[derive(Clone)]
pub enum Budget {
    Local(Arc<Throttle>),
    Shared(Arc<SharedBudget>),
}

/// Where a request's cost was taken from, for settling it there.
pub enum Hold {
    Local(Held),
    Shared,
}

impl Budget {
    /// The budget kept in Redis at `redis_url` (its flushing started), or, without one, this
    /// instance's own.
    pub fn start(redis_url: Option<&str>, settings: &ThrottleSettings) -> Result<Budget, String> {
        let Some(url) = redis_url else {
            return Ok(Budget::Local(Arc::new(Throttle::new(settings.clone()))));
        };
        let shared = Arc::new(SharedBudget::new(url, settings.clone())?);
        tokio::spawn(shared.clone().flush_forever());
        tracing::info!("cost budgets are shared through Redis");
        Ok(Budget::Shared(shared))
    }

    pub fn capacity(&self) -> u64 {
        match self {
            Budget::Local(throttle) => throttle.capacity(),
            Budget::Shared(shared) => shared.capacity(),
        }
    }

    /// Takes `cost` points from `account`'s budget, or says when it will hold them.
    pub async fn take(&self, account: &str, cost: u64) -> Result<(BudgetStatus, Hold), Throttled> {
        match self {
            Budget::Local(throttle) => throttle
                .take_held(account, cost)
                .map(|(status, held)| (status, Hold::Local(held))),
            Budget::Shared(shared) => shared.take(account, cost).await,
        }
    }

    /// Gives back what a request charged `requested` did not use of it (or takes what its
    /// result `actual`ly cost beyond it); `at_charge` is what its charge reported.
    pub fn settle(
        &self,
        account: &str,
        hold: &Hold,
        requested: u64,
        actual: u64,
        at_charge: BudgetStatus,
    ) -> BudgetStatus {
        match (self, hold) {
            (Budget::Shared(shared), hold) => {
                shared.settle(account, hold, requested, actual, at_charge)
            }
            (Budget::Local(throttle), Hold::Local(held)) => {
                settle_local(throttle, account, held, requested, actual)
            }
            (Budget::Local(throttle), Hold::Shared) => throttle.status(account),
        }
    }

    /// The account's budget now (as last seen, when it is kept in Redis).
    pub fn status(&self, account: &str) -> BudgetStatus {
        match self {
            Budget::Local(throttle) => throttle.status(account),
            Budget::Shared(shared) => shared.last_status(account),
        }
    }
}

/// Settles on a local bucket: gives back what the result did not use, or takes what it cost
/// beyond its charge.
pub(super) fn settle_local(
    throttle: &Throttle,
    account: &str,
    held: &Held,
    requested: u64,
    actual: u64,
) -> BudgetStatus {
    if actual <= requested {
        throttle.refund_held(account, held, requested - actual)
    } else {
        throttle.force_take_held(account, held, actual - requested)
    }
}
