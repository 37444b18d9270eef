//! The event log as merchants read it: one account's events in feed order, filtered, paged by
//! the one keyset paginator ([`super::keyset`]) for `Query.events`, and tailed from a cursor
//! for `Subscription.events`.
//!
//! Feed order here is `(txid, id)`: the writing transaction's id on PostgreSQL (the row id on
//! SQLite, see the migration), then the event's id, which grows within a transaction (ids made
//! by one process only grow). On PostgreSQL only events whose transaction is below the oldest
//! one still running are read, as the change feed reads them (see [`super::feed`]): the set of
//! events before any position read is then final, so a reader going forward from a cursor
//! never passes over an event that commits later.

use std::sync::Arc;

use sea_orm::sea_query::Expr;
use sea_orm::{ColumnTrait, EntityTrait, FromQueryResult, QueryFilter, QueryResult, Select};

use super::entities::payment_events;
use super::keyset::{Keyset, Window};
use super::{Backend, DbError, rows};
use crate::domain::paging::{Direction, Position};
use crate::domain::payment::{Payment, PaymentEvent, Refund};
use crate::domain::time::Timestamp;

/// Which events a reader wants; every part is optional and they combine with AND.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EventFilter {
    /// Any of these types (empty: any type), sorted and each once.
    pub types: Vec<String>,
    pub payment_id: Option<String>,
    /// Inclusive lower bound.
    pub created_after: Option<Timestamp>,
    /// Exclusive upper bound.
    pub created_before: Option<Timestamp>,
}

/// One event of the log, with the payment (and refund) as its change left them.
#[derive(Clone, Debug)]
pub struct LoggedEvent {
    pub event: PaymentEvent,
    /// Its place in feed order, with the event's id.
    pub txid: i64,
    /// The payment as the change left it; `None` for an event written before the log kept
    /// it (its reader shows the payment as it is now).
    pub payment: Option<Payment>,
    /// For a refund's event, the refund as the change left it.
    pub refund: Option<Refund>,
}

/// One page (or one stretch of a tail) of an account's events.
#[derive(Clone, Debug)]
pub struct EventPageQuery {
    pub backend: Backend,
    pub account_id: String,
    pub filter: EventFilter,
    /// The oldest event kept for readers (the retention's edge).
    pub kept_since: Timestamp,
    pub request: super::keyset::PageRequest,
    /// Whether the page reads the payment and the refund as each change left them (the rows'
    /// snapshots, JSON parsed for every row): a page whose selection shows neither leaves
    /// them unread, and its events' `payment` and `refund` are then `None`.
    pub snapshots: bool,
}

impl Keyset for EventPageQuery {
    type Entity = payment_events::Entity;
    type Row = Arc<LoggedEvent>;

    fn scope(&self, _: sea_orm::DbBackend) -> Select<payment_events::Entity> {
        let f = &self.filter;
        let mut query = payment_events::Entity::find()
            .filter(payment_events::Column::AccountId.eq(&self.account_id))
            .filter(payment_events::Column::CreatedAt.gte(self.kept_since.micros()));
        if self.backend == Backend::Postgres {
            query = query.filter(Expr::cust(
                "txid < pg_snapshot_xmin(pg_current_snapshot())::text::bigint",
            ));
        }
        if !f.types.is_empty() {
            query = query.filter(payment_events::Column::EventType.is_in(f.types.iter().cloned()));
        }
        if let Some(payment_id) = &f.payment_id {
            query = query.filter(payment_events::Column::PaymentId.eq(payment_id));
        }
        if let Some(after) = f.created_after {
            query = query.filter(payment_events::Column::CreatedAt.gte(after.micros()));
        }
        if let Some(before) = f.created_before {
            query = query.filter(payment_events::Column::CreatedAt.lt(before.micros()));
        }
        query
    }

    fn key_column(&self) -> payment_events::Column {
        payment_events::Column::Txid
    }

    fn id_column(&self) -> payment_events::Column {
        payment_events::Column::Id
    }

    fn direction(&self) -> Direction {
        Direction::Asc
    }

    fn window(&self) -> Window<'_> {
        self.request.window()
    }

    fn columns(&self, select: Select<payment_events::Entity>) -> Select<payment_events::Entity> {
        use payment_events::Column;
        use sea_orm::{IdenStatic, Iterable, QuerySelect};
        if self.snapshots {
            return select;
        }
        let unread = |column: &Column| matches!(column, Column::Snapshot | Column::RefundSnapshot);
        let mut select = select
            .select_only()
            .columns(Column::iter().filter(|column| !unread(column)));
        for column in Column::iter().filter(unread) {
            select = select.expr_as(Expr::cust("CAST(NULL AS TEXT)"), column.as_str());
        }
        select
    }

    fn row(&self, row: &QueryResult) -> Result<Arc<LoggedEvent>, DbError> {
        let model = payment_events::Model::from_query_result(row, "")?;
        logged(model).map(Arc::new)
    }

    fn sort_key(&self, row: &Arc<LoggedEvent>) -> i64 {
        row.txid
    }

    fn id<'r>(&self, row: &'r Arc<LoggedEvent>) -> &'r str {
        &row.event.id
    }
}

fn logged(mut model: payment_events::Model) -> Result<LoggedEvent, DbError> {
    let payment = match model.snapshot.take().as_deref().map(rows::from_snapshot) {
        Some(Ok(payment)) => Some(payment),
        Some(Err(_)) => {
            tracing::warn!(event = %model.id, "an event's snapshot is unreadable; showing the payment as it is now");
            None
        }
        None => None,
    };
    let refund = model
        .refund_snapshot
        .take()
        .as_deref()
        .map(rows::refund_from_snapshot)
        .transpose()?;
    let txid = model.txid;
    Ok(LoggedEvent {
        event: rows::event(model)?,
        txid,
        payment,
        refund,
    })
}

/// The place of an event in feed order, as a cursor holds it.
pub fn position_of(event: &LoggedEvent) -> Position {
    Position {
        key: event.txid,
        id: event.event.id.clone(),
    }
}

/// The event `id` of `account_id`, if there is one.
pub async fn find(
    db: &super::Db,
    account_id: &str,
    id: &str,
) -> Result<Option<LoggedEvent>, DbError> {
    payment_events::Entity::find_by_id(id)
        .filter(payment_events::Column::AccountId.eq(account_id))
        .one(db.conn())
        .await?
        .map(logged)
        .transpose()
}

/// A place just past every event a reader can see now: a tail started there hands out what
/// commits from then on (on PostgreSQL, also what was still being written, whose transactions
/// are at or above the oldest one running).
pub async fn head(db: &super::Db) -> Result<Position, DbError> {
    use sea_orm::{ConnectionTrait, Statement};
    let backend = db.conn().get_database_backend();
    let sql = match db.backend() {
        Backend::Postgres => {
            "SELECT pg_snapshot_xmin(pg_current_snapshot())::text::bigint - 1 AS txid"
        }
        Backend::Sqlite => "SELECT COALESCE(MAX(txid), 0) AS txid FROM payment_events",
    };
    let row = db
        .conn()
        .query_one_raw(Statement::from_string(backend, sql.to_string()))
        .await?
        .ok_or_else(|| DbError::Other("the event log's head query returned no row".into()))?;
    Ok(Position {
        key: row.try_get("", "txid")?,
        // After every id of that transaction (ids are `evt_` and Crockford base32).
        id: "~".to_string(),
    })
}
