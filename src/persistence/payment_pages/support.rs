//! The listing's statements as tests and benchmarks inspect them: their SQL for `EXPLAIN`,
//! and the OFFSET form the pagination benchmark compares against.
//!
//! Exists for the tests and benchmarks (feature `test-support`).

use sea_orm::DbBackend;

use super::super::entities::payments;
use super::super::keyset::Keyset;
use super::super::payments::Payment;
use super::super::{Db, DbError};
use super::{PageQuery, filtered, key_column};
use crate::domain::paging::{Order, PaymentFilter};
use sea_orm::QuerySelect;

/// The SQL of the page statement with its values inlined, for `EXPLAIN`.
///
/// Exists for the tests and benchmarks (feature `test-support`).
pub fn page_sql(backend: super::super::Backend, query: &PageQuery) -> String {
    statement_text(backend, query, None)
}

/// [`page_sql`] as a page that shows `totalCount` runs it: the listing's size read by the same
/// statement where the status counts answer it.
pub fn counted_page_sql(backend: super::super::Backend, query: &PageQuery) -> String {
    statement_text(backend, query, query.total())
}

/// The page statement as page reads run it on PostgreSQL (with `totalCount` when `counted`):
/// its text with placeholders, and its values as SQL literals, for `PREPARE` and `EXECUTE`;
/// prepared on page reads' own connection, its plan is the generic one they keep (which a page
/// planned for its values does not use, see `planned_for_values`).
///
/// Exists for the tests and benchmarks (feature `test-support`).
pub fn prepared_page_sql(query: &PageQuery, counted: bool) -> (String, Vec<String>) {
    use sea_orm::sea_query::{PostgresQueryBuilder, QueryBuilder};
    let total = if counted { query.total() } else { None };
    let (statement, _, _) = super::super::keyset::page_statement(query, DbBackend::Postgres, total);
    let values = statement.values.map(|values| values.0).unwrap_or_default();
    let literals = values
        .iter()
        .map(|value| PostgresQueryBuilder.value_to_string(value))
        .collect();
    (statement.sql, literals)
}

fn statement_text(
    backend: super::super::Backend,
    query: &PageQuery,
    total: Option<sea_orm::sea_query::Expr>,
) -> String {
    let backend = match backend {
        super::super::Backend::Sqlite => sea_orm::DbBackend::Sqlite,
        super::super::Backend::Postgres => sea_orm::DbBackend::Postgres,
    };
    super::super::keyset::page_statement(query, backend, total)
        .0
        .to_string()
}

/// The SQL of `totalCount`'s count of `filter`'s rows (where the status counts do not answer
/// it), with its values inlined, for `EXPLAIN`.
///
/// Exists for the tests and benchmarks (feature `test-support`).
pub fn count_sql(
    backend: super::super::Backend,
    account_id: &str,
    filter: &PaymentFilter,
) -> String {
    use sea_orm::QueryTrait;
    let backend = match backend {
        super::super::Backend::Sqlite => sea_orm::DbBackend::Sqlite,
        super::super::Backend::Postgres => sea_orm::DbBackend::Postgres,
    };
    let written = super::terms::counted(backend, filter);
    let rows = filtered(account_id, filter, 0, written)
        .build(backend)
        .to_string();
    format!("SELECT COUNT(*) FROM ({rows}) AS counted")
}

/// The SQL of the count that decides how SQLite finds a page's amounts
/// ([`super::amount_range_size`]), with its values inlined, for `EXPLAIN`.
///
/// Exists for the tests and benchmarks (feature `test-support`).
pub fn amount_range_sql(account_id: &str, filter: &PaymentFilter) -> String {
    super::amount_range::counted(account_id, filter)
        .to_string(sea_orm::sea_query::SqliteQueryBuilder)
}

/// The OFFSET form of a page, only as the baseline the pagination benchmark compares against;
/// the API never pages this way.
///
/// Exists for the tests and benchmarks (feature `test-support`).
pub async fn offset_page_for_benchmark(
    db: &Db,
    account_id: &str,
    order: Order,
    offset: u64,
    limit: u64,
) -> Result<Vec<Payment>, DbError> {
    use sea_orm::QueryOrder;
    let sql = super::super::keyset::sql_order(order.direction, false);
    filtered(account_id, &PaymentFilter::default(), 0, Default::default())
        .order_by(key_column(order.field), sql.clone())
        .order_by(payments::Column::Id, sql)
        .offset(offset)
        .limit(limit)
        .all(db.conn())
        .await
        .map_err(DbError::from)
        .and_then(super::super::rows::payments)
}
