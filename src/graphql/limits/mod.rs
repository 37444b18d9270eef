//! What a request may ask for, checked before the expensive work, in order of cost: the
//! document's text (size, nesting, tokens) and the variables' nesting before parsing; the
//! parsed document's shape (fragment cycles, expanded size, depth) before validation; then
//! its calculated cost against the maximum and against the account's budget before anything
//! runs. Every response then reports the cost; what the result did not use goes back to the
//! budget.
//!
//! It is an async-graphql extension for operations over the WebSocket (`socket.rs`), and runs
//! around the execution of requests over HTTP (`super::over_http`): the same checks either
//! way, on the operation [`crate::graphql::operation`] finds. The fields a result may grow
//! to are bounded as lists resolve ([`fields`]); each account's budget is [`budget`].

pub mod budget;
pub mod cost;
pub mod fields;
pub mod lexical;
pub mod shape;
mod socket;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use async_graphql::parser::types::{ExecutableDocument, OperationType};
use async_graphql::{Request, Response, ServerError, ServerResult, Value};

use self::budget::{BudgetStatus, Held, Throttle};
use self::cost::{Plan, TypeTable};
use self::fields::FieldBudget;
use self::lexical::TextLimits;
use self::shape::{ShapeLimits, ShapeRefusal};
use crate::error::ApiError;
use crate::graphql::operation::{NoOperation, Operation};

/// The limits every request is held to.
#[derive(Clone, Copy, Debug)]
pub struct QueryLimits {
    pub text: TextLimits,
    pub shape: ShapeLimits,
    /// Most a request may cost, whatever the account's budget.
    pub max_cost: u64,
    /// Most fields one request (or one subscription event) may resolve.
    pub max_resolved_fields: u64,
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
            max_resolved_fields: 50_000,
        }
    }
}

/// Marks a request that came over HTTP (`POST` or `GET`), where subscriptions cannot run.
#[derive(Clone, Copy, Debug)]
pub struct OverHttp;

/// The extension's factory: one per schema.
#[derive(Clone)]
pub struct Guard {
    shared: Arc<Shared>,
}

struct Shared {
    limits: QueryLimits,
    table: TypeTable,
    throttle: Arc<Throttle>,
    /// Documents parsed before, by their text: a text found here has passed the text limits
    /// and parsed, and it would again.
    parsed: moka::sync::Cache<String, Arc<ExecutableDocument>>,
}

/// How much parsed documents the cache keeps, counted in bytes of their text times
/// [`PARSED_WEIGHT_PER_BYTE`] (a parsed document takes several times its text's memory).
const PARSED_CACHE_WEIGHT: u64 = 16 * 1024 * 1024;
const PARSED_WEIGHT_PER_BYTE: u32 = 8;

impl Guard {
    pub fn new(limits: QueryLimits, table: TypeTable, throttle: Arc<Throttle>) -> Self {
        let max_cost = limits.max_cost.min(throttle.capacity());
        Self {
            shared: Arc::new(Shared {
                limits: QueryLimits { max_cost, ..limits },
                table,
                throttle,
                parsed: moka::sync::Cache::builder()
                    .max_capacity(PARSED_CACHE_WEIGHT)
                    .weigher(|text: &String, _| {
                        u32::try_from(text.len())
                            .unwrap_or(u32::MAX)
                            .saturating_mul(PARSED_WEIGHT_PER_BYTE)
                    })
                    .build(),
            }),
        }
    }
}

impl Guard {
    /// One request's guard.
    pub(crate) fn begin(&self) -> GuardedRequest {
        GuardedRequest {
            shared: self.shared.clone(),
            state: Arc::default(),
        }
    }
}

/// What one request was charged.
struct Charge {
    account: String,
    requested: u64,
    /// Set once the requested cost was taken from the budget, with the bucket it was taken
    /// from.
    plan: Option<(Plan, Held)>,
    /// A subscription pays its requested cost when it starts, whatever its events hold.
    subscription: bool,
    status: BudgetStatus,
}

pub(crate) struct GuardedRequest {
    shared: Arc<Shared>,
    /// Shared with the stream of a WebSocket operation, which outlives the hooks' calls.
    state: Arc<RequestState>,
}

#[derive(Default)]
struct RequestState {
    charge: Mutex<Option<Charge>>,
    /// Set once execution began: from then on, mutations have run and are paid for.
    executed: AtomicBool,
    /// The fields resolved so far, shared with the resolvers through the request's data.
    fields: Mutex<Option<Arc<FieldBudget>>>,
}

impl GuardedRequest {
    fn record(&self, charge: Charge) {
        if let Ok(mut slot) = self.state.charge.lock() {
            *slot = Some(charge);
        }
    }

    /// The document of `request`, its text checked first and then parsed, or found parsed
    /// before; and the field budget given to its resolvers. A refusal is recorded, so that
    /// the response reports the budget left.
    pub(crate) fn read(
        &self,
        account: Option<&str>,
        request: &mut Request,
    ) -> ServerResult<Arc<ExecutableDocument>> {
        let budget = Arc::new(FieldBudget::new(self.shared.limits.max_resolved_fields));
        if let Ok(mut slot) = self.state.fields.lock() {
            *slot = Some(budget.clone());
        }
        request.data.insert(budget);
        self.read_document(request)
            .map_err(|err| self.refused(account, err))
    }

    /// Everything else up to (not including) execution, on the document [`Self::read`] gave
    /// and the operation found in it: the shape, the operation to run, the cost and the
    /// account's budget. A refusal is recorded, as above.
    pub(crate) fn check(
        &self,
        account: Option<&str>,
        request: &Request,
        doc: &ExecutableDocument,
        operation: &Result<Operation<'_>, NoOperation>,
    ) -> ServerResult<()> {
        self.check_operation(account, request, doc, operation)
            .map_err(|err| self.refused(account, err))
    }

    fn read_document(&self, request: &Request) -> Result<Arc<ExecutableDocument>, ApiError> {
        let limits = &self.shared.limits;
        let cached = self.shared.parsed.get(request.query.as_str());
        if cached.is_none() {
            lexical::check(&request.query, limits.text).map_err(|r| too_complex(r.message()))?;
        }
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
        if let Some(doc) = cached {
            return Ok(doc);
        }
        let doc = async_graphql::parser::parse_query(&request.query)
            .map_err(|err| ApiError::ParseFailed(err.to_string()))?;
        let doc = Arc::new(doc);
        self.shared
            .parsed
            .insert(request.query.clone(), doc.clone());
        Ok(doc)
    }

    fn check_operation(
        &self,
        account: Option<&str>,
        request: &Request,
        doc: &ExecutableDocument,
        operation: &Result<Operation<'_>, NoOperation>,
    ) -> Result<(), ApiError> {
        let limits = &self.shared.limits;
        let refuse_shape = |refusal: ShapeRefusal| {
            if refusal.is_size() {
                too_complex(refusal.message())
            } else {
                ApiError::ValidationFailed(refusal.message())
            }
        };
        shape::check(doc, limits.shape).map_err(refuse_shape)?;
        let operation = operation
            .as_ref()
            .map_err(|refusal| refuse_shape(ShapeRefusal::from(refusal)))?;
        let subscription = operation.ty == OperationType::Subscription;
        if subscription
            && request
                .data
                .contains_key(&std::any::TypeId::of::<OverHttp>())
        {
            return Err(ApiError::ValidationFailed(
                "subscriptions run over the WebSocket at /graphql/ws, not over HTTP POST or GET"
                    .into(),
            ));
        }
        let plan = Plan::new(
            &self.shared.table,
            doc,
            operation.definition,
            &request.variables,
        );
        let requested = plan.requested();
        let Some(account) = account else {
            // Without a viewer nothing can be resolved; the resolvers say so.
            return Ok(());
        };
        let throttle = &self.shared.throttle;
        if requested > limits.max_cost {
            self.record(Charge {
                account: account.to_string(),
                requested,
                plan: None,
                subscription: false,
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
        match throttle.take_held(account, requested) {
            Ok((status, held)) => {
                self.record(Charge {
                    account: account.to_string(),
                    requested,
                    plan: Some((plan, held)),
                    subscription,
                    status,
                });
                Ok(())
            }
            Err(throttled) => {
                crate::metrics::record_throttled();
                self.record(Charge {
                    account: account.to_string(),
                    requested,
                    plan: None,
                    subscription: false,
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

    /// A refusal as the response carries it, with the account's budget recorded (unless a
    /// charge already was) so that the response reports it.
    fn refused(&self, account: Option<&str>, err: ApiError) -> ServerError {
        if let Some(account) = account
            && self
                .state
                .charge
                .lock()
                .map(|c| c.is_none())
                .unwrap_or(false)
        {
            let status = self.shared.throttle.status(account);
            self.record(Charge {
                account: account.to_string(),
                requested: 0,
                plan: None,
                subscription: false,
                status,
            });
        }
        ServerError::from(err)
    }
}

fn too_complex(message: String) -> ApiError {
    ApiError::QueryTooComplex {
        message,
        cost: None,
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
fn settle(shared: &Shared, state: &RequestState, mut response: Response) -> Response {
    let charge = state.charge.lock().ok().and_then(|mut c| c.take());
    let Some(charge) = charge else {
        return response;
    };
    let throttle = &shared.throttle;
    let (actual, status) = match &charge.plan {
        Some(_) if charge.subscription => (charge.requested, charge.status),
        Some((plan, held)) => {
            let executed = state.executed.load(Ordering::Relaxed);
            let actual = plan.actual(&response.data, executed);
            let status = if actual <= charge.requested {
                throttle.refund_held(&charge.account, held, charge.requested - actual)
            } else {
                throttle.force_take_held(&charge.account, held, actual - charge.requested)
            };
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
