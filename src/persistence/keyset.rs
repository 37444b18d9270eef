//! One keyset paginator for every listing: payments, webhook endpoints, deliveries.
//!
//! `WHERE <scope> AND (key, id) > (?, ?) ORDER BY key, id LIMIT n + 1` and its mirrored
//! forms: the row-value comparison lets both SQLite and PostgreSQL seek straight into the
//! (scope, key, id) index, so a page costs the same at any depth. Never OFFSET. The extra row
//! tells whether more follow in the paging direction; the other direction is a `LIMIT 1`
//! probe on the far side of the cursor the page starts from. A listing says what it pages (a
//! [`Keyset`]); the page logic is here, once, and monomorphised for each listing.

use sea_orm::sea_query::{Expr, ExprTrait, IntoColumnRef};
use sea_orm::{
    ConnectionTrait, DbBackend, EntityName, EntityTrait, Order as SqlOrder, QueryFilter,
    QueryOrder, QueryResult, QuerySelect, QueryTrait, Select, Statement,
};

pub use super::streamed::Planning;
use super::{Db, DbError};
use crate::domain::paging::{Direction, PageSize, Position};

/// Which rows of a listing one page holds: how many from which end, between which cursors.
#[derive(Clone, Debug)]
pub struct PageRequest {
    pub size: PageSize,
    /// Only rows strictly after this position (in the listing's order).
    pub after: Option<Position>,
    /// Only rows strictly before this position (in the listing's order).
    pub before: Option<Position>,
}

impl PageRequest {
    pub fn window(&self) -> Window<'_> {
        Window {
            size: self.size,
            after: self.after.as_ref(),
            before: self.before.as_ref(),
        }
    }
}

/// A [`PageRequest`] as a listing holds it.
#[derive(Clone, Copy, Debug)]
pub struct Window<'a> {
    pub size: PageSize,
    pub after: Option<&'a Position>,
    pub before: Option<&'a Position>,
}

impl<'a> Window<'a> {
    /// The cursor the page starts from, in the paging direction (`after` for `first`,
    /// `before` for `last`): only past one can anything lie behind the page.
    pub fn start(self) -> Option<&'a Position> {
        match self.size {
            PageSize::First(_) => self.after,
            PageSize::Last(_) => self.before,
        }
    }
}

/// What one listing pages through, in the order `(key, id)` in its direction.
pub trait Keyset {
    type Entity: EntityTrait;
    /// What a page holds of each row.
    type Row;

    /// The listing's rows, unordered: its account, parent and filter, in the statement form
    /// that suits `backend`.
    fn scope(&self, backend: DbBackend) -> Select<Self::Entity>;
    /// The listing as disjoint parts, each walked in the listing's order by an index of its
    /// own, whose pages one statement merges (PostgreSQL's `Merge Append`): a page then reads
    /// at most its size from each part, where one walk of the whole scope would test every
    /// row it passes against the filter, however few pass. `None` (the default): the scope
    /// is walked as one.
    fn parts(&self, _backend: DbBackend) -> Option<Vec<Select<Self::Entity>>> {
        None
    }
    /// The sort key's column; the listing's index is (scope, key, id).
    fn key_column(&self) -> <Self::Entity as EntityTrait>::Column;
    /// The id column, which breaks ties so that the order is total.
    fn id_column(&self) -> <Self::Entity as EntityTrait>::Column;
    /// The sort key and the id as the statement orders and bounds by them: the listing's own
    /// columns, unless its scope walks another table that holds copies of them in an index
    /// of its own (see `payment_pages`).
    fn key_expr(&self, _backend: DbBackend) -> Expr {
        Expr::col(self.key_column().into_column_ref())
    }
    fn id_expr(&self) -> Expr {
        Expr::col(self.id_column().into_column_ref())
    }
    fn direction(&self) -> Direction;
    fn window(&self) -> Window<'_>;
    /// The columns a page reads; every column of the table unless a listing reads fewer.
    fn columns(&self, select: Select<Self::Entity>) -> Select<Self::Entity> {
        select
    }
    /// The listing's size as an expression the page's own statement can read with its rows,
    /// where one answers it cheaply: `totalCount` then costs no statement of its own.
    fn total(&self) -> Option<Expr> {
        None
    }
    /// How PostgreSQL plans a page: by the generic plan page reads keep (the default), where
    /// the listing's walk is the same whatever the values, or for the page's own values,
    /// where the best walk depends on them (see [`Planning`]).
    fn planning(&self) -> Planning {
        Planning::Kept
    }
    /// One row of a page, read as [`Keyset::columns`] selects it.
    fn row(&self, row: &QueryResult) -> Result<Self::Row, DbError>;
    /// A row's sort key, as a cursor holds it.
    fn sort_key(&self, row: &Self::Row) -> i64;
    fn id<'r>(&self, row: &'r Self::Row) -> &'r str;
}

/// A page in the listing's order.
#[derive(Clone, Debug)]
pub struct Page<T> {
    pub rows: Vec<T>,
    /// Whether more rows follow in the paging direction (from the one extra row fetched):
    /// `hasNextPage` for `first`, `hasPreviousPage` for `last`.
    pub more: bool,
    /// Paged with `last`/`before`.
    pub backward: bool,
    /// The rows the listing holds across all pages, when read with the page
    /// ([`fetch_with_total`]).
    pub total: Option<u64>,
}

/// Fetches one page: one statement, `limit + 1` rows, the extra row telling whether more
/// follow in the paging direction.
pub async fn fetch<K: Keyset>(db: &Db, keyset: &K) -> Result<Page<K::Row>, DbError> {
    read(db, keyset, None).await
}

/// [`fetch`], and the listing's size where [`Keyset::total`] answers it: read by the same
/// statement, as a column of every row (an uncorrelated subquery, computed once). `Page::total`
/// is `None` otherwise, and for an empty page.
pub async fn fetch_with_total<K: Keyset>(db: &Db, keyset: &K) -> Result<Page<K::Row>, DbError> {
    read(db, keyset, keyset.total()).await
}

#[tracing::instrument(level = "debug", skip_all, fields(table = K::Entity::default().table_name()))]
async fn read<K: Keyset>(
    db: &Db,
    keyset: &K,
    total: Option<Expr>,
) -> Result<Page<K::Row>, DbError> {
    let with_total = total.is_some();
    let backend = db.conn().get_database_backend();
    let (statement, limit, backward) = page_statement(keyset, backend, total);
    let limit = usize::try_from(limit).unwrap_or(usize::MAX);
    let planning = keyset.planning();
    let read = super::streamed::read(db, statement, planning, limit, with_total, |row| {
        keyset.row(row)
    })
    .await?;
    let total = match &read.total {
        Some(row) => Some(total_of(row)?),
        None => None,
    };
    let (mut rows, more) = (read.rows, read.more);
    if backward {
        rows.reverse();
    }
    Ok(Page {
        rows,
        more,
        backward,
        total,
    })
}

/// The flag for the direction opposite to paging, exact: is there any row of the listing on
/// the far side of the cursor the page starts from (`hasPreviousPage` for `first`/`after`,
/// `hasNextPage` for `last`/`before`)? One indexed `LIMIT 1` probe, and none when the page
/// starts at an end of the listing.
pub async fn exists_behind<K: Keyset>(db: &Db, keyset: &K) -> Result<bool, DbError> {
    let backend = db.conn().get_database_backend();
    let Some(probe) = probe_statement(keyset, backend) else {
        return Ok(false);
    };
    match keyset.planning() {
        Planning::Kept => Ok(db.conn().query_one_raw(probe).await?.is_some()),
        // Planned for its values as the page is, each time: a prepared statement of the main
        // pool may settle on a generic plan, whose walk of a narrow amount finds nothing
        // beyond the cursor only at the account's end.
        planning => {
            let read = super::streamed::read(db, probe, planning, 1, false, |_| Ok(())).await?;
            Ok(!read.rows.is_empty())
        }
    }
}

/// The statement of [`exists_behind`]'s probe; `None` when the page starts at an end.
pub(super) fn probe_statement<K: Keyset>(keyset: &K, backend: DbBackend) -> Option<Statement> {
    let window = keyset.window();
    let position = window.start()?;
    let direction = keyset.direction();
    let side = match window.size {
        PageSize::First(_) => not_after_side(direction),
        PageSize::Last(_) => not_before_side(direction),
    };
    let probe = |scope: Select<K::Entity>| {
        scope
            .filter(beyond(keyset, backend, side, position))
            .select_only()
            .expr(keyset.id_expr())
    };
    if let Some(parts) = keyset.parts(backend) {
        let parts = parts.into_iter().map(|part| probe(part).limit(1));
        return Some(merged(parts, backend, None, &[], 1));
    }
    Some(limited(probe(keyset.scope(backend)), backend, 1))
}

/// The statement that fetches a page in scan order (reversed for `last`), [`limited`] to
/// `limit + 1` rows; with the listing's size as a column when `total` is given. Returns the
/// statement, the limit and whether the page is read backward.
pub(super) fn page_statement<K: Keyset>(
    keyset: &K,
    backend: DbBackend,
    total: Option<Expr>,
) -> (Statement, u64, bool) {
    let direction = keyset.direction();
    let window = keyset.window();
    let (limit, backward) = match window.size {
        PageSize::First(n) => (n, false),
        PageSize::Last(n) => (n, true),
    };
    let order = sql_order(direction, backward);
    let walk = |mut select: Select<K::Entity>| {
        if let Some(after) = window.after {
            select = select.filter(beyond(keyset, backend, after_side(direction), after));
        }
        if let Some(before) = window.before {
            select = select.filter(beyond(keyset, backend, before_side(direction), before));
        }
        keyset
            .columns(select)
            .order_by(keyset.key_expr(backend), order.clone())
            .order_by(keyset.id_expr(), order.clone())
    };
    if let Some(parts) = keyset.parts(backend) {
        let parts = parts.into_iter().map(|part| walk(part).limit(limit + 1));
        let order = [
            (keyset.key_expr(backend), order.clone()),
            (keyset.id_expr(), order.clone()),
        ];
        let statement = merged(parts, backend, total, &order, limit + 1);
        return (statement, limit, backward);
    }
    let mut select = walk(keyset.scope(backend));
    if let Some(total) = total {
        select = select.expr_as(total, TOTAL_COLUMN);
    }
    (limited(select, backend, limit + 1), limit, backward)
}

/// One statement over a listing's [`Keyset::parts`], each already ordered and limited: their
/// rows together (`UNION ALL`), in `order`, the first `n`, with the listing's size as a column
/// when `total` is given. Each part's rows are read through its own index in the page's order,
/// so PostgreSQL merges them (`Merge Append`) and stops after `n`.
fn merged<E: EntityTrait>(
    parts: impl Iterator<Item = Select<E>>,
    backend: DbBackend,
    total: Option<Expr>,
    order: &[(Expr, SqlOrder)],
    n: u64,
) -> Statement {
    use sea_orm::sea_query::{Alias, Asterisk, Query, SelectStatement, UnionType};
    let mut union: Option<SelectStatement> = None;
    for (i, part) in parts.enumerate() {
        let mut arm = Query::select();
        arm.column(Asterisk)
            .from_subquery(part.into_query(), Alias::new(format!("part_{i}")));
        match union.as_mut() {
            None => union = Some(arm),
            Some(union) => {
                union.union(UnionType::All, arm);
            }
        }
    }
    let mut outer = Query::select();
    outer.column(Asterisk);
    if let Some(union) = union {
        outer.from_subquery(union, Alias::new(E::default().table_name()));
    }
    if let Some(total) = total {
        outer.expr_as(total, Alias::new(TOTAL_COLUMN));
    }
    for (expr, order) in order {
        outer.order_by_expr(expr.clone(), order.clone());
    }
    with_limit(backend.build(&outer), n)
}

/// `select` for `backend` with `LIMIT n` written into its text instead of bound as a
/// parameter. With a bound limit PostgreSQL plans the prepared statement afresh on every
/// execution (its generic plan, costed for an unknown limit, never looks as cheap as a custom
/// one, so it is never chosen); with the number in the text it keeps one generic plan from
/// the sixth execution on. `n` is a page size the API has bounded (or 1): one text per page
/// size a client uses. A client that varies its page size widely makes a connection's cache
/// of prepared statements turn over, which costs a parse per page, as an unprepared
/// statement would.
fn limited<E: EntityTrait>(select: Select<E>, backend: DbBackend, n: u64) -> Statement {
    with_limit(select.build(backend), n)
}

/// `statement` with `LIMIT n` written at the end of its text (see [`limited`]).
fn with_limit(mut statement: Statement, n: u64) -> Statement {
    statement.sql.push_str(" LIMIT ");
    statement.sql.push_str(&n.to_string());
    statement
}

/// Which side of a position to keep, in scan order.
#[derive(Clone, Copy)]
enum Side {
    Greater,
    Less,
    GreaterOrEqual,
    LessOrEqual,
}

/// `(key, id) <op> (position.key, position.id)` as one row-value comparison: never an OR
/// chain, which PostgreSQL answers by filtering every row ahead of the cursor.
fn beyond<K: Keyset>(keyset: &K, backend: DbBackend, side: Side, position: &Position) -> Expr {
    let columns = Expr::tuple([keyset.key_expr(backend), keyset.id_expr()]);
    let values = Expr::tuple([Expr::val(position.key), Expr::val(position.id.clone())]);
    match side {
        Side::Greater => columns.gt(values),
        Side::Less => columns.lt(values),
        Side::GreaterOrEqual => columns.gte(values),
        Side::LessOrEqual => columns.lte(values),
    }
}

/// Rows strictly after `position` in the order (`Less` in a descending order).
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

/// Rows at or before `position` in the order: the complement of `after_side`.
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

pub(super) fn sql_order(direction: Direction, reversed: bool) -> SqlOrder {
    match (direction, reversed) {
        (Direction::Asc, false) | (Direction::Desc, true) => SqlOrder::Asc,
        (Direction::Desc, false) | (Direction::Asc, true) => SqlOrder::Desc,
    }
}

/// The name of the column that carries [`Keyset::total`].
pub(super) const TOTAL_COLUMN: &str = "page_total";

/// The listing's size in a row that carries it as [`TOTAL_COLUMN`].
pub(super) fn total_of(row: &QueryResult) -> Result<u64, DbError> {
    let total: i64 = row.try_get("", TOTAL_COLUMN)?;
    u64::try_from(total).map_err(|_| DbError::Other(format!("a negative count: {total}")))
}
