//! What a request may ask for, checked before the expensive work, in order of cost: the
//! document's text (size, nesting, tokens) and the variables' nesting before parsing; the
//! parsed document's shape (fragment cycles, expanded size, depth) before validation; then
//! its calculated cost against the maximum and against the account's budget before anything
//! runs. Every response then reports the cost; what the result did not use goes back to the
//! budget.
//!
//! It is an async-graphql extension, so it guards requests over HTTP and subscriptions over
//! WebSocket alike.

pub mod cost;
pub mod lexical;
pub mod shape;

use std::sync::{Arc, Mutex};

use async_graphql::extensions::{
    Extension, ExtensionContext, ExtensionFactory, NextPrepareRequest, NextRequest,
};
use async_graphql::parser::types::OperationType;
use async_graphql::{Request, Response, ServerError, ServerResult, Value};

use self::cost::{Plan, TypeTable};
use self::lexical::TextLimits;
use self::shape::ShapeLimits;
use super::Viewer;
use crate::error::ApiError;
use crate::service::throttle::{BudgetStatus, Throttle};

/// The limits every request is held to.
#[derive(Clone, Copy, Debug)]
pub struct QueryLimits {
    pub text: TextLimits,
    pub shape: ShapeLimits,
    /// Most a request may cost, whatever the account's budget.
    pub max_cost: u64,
}

impl Default for QueryLimits {
    /// The defaults of `graphpay serve`.
    fn default() -> Self {
        Self {
            text: TextLimits {
                max_bytes: 65_536,
                max_nesting: 32,
                max_tokens: 10_000,
            },
            shape: ShapeLimits {
                max_depth: 15,
                max_selections: 5_000,
            },
            max_cost: 1_000,
        }
    }
}

/// Marks a request that came over HTTP `POST`, where subscriptions cannot run.
#[derive(Clone, Copy, Debug)]
pub struct OverHttp;

/// The extension's factory: one per schema.
pub struct Guard {
    shared: Arc<Shared>,
}

struct Shared {
    limits: QueryLimits,
    table: TypeTable,
    throttle: Arc<Throttle>,
}

impl Guard {
    pub fn new(limits: QueryLimits, table: TypeTable, throttle: Arc<Throttle>) -> Self {
        let max_cost = limits.max_cost.min(throttle.capacity());
        Self {
            shared: Arc::new(Shared {
                limits: QueryLimits { max_cost, ..limits },
                table,
                throttle,
            }),
        }
    }
}

impl ExtensionFactory for Guard {
    fn create(&self) -> Arc<dyn Extension> {
        Arc::new(GuardedRequest {
            shared: self.shared.clone(),
            charge: Mutex::new(None),
        })
    }
}

/// What one request was charged.
struct Charge {
    account: String,
    requested: u64,
    /// Set once the requested cost was taken from the budget.
    plan: Option<Plan>,
    status: BudgetStatus,
}

struct GuardedRequest {
    shared: Arc<Shared>,
    charge: Mutex<Option<Charge>>,
}

impl GuardedRequest {
    fn record(&self, charge: Charge) {
        if let Ok(mut slot) = self.charge.lock() {
            *slot = Some(charge);
        }
    }

    /// Everything up to (not including) execution; `Err` refuses the request.
    fn admit(&self, account: Option<&str>, request: &mut Request) -> Result<(), ApiError> {
        let limits = &self.shared.limits;
        let too_complex = |message: String| ApiError::QueryTooComplex {
            message,
            cost: None,
        };
        lexical::check(&request.query, limits.text).map_err(|r| too_complex(r.message()))?;
        for value in request.variables.values() {
            lexical::value_depth(value, limits.text.max_nesting.saturating_sub(1)).map_err(
                |_| {
                    too_complex(format!(
                        "the variables nest deeper than {} levels",
                        limits.text.max_nesting
                    ))
                },
            )?;
        }
        let doc = async_graphql::parser::parse_query(&request.query)
            .map_err(|err| ApiError::ParseFailed(err.to_string()))?;
        let operation = shape::check(&doc, request.operation_name.as_deref(), limits.shape)
            .map_err(|refusal| {
                if refusal.is_size() {
                    too_complex(refusal.message())
                } else {
                    ApiError::ValidationFailed(refusal.message())
                }
            })?;
        if operation.node.ty == OperationType::Subscription
            && request
                .data
                .contains_key(&std::any::TypeId::of::<OverHttp>())
        {
            return Err(ApiError::ValidationFailed(
                "subscriptions run over the WebSocket at /graphql/ws, not over POST".into(),
            ));
        }
        let plan = Plan::new(
            &self.shared.table,
            &doc,
            &operation.node,
            &request.variables,
        );
        let requested = plan.requested();
        let Some(account) = account else {
            // Without a viewer nothing can be resolved; the resolvers say so.
            request.set_parsed_query(doc);
            return Ok(());
        };
        let throttle = &self.shared.throttle;
        if requested > limits.max_cost {
            self.record(Charge {
                account: account.to_string(),
                requested,
                plan: None,
                status: throttle.status(account),
            });
            return Err(ApiError::QueryTooComplex {
                message: format!(
                    "the query costs {requested} points; at most {} are allowed (ask for \
                     smaller pages or fewer fields)",
                    limits.max_cost
                ),
                cost: Some(requested),
            });
        }
        match throttle.take(account, requested) {
            Ok(status) => {
                self.record(Charge {
                    account: account.to_string(),
                    requested,
                    plan: Some(plan),
                    status,
                });
                request.set_parsed_query(doc);
                Ok(())
            }
            Err(throttled) => {
                crate::metrics::record_throttled();
                self.record(Charge {
                    account: account.to_string(),
                    requested,
                    plan: None,
                    status: throttled.status,
                });
                Err(ApiError::Throttled {
                    retry_after_seconds: throttled.retry_after_seconds,
                    message: format!(
                        "the query costs {requested} points and the account has {} left; \
                         retry after {} s",
                        throttled.status.currently_available, throttled.retry_after_seconds
                    ),
                })
            }
        }
    }
}

#[async_trait::async_trait]
impl Extension for GuardedRequest {
    async fn prepare_request(
        &self,
        ctx: &ExtensionContext<'_>,
        mut request: Request,
        next: NextPrepareRequest<'_>,
    ) -> ServerResult<Request> {
        let account = request
            .data
            .get(&std::any::TypeId::of::<Viewer>())
            .and_then(|d| d.downcast_ref::<Viewer>())
            .or_else(|| ctx.data_opt::<Viewer>())
            .map(|viewer| viewer.account_id.clone());
        match self.admit(account.as_deref(), &mut request) {
            Ok(()) => next.run(ctx, request).await,
            Err(err) => {
                if let Some(account) = account
                    && self.charge.lock().map(|c| c.is_none()).unwrap_or(false)
                {
                    let status = self.shared.throttle.status(&account);
                    self.record(Charge {
                        account,
                        requested: 0,
                        plan: None,
                        status,
                    });
                }
                Err(ServerError::from(err))
            }
        }
    }

    async fn request(&self, ctx: &ExtensionContext<'_>, next: NextRequest<'_>) -> Response {
        let mut response = next.run(ctx).await;
        let charge = self.charge.lock().ok().and_then(|mut c| c.take());
        if let Some(charge) = charge {
            let (actual, status) = match &charge.plan {
                Some(plan) => {
                    let actual = plan.actual(&response.data).min(charge.requested);
                    crate::metrics::record_cost_spent(actual);
                    let status = self
                        .shared
                        .throttle
                        .refund(&charge.account, charge.requested - actual);
                    (actual, status)
                }
                None => (0, charge.status),
            };
            response.extensions.insert(
                "cost".into(),
                cost_extension(charge.requested, actual, status),
            );
        }
        response
    }
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
