//! Keyset pagination over one account's payments.
//!
//! `WHERE account_id = ? AND (key, id) > (?, ?) ORDER BY key, id LIMIT n + 1` and its mirrored
//! forms: the row-value comparison lets both SQLite and PostgreSQL seek straight into the
//! (account_id, key, id) index, so a page costs the same at any depth. Never OFFSET.

use std::sync::Arc;

use sea_orm::sea_query::QueryStatementBuilder;
use sea_orm::sea_query::{Expr, ExprTrait, IntoColumnRef};
use sea_orm::{
    ColumnTrait, ConnectionTrait, EntityTrait, Order as SqlOrder, PaginatorTrait, QueryFilter,
    QueryOrder, QuerySelect, QueryTrait, Select,
};
use sea_orm::{DbBackend, Statement};

use super::entities::payments;
use super::payments::Payment;
pub use super::rows::PaymentColumns;
use super::{Db, DbError, rows};
use crate::domain::paging::{Direction, Order, PageSize, PaymentFilter, Position, SortField};
use crate::domain::status::PaymentStatus;

/// One page request, already validated.
#[derive(Clone, Debug)]
pub struct PageQuery {
    pub account_id: String,
    pub filter: PaymentFilter,
    pub order: Order,
    pub size: PageSize,
    /// Only rows strictly after this position (in `order`).
    pub after: Option<Position>,
    /// Only rows strictly before this position (in `order`).
    pub before: Option<Position>,
    /// What the page's reader shows of each payment.
    pub columns: PaymentColumns,
}

/// A page in the requested order.
#[derive(Clone, Debug)]
pub struct Page {
    /// Shared, not copied, by whatever shows them (a connection's edges and nodes).
    pub rows: Vec<Arc<Payment>>,
    /// Whether more rows follow in the paging direction (from the one extra row fetched):
    /// `hasNextPage` for `first`, `hasPreviousPage` for `last`.
    pub more: bool,
    /// Paged with `last`/`before`.
    pub backward: bool,
    /// The rows the filter selects across all pages, when read with the page.
    pub total: Option<u64>,
}

/// The value of the sort key of a row, as a cursor holds it.
pub fn sort_key(payment: &Payment, field: SortField) -> i64 {
    match field {
        SortField::CreatedAt => payment.created_at.micros(),
        SortField::Amount => payment.amount.get(),
    }
}

fn key_column(field: SortField) -> payments::Column {
    match field {
        SortField::CreatedAt => payments::Column::CreatedAt,
        SortField::Amount => payments::Column::Amount,
    }
}

/// The account's rows that pass the filter, unordered.
fn filtered(account_id: &str, filter: &PaymentFilter) -> Select<payments::Entity> {
    let mut query = payments::Entity::find().filter(payments::Column::AccountId.eq(account_id));
    if !filter.statuses.is_empty() {
        query = query
            .filter(payments::Column::Status.is_in(filter.statuses.iter().map(|s| s.as_str())));
    }
    if let Some(currency) = filter.currency {
        query = query.filter(payments::Column::Currency.eq(currency.code()));
    }
    if let Some(after) = filter.created_after {
        query = query.filter(payments::Column::CreatedAt.gte(after.micros()));
    }
    if let Some(before) = filter.created_before {
        query = query.filter(payments::Column::CreatedAt.lt(before.micros()));
    }
    if let Some(min) = filter.amount_min {
        query = query.filter(payments::Column::Amount.gte(min));
    }
    if let Some(max) = filter.amount_max {
        query = query.filter(payments::Column::Amount.lte(max));
    }
    query
}

/// Which side of a position to keep, in scan order.
#[derive(Clone, Copy)]
enum Side {
    Greater,
    Less,
    GreaterOrEqual,
    LessOrEqual,
}

/// `(key, id) <op> (position.key, position.id)` as one row-value comparison.
fn beyond(field: SortField, side: Side, position: &Position) -> Expr {
    let columns = Expr::tuple([
        Expr::col(key_column(field).into_column_ref()),
        Expr::col(payments::Column::Id.into_column_ref()),
    ]);
    let values = Expr::tuple([Expr::val(position.key), Expr::val(position.id.clone())]);
    match side {
        Side::Greater => columns.gt(values),
        Side::Less => columns.lt(values),
        Side::GreaterOrEqual => columns.gte(values),
        Side::LessOrEqual => columns.lte(values),
    }
}

/// Rows strictly after `position` in `order` (`Less` in a descending order).
fn after_side(direction: Direction) -> Side {
    match direction {
        Direction::Asc => Side::Greater,
        Direction::Desc => Side::Less,
    }
}

fn before_side(direction: Direction) -> Side {
    match direction {
        Direction::Asc => Side::Less,
        Direction::Desc => Side::Greater,
    }
}

/// Rows at or before `position` in `order`: the complement of `after_side`.
fn not_after_side(direction: Direction) -> Side {
    match direction {
        Direction::Asc => Side::LessOrEqual,
        Direction::Desc => Side::GreaterOrEqual,
    }
}

fn not_before_side(direction: Direction) -> Side {
    match direction {
        Direction::Asc => Side::GreaterOrEqual,
        Direction::Desc => Side::LessOrEqual,
    }
}

fn sql_order(direction: Direction, reversed: bool) -> SqlOrder {
    match (direction, reversed) {
        (Direction::Asc, false) | (Direction::Desc, true) => SqlOrder::Asc,
        (Direction::Desc, false) | (Direction::Asc, true) => SqlOrder::Desc,
    }
}

/// The statement that fetches a page in scan order (reversed for `last`), to be run
/// [`limited`] to `limit + 1` rows.
fn page_select(query: &PageQuery) -> (Select<payments::Entity>, u64, bool) {
    let field = query.order.field;
    let direction = query.order.direction;
    let mut select = filtered(&query.account_id, &query.filter);
    if let Some(after) = &query.after {
        select = select.filter(beyond(field, after_side(direction), after));
    }
    if let Some(before) = &query.before {
        select = select.filter(beyond(field, before_side(direction), before));
    }
    let (limit, backward) = match query.size {
        PageSize::First(n) => (n, false),
        PageSize::Last(n) => (n, true),
    };
    let order = sql_order(direction, backward);
    let select = select
        .select_only()
        .columns(query.columns.list().iter().copied())
        .order_by(key_column(field), order.clone())
        .order_by(payments::Column::Id, order);
    (select, limit, backward)
}

/// `select` for `backend` with `LIMIT n` written into its text instead of bound as a
/// parameter. With a bound limit PostgreSQL plans the prepared statement afresh on every
/// execution (its generic plan, costed for an unknown limit, never looks as cheap as a custom
/// one, so it is never chosen); with the number in the text it keeps one generic plan from
/// the sixth execution on. `n` is a page size the API has bounded (or 1): one text per page
/// size a client uses. A client that varies its page size widely makes a connection's cache
/// of prepared statements turn over, which costs a parse per page, as an unprepared
/// statement would.
fn limited(select: Select<payments::Entity>, backend: DbBackend, n: u64) -> Statement {
    let mut statement = select.build(backend);
    statement.sql.push_str(" LIMIT ");
    statement.sql.push_str(&n.to_string());
    statement
}

/// Is there a row of the filtered set on the given side of `position`? One indexed probe.
async fn exists_beyond(
    db: &Db,
    query: &PageQuery,
    side: Side,
    position: &Position,
) -> Result<bool, DbError> {
    let probe = filtered(&query.account_id, &query.filter)
        .filter(beyond(query.order.field, side, position))
        .select_only()
        .column(payments::Column::Id);
    let backend = db.conn().get_database_backend();
    let found = db.conn().query_one_raw(limited(probe, backend, 1)).await?;
    Ok(found.is_some())
}

/// Fetches one page: one statement, `limit + 1` rows, the extra row telling whether more
/// follow in the paging direction.
pub async fn fetch(db: &Db, query: &PageQuery) -> Result<Page, DbError> {
    fetch_in(db, query, false).await
}

/// [`fetch`], and the number of payments the filter selects across all pages when the status
/// counts answer it ([`counted_by_status`]): read by the same statement, as a column of every
/// row (an uncorrelated subquery, computed once), so that `totalCount` costs no round trip of
/// its own. `Page::total` is `None` otherwise, and for an empty page.
pub async fn fetch_with_total(db: &Db, query: &PageQuery) -> Result<Page, DbError> {
    fetch_in(db, query, counted_by_status(&query.filter)).await
}

#[tracing::instrument(level = "debug", skip_all, fields(account_id = %query.account_id))]
async fn fetch_in(db: &Db, query: &PageQuery, with_total: bool) -> Result<Page, DbError> {
    let (mut select, limit, backward) = page_select(query);
    if with_total {
        select = select.expr_as(
            status_count(&query.account_id, &query.filter.statuses),
            TOTAL_COLUMN,
        );
    }
    let backend = db.conn().get_database_backend();
    let found = db
        .conn()
        .query_all_raw(limited(select, backend, limit + 1))
        .await?;
    let total = match found.first() {
        Some(row) if with_total => Some(total_of(row)?),
        _ => None,
    };
    let mut rows = found
        .iter()
        .map(|row| rows::payment_in(row, query.columns, &query.account_id))
        .collect::<Result<Vec<_>, _>>()?;
    let more = rows.len() as u64 > limit;
    rows.truncate(usize::try_from(limit).unwrap_or(usize::MAX));
    if backward {
        rows.reverse();
    }
    Ok(Page {
        rows: rows.into_iter().map(Arc::new).collect(),
        more,
        backward,
        total,
    })
}

const TOTAL_COLUMN: &str = "page_total";

/// The sum of the account's status counts for `statuses` (all when empty), as an expression.
fn status_count(account_id: &str, statuses: &[PaymentStatus]) -> Expr {
    let mut sum = sea_orm::sea_query::Query::select();
    sum.expr(Expr::cust("CAST(COALESCE(SUM(count), 0) AS BIGINT)"))
        .from("payment_counts")
        .and_where(Expr::col("account_id").eq(account_id));
    if !statuses.is_empty() {
        sum.and_where(Expr::col("status").is_in(statuses.iter().map(|s| s.as_str())));
    }
    Expr::SubQuery(None, Box::new(sum.into_sub_query_statement()))
}

/// The flag for the direction opposite to paging, exact: is there any row of the filtered
/// set on the far side of the cursor the page starts from (`hasPreviousPage` for
/// `first`/`after`, `hasNextPage` for `last`/`before`)? One indexed probe, run only when a
/// client asks for it.
pub async fn exists_behind(db: &Db, query: &PageQuery) -> Result<bool, DbError> {
    let direction = query.order.direction;
    let (cursor, side) = match query.size {
        PageSize::First(_) => (&query.after, not_after_side(direction)),
        PageSize::Last(_) => (&query.before, not_before_side(direction)),
    };
    match cursor {
        Some(position) => exists_beyond(db, query, side, position).await,
        None => Ok(false),
    }
}

/// Number of rows the filter selects (for `totalCount`, run only when it is asked for).
/// With no filter or a status filter only, it is read from the account's status counts
/// (`payment_counts`, kept by triggers in the same transaction as every change): a few rows,
/// whatever the number of payments. Other filters count the rows they select.
pub async fn count(db: &Db, account_id: &str, filter: &PaymentFilter) -> Result<u64, DbError> {
    if counted_by_status(filter) {
        return count_by_status(db, account_id, &filter.statuses).await;
    }
    filtered(account_id, filter)
        .count(db.conn())
        .await
        .map_err(DbError::from)
}

/// Whether the status counts answer `totalCount` for `filter`.
pub fn counted_by_status(filter: &PaymentFilter) -> bool {
    let PaymentFilter {
        statuses: _,
        currency,
        created_after,
        created_before,
        amount_min,
        amount_max,
    } = filter;
    currency.is_none()
        && created_after.is_none()
        && created_before.is_none()
        && amount_min.is_none()
        && amount_max.is_none()
}

async fn count_by_status(
    db: &Db,
    account_id: &str,
    statuses: &[PaymentStatus],
) -> Result<u64, DbError> {
    let mut select = sea_orm::sea_query::Query::select();
    select.expr_as(status_count(account_id, statuses), TOTAL_COLUMN);
    let backend = db.conn().get_database_backend();
    let row = db
        .conn()
        .query_one_raw(backend.build(&select))
        .await?
        .ok_or_else(|| DbError::Other("a sum returned no row".into()))?;
    total_of(&row)
}

/// The status counts' sum in a row of [`status_count`]'s column.
fn total_of(row: &sea_orm::QueryResult) -> Result<u64, DbError> {
    let total: i64 = row.try_get("", TOTAL_COLUMN)?;
    u64::try_from(total).map_err(|_| DbError::Other(format!("a negative count: {total}")))
}

/// The SQL of the page statement with its values inlined, for `EXPLAIN`.
///
/// Exists for the tests and benchmarks (feature `test-support`).
#[cfg(feature = "test-support")]
pub fn page_sql(backend: super::Backend, query: &PageQuery) -> String {
    let backend = match backend {
        super::Backend::Sqlite => DbBackend::Sqlite,
        super::Backend::Postgres => DbBackend::Postgres,
    };
    let (select, limit, _) = page_select(query);
    limited(select, backend, limit + 1).to_string()
}

/// The OFFSET form of a page, only as the baseline the pagination benchmark compares against;
/// the API never pages this way.
///
/// Exists for the tests and benchmarks (feature `test-support`).
#[cfg(feature = "test-support")]
pub async fn offset_page_for_benchmark(
    db: &Db,
    account_id: &str,
    order: Order,
    offset: u64,
    limit: u64,
) -> Result<Vec<Payment>, DbError> {
    let sql = sql_order(order.direction, false);
    filtered(account_id, &PaymentFilter::default())
        .order_by(key_column(order.field), sql.clone())
        .order_by(payments::Column::Id, sql)
        .offset(offset)
        .limit(limit)
        .all(db.conn())
        .await
        .map_err(DbError::from)
        .and_then(rows::payments)
}
