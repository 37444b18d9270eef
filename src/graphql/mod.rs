//! The GraphQL schema: root types, object types, scalars, loaders and limits.

mod api_keys;
mod client_tokens;
mod connection;
pub mod consistency;
mod direct;
mod event_tail;
mod events;
pub mod json;
mod kept;
mod lifecycle;
pub mod limits;
mod listed;
mod loaders;
mod merchant_data;
mod merchant_webhooks;
mod metrics;
mod mutation;
mod node;
mod objects;
mod on_replica;
pub mod operation;
pub mod over_http;
mod paging;
pub mod prevalidated;
mod query;
pub mod read_only;
mod relations;
mod scalars;
pub mod scopes;
mod selection;
mod shown;
mod submit_tokens;
mod subscription;
pub mod trusted_documents;
mod variables;

use std::sync::Arc;

use async_graphql::dataloader::DataLoader;
use async_graphql::{Data, SDLExportOptions, Schema};

use self::limits::QueryLimits;
use self::limits::cost::TypeTable;
use crate::domain::cursor::CursorCodec;
use crate::error::ErrorCodes;
use crate::persistence::Db;

pub use mutation::Mutation;
pub use query::Query;
pub use subscription::{Subscription, SubscriptionSlots};

use crate::merchant_webhooks::endpoints::WebhookEndpoints;
use crate::service::accounts::{Caller, Keys};
use crate::service::payments::PaymentService;
use crate::service::submit_tokens::SubmitTokens;

pub type AppSchema = Schema<Query, Mutation, Subscription>;

/// The account a request acts for, put into every request's data by the HTTP layer after the
/// credential has been checked. Resolvers read only this account's rows.
#[derive(Clone, Debug)]
pub struct Viewer {
    pub account_id: String,
    /// The credential: a secret key, or a client token with its scopes.
    pub caller: Caller,
}

impl Viewer {
    /// The viewer of a request being prepared: in the request's own data (HTTP), or in the
    /// connection's (a WebSocket operation).
    pub(crate) fn of<'r>(
        request: &'r async_graphql::Request,
        ctx: &'r async_graphql::extensions::ExtensionContext<'_>,
    ) -> Option<&'r Viewer> {
        Self::in_request(request).or_else(|| ctx.data_opt::<Viewer>())
    }

    /// The viewer in a request's own data (HTTP).
    pub(crate) fn in_request(request: &async_graphql::Request) -> Option<&Viewer> {
        request
            .data
            .get(&std::any::TypeId::of::<Viewer>())
            .and_then(|d| d.downcast_ref::<Viewer>())
    }
}

impl From<Caller> for Viewer {
    fn from(caller: Caller) -> Self {
        Viewer {
            account_id: caller.account_id.clone(),
            caller,
        }
    }
}

/// The primary database, for what must never be read from a replica whichever server a read
/// goes to (`Db` in a request's data may be a replica's).
pub struct Primary(pub Db);

/// What every request is held to: the query limits and cost (`None`: unchecked, for
/// benchmarks only), the account budgets, and the open subscriptions an account may have.
pub struct Guards {
    pub query: Option<QueryLimits>,
    pub budget: limits::budgets::Budget,
    pub subscriptions: Arc<SubscriptionSlots>,
}

/// The schema twice over: with the request policy as extensions, for operations over the
/// WebSocket; and without extensions, for requests over HTTP, where the same policy runs
/// around the execution ([`over_http`]) and no extension wraps every field's resolution.
#[derive(Clone)]
pub struct Schemas {
    pub socket: AppSchema,
    pub http: over_http::HttpSchema,
}

/// The services the resolvers call.
pub struct Services {
    pub payments: PaymentService,
    pub endpoints: WebhookEndpoints,
    pub keys: Keys,
    pub submit_tokens: SubmitTokens,
}

pub fn build(
    db: Db,
    cursors: CursorCodec,
    services: Services,
    guards: Guards,
    field_by_field: bool,
) -> Schemas {
    let base = || {
        let builder = Schema::build(Query, Mutation, Subscription)
            .data(db.clone())
            .data(Primary(db.clone()))
            .data(services.payments.clone())
            .data(services.endpoints.clone())
            .data(cursors.clone())
            .data(services.keys.clone())
            .data(services.submit_tokens.clone())
            .data(guards.subscriptions.clone());
        if field_by_field {
            builder.data(listed::FieldByField)
        } else {
            builder
        }
    };
    let sdl = sdl();
    let guard = guards
        .query
        .map(|limits| limits::Guard::new(limits, TypeTable::from_sdl(&sdl), guards.budget));
    let builder = base()
        .extension(metrics::RequestMetrics)
        .extension(ErrorCodes);
    let builder = match &guard {
        Some(guard) => builder.extension(guard.clone()),
        None => builder,
    };
    // After the limits, which parse the document only once its text has passed them; the
    // method before the scopes, so that a mutation sent with GET is told to use POST.
    // Last, so that every other extension sees a registered document's validation as passed.
    let socket = builder
        .extension(consistency::Stamp)
        .extension(scopes::ScopeCheck)
        .extension(prevalidated::Prevalidated)
        .finish();
    let table = TypeTable::from_sdl(&sdl);
    crate::metrics::register_counters(
        ["Query", "Mutation", "Subscription"]
            .into_iter()
            .flat_map(|root| table.fields_of(root)),
    );
    let http = over_http::HttpSchema::new(
        base().extension(prevalidated::Prevalidated).finish(),
        guard,
        table,
    );
    Schemas { socket, http }
}

/// What a request (or a subscription connection) needs: the viewer and account-scoped loaders.
pub fn data_for(db: &Db, caller: Caller) -> Data {
    let mut data = Data::default();
    data.insert(loader(db, &caller.account_id));
    data.insert(Viewer::from(caller));
    data
}

/// The loader of objects reached one by one from a list (a webhook delivery's payment, a
/// refund's payment, the relations of a payment a subscription frame carries): a short
/// gathering window, so that all the loads up to 100 objects trigger at one depth land in one
/// batch; batches stay within SQL parameter limits. No cache: every request reads what is
/// stored now. Pages, `payment`, `node`, `nodes` and mutation payloads read their payments'
/// refunds and events without it, at once (`relations.rs`).
fn loader(db: &Db, account_id: &str) -> DataLoader<loaders::AccountLoader> {
    DataLoader::new(
        loaders::AccountLoader::new(db.clone(), account_id.to_string()),
        tokio::spawn,
    )
    .delay(std::time::Duration::from_millis(5))
    .max_batch_size(500)
}

/// Adds what one request over HTTP needs: the viewer and its (per-request, account-scoped)
/// loaders; its answer is written by `http::wire` (so a page's rows may come as JSON text).
pub fn request_for(
    request: async_graphql::Request,
    db: &Db,
    caller: Caller,
) -> async_graphql::Request {
    let loader = loader(db, &caller.account_id);
    request
        .data(Viewer::from(caller))
        .data(loader)
        .data(limits::OverHttp)
        .data(json::RowsAsJson)
}

/// The schema in SDL, sorted so that it does not churn with declaration order.
pub fn sdl() -> String {
    Schema::build(Query, Mutation, Subscription)
        .finish()
        .sdl_with_options(
            SDLExportOptions::new()
                .sorted_fields()
                .sorted_arguments()
                .sorted_enum_items(),
        )
}
