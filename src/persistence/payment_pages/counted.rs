//! A listing's `totalCount`: from the account's status counts where they answer its filter,
//! by counting the rows it selects otherwise.

use sea_orm::sea_query::{Expr, ExprTrait, QueryStatementBuilder};
use sea_orm::{ConnectionTrait, PaginatorTrait};

use super::super::keyset::{TOTAL_COLUMN, total_of};
use super::super::{Db, DbError};
use super::{filtered, terms};
use crate::domain::paging::PaymentFilter;
use crate::domain::status::PaymentStatus;

/// The sum of the account's status counts for `statuses` (all when empty), as an expression.
pub(super) fn status_count(account_id: &str, statuses: &[PaymentStatus]) -> Expr {
    let mut sum = sea_orm::sea_query::Query::select();
    sum.expr(Expr::cust("CAST(COALESCE(SUM(count), 0) AS BIGINT)"))
        .from("payment_counts")
        .and_where(Expr::col("account_id").eq(account_id));
    if !statuses.is_empty() {
        sum.and_where(Expr::col("status").is_in(statuses.iter().map(|s| s.as_str())));
    }
    Expr::SubQuery(None, Box::new(sum.into_sub_query_statement()))
}

/// Number of rows the filter selects (for `totalCount`, run only when it is asked for).
/// With no filter or a status filter only, it is read from the account's status counts
/// (`payment_counts`, kept by triggers in the same transaction as every change): a few rows,
/// whatever the number of payments. Other filters count the rows they select.
pub async fn count(db: &Db, account_id: &str, filter: &PaymentFilter) -> Result<u64, DbError> {
    if counted_by_status(filter) {
        return count_by_status(db, account_id, &filter.statuses).await;
    }
    let written = terms::counted(db.conn().get_database_backend(), filter);
    filtered(account_id, filter, 0, written)
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
        reference,
        metadata,
    } = filter;
    reference.is_none()
        && metadata.is_empty()
        && currency.is_none()
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
