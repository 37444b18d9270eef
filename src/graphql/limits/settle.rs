//! A request's cost taken from the account's budget once the checks passed, and settled on
//! its response: what the result did not use goes back, and the response reports the cost.

use std::sync::atomic::Ordering;

use async_graphql::{Response, ServerError, ServerResult, Value};

use super::budget::BudgetStatus;
use super::{Charge, GuardedRequest, RequestState, Shared, ToTake};
use crate::error::ApiError;

impl GuardedRequest {
    /// Takes the cost the checks found from the account's budget (a round trip, when the
    /// budget is kept in Redis), before anything runs; or refuses with `THROTTLED`.
    pub(crate) async fn take(&self) -> ServerResult<()> {
        let to_take = self.state.to_take.lock().ok().and_then(|mut t| t.take());
        let Some(ToTake {
            account,
            requested,
            plan,
            subscription,
        }) = to_take
        else {
            return Ok(());
        };
        match self.shared.budget.take(&account, requested).await {
            Ok((status, hold)) => {
                self.record(Charge {
                    account,
                    requested,
                    plan: Some((plan, hold)),
                    subscription,
                    status,
                });
                Ok(())
            }
            Err(throttled) => {
                crate::metrics::record_throttled();
                self.record(Charge {
                    account,
                    requested,
                    plan: None,
                    subscription: false,
                    status: throttled.status,
                });
                Err(ServerError::from(ApiError::Throttled {
                    retry_after_seconds: throttled.retry_after_seconds,
                    message: format!(
                        "the query costs {requested} points and the account has {} left; \
                         retry after {} s",
                        throttled.status.currently_available, throttled.retry_after_seconds
                    ),
                }))
            }
        }
    }
}

impl GuardedRequest {
    /// Says that the request's execution began: from then on, mutations have run.
    pub(crate) fn executing(&self) {
        self.state.executed.store(true, Ordering::Relaxed);
    }

    /// See [`settle`].
    pub(crate) fn settle(&self, response: Response) -> Response {
        settle(&self.shared, &self.state, response)
    }
}

/// Charges what the response really cost (giving back the rest of what was requested, or
/// taking what a result returned beyond it) and reports it in the response; once per request.
pub(super) fn settle(shared: &Shared, state: &RequestState, mut response: Response) -> Response {
    let charge = state.charge.lock().ok().and_then(|mut c| c.take());
    let Some(charge) = charge else {
        return response;
    };
    let (actual, status) = match &charge.plan {
        Some(_) if charge.subscription => (charge.requested, charge.status),
        Some((plan, hold)) => {
            let executed = state.executed.load(Ordering::Relaxed);
            let actual = plan.actual(&response.data, executed);
            let status = shared.budget.settle(
                &charge.account,
                hold,
                charge.requested,
                actual,
                charge.status,
            );
            (actual, status)
        }
        None => (0, charge.status),
    };
    crate::metrics::record_cost_spent(actual);
    response.extensions.insert(
        "cost".into(),
        cost_extension(charge.requested, actual, status),
    );
    response
}

fn cost_extension(requested: u64, actual: u64, status: BudgetStatus) -> Value {
    let value = serde_json::json!({
        "requestedQueryCost": requested,
        "actualQueryCost": actual,
        "throttleStatus": {
            "maximumAvailable": status.maximum_available,
            "currentlyAvailable": status.currently_available,
            "restoreRate": status.restore_rate,
        }
    });
    Value::from_json(value).unwrap_or(Value::Null)
}
