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
pub mod budgets;
pub mod cost;
pub mod fields;
pub mod lexical;
pub mod plans;
mod settle;
pub mod shape;
pub mod shared_budget;
mod socket;

use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};

use async_graphql::parser::types::OperationType;
use async_graphql::{Request, ServerError, ServerResult};

use self::budget::BudgetStatus;
use self::budgets::{Budget, Hold};
use self::cost::{Plan, TypeTable};
use self::fields::FieldBudget;
use self::lexical::TextLimits;
use self::shape::{ShapeLimits, ShapeRefusal};
use crate::error::ApiError;
use crate::graphql::operation::{NoOperation, Operation};
use crate::graphql::prevalidated::Parsed;

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
    budget: Budget,
    /// Documents parsed before, by their text: a text found here has passed the text limits
    /// and parsed, and it would again.
    parsed: moka::sync::Cache<String, Arc<Parsed>>,
}

/// How much parsed documents the cache keeps, counted in bytes of their text times
/// [`PARSED_WEIGHT_PER_BYTE`] (a parsed document takes several times its text's memory).
const PARSED_CACHE_WEIGHT: u64 = 16 * 1024 * 1024;
const PARSED_WEIGHT_PER_BYTE: u32 = 8;

impl Guard {
    pub fn new(limits: QueryLimits, table: TypeTable, budget: Budget) -> Self {
        let max_cost = limits.max_cost.min(budget.capacity());
        Self {
            shared: Arc::new(Shared {
                limits: QueryLimits { max_cost, ..limits },
                table,
                budget,
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
    /// Set once the requested cost was taken from the budget, with where it was taken from.
    plan: Option<(Arc<Plan>, Hold)>,
    /// A subscription pays its requested cost when it starts, whatever its events hold.
    subscription: bool,
    status: BudgetStatus,
}

pub(crate) struct GuardedRequest {
    shared: Arc<Shared>,
    /// Shared with the stream of a WebSocket operation, which outlives the hooks' calls.
    state: Arc<RequestState>,
}

/// A cost found affordable to check, not yet taken from the budget.
struct ToTake {
    account: String,
    requested: u64,
    plan: Arc<Plan>,
    subscription: bool,
}

#[derive(Default)]
struct RequestState {
    /// Recorded by the (synchronous) checks; taken by [`GuardedRequest::take`].
    to_take: Mutex<Option<ToTake>>,
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
    ) -> ServerResult<Arc<Parsed>> {
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
        parsed: &Parsed,
        operation: &Result<Operation<'_>, NoOperation>,
    ) -> ServerResult<()> {
        self.check_operation(account, request, parsed, operation)
            .map_err(|err| self.refused(account, err))
    }

    fn read_document(&self, request: &Request) -> Result<Arc<Parsed>, ApiError> {
        let limits = &self.shared.limits;
        // A trusted document's, parsed at registration; else one parsed before.
        let cached = crate::graphql::prevalidated::preparsed(request)
            .or_else(|| self.shared.parsed.get(request.query.as_str()));
        if cached.as_ref().is_none_or(|doc| !doc.text_passed()) {
            lexical::check(&request.query, limits.text).map_err(|r| too_complex(r.message()))?;
            if let Some(doc) = &cached {
                doc.pass_text();
            }
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
        crate::metrics::record_document_parsed();
        let doc = async_graphql::parser::parse_query(&request.query)
            .map_err(|err| ApiError::ParseFailed(err.to_string()))?;
        let doc = Arc::new(Parsed::new(doc));
        doc.pass_text();
        self.shared
            .parsed
            .insert(request.query.clone(), doc.clone());
        Ok(doc)
    }

    fn check_operation(
        &self,
        account: Option<&str>,
        request: &Request,
        parsed: &Parsed,
        operation: &Result<Operation<'_>, NoOperation>,
    ) -> Result<(), ApiError> {
        let doc = parsed.document();
        let limits = &self.shared.limits;
        let refuse_shape = |refusal: ShapeRefusal| {
            if refusal.is_size() {
                too_complex(refusal.message())
            } else {
                ApiError::ValidationFailed(refusal.message())
            }
        };
        // The shape is the document's alone: checked once per document.
        if !parsed.shape_passed() {
            shape::check(doc, limits.shape).map_err(refuse_shape)?;
            parsed.pass_shape();
        }
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
        let plan = parsed.plans().get_or_make(
            request.operation_name.as_deref(),
            &request.variables,
            || {
                Plan::with_read(
                    &self.shared.table,
                    doc,
                    operation.definition,
                    &request.variables,
                )
            },
        );
        let requested = plan.requested();
        let Some(account) = account else {
            // Without a viewer nothing can be resolved; the resolvers say so.
            return Ok(());
        };
        let budget = &self.shared.budget;
        if requested > limits.max_cost {
            self.record(Charge {
                account: account.to_string(),
                requested,
                plan: None,
                subscription: false,
                status: budget.status(account),
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
        if let Ok(mut slot) = self.state.to_take.lock() {
            *slot = Some(ToTake {
                account: account.to_string(),
                requested,
                plan,
                subscription,
            });
        }
        Ok(())
    }

    /// A refusal as the response carries it, with the account's budget recorded (unless a
    /// charge already was) so that the response reports it.
    fn refused(&self, account: Option<&str>, err: ApiError) -> ServerError {
        self.refused_after_checks(account, ServerError::from(err))
    }

    /// A refusal made after the checks passed (the scopes, the method), before anything was
    /// taken from the budget: nothing is taken, and the response reports the budget as it is.
    pub(crate) fn refused_after_checks(
        &self,
        account: Option<&str>,
        err: ServerError,
    ) -> ServerError {
        if let Ok(mut to_take) = self.state.to_take.lock() {
            to_take.take();
        }
        if let Some(account) = account
            && self
                .state
                .charge
                .lock()
                .map(|c| c.is_none())
                .unwrap_or(false)
        {
            let status = self.shared.budget.status(account);
            self.record(Charge {
                account: account.to_string(),
                requested: 0,
                plan: None,
                subscription: false,
                status,
            });
        }
        err
    }
}

fn too_complex(message: String) -> ApiError {
    ApiError::QueryTooComplex {
        message,
        cost: None,
    }
}
