//! How SQLite finds a page's amounts in creation order: through the amount's index when the
//! account holds few payments in the range, by walking the account in order when it holds
//! many. SQLite keeps no statistics of values, so the gateway counts, up to
//! [`AMOUNT_RANGE_COUNTED`], what the range holds before it reads the page
//! ([`amount_range_size`]). (PostgreSQL plans such a page for its values instead, see
//! [`super::planned_for_values`].)

use sea_orm::sea_query::{Alias, Expr, ExprTrait, Query, SelectStatement};
use sea_orm::{ConnectionTrait, DbBackend};

use super::super::entities::payments;
use super::super::{Db, DbError};
use crate::domain::paging::{PaymentFilter, SortField};

/// The payments of an amount range below which a page reads them through the amount's index
/// (and sorts them in creation order). A range that holds this many or more is walked in
/// creation order instead: where its payments are spread through time, a page of 50 passes
/// over at most about a twentieth of the account's payments.
pub const AMOUNT_RANGE_COUNTED: u64 = 1_000;

/// How SQLite is told to find a page's amounts ([`super::PageQuery::amount_terms`]).
#[derive(Clone, Copy, Debug)]
pub(super) enum AmountTerms {
    /// Through the amount's index: each bound told true of one payment in ten thousand
    /// (`likelihood()`).
    LookedUp,
    /// Not through the amount's index (`+amount`, which no index holds): the account is
    /// walked in the page's order, each payment tested.
    Walked,
}

impl AmountTerms {
    /// The way to find a range that holds `size` payments (counted up to
    /// [`AMOUNT_RANGE_COUNTED`]); not counted, one amount is looked up and a range walked.
    pub(super) fn for_range(size: Option<u64>, filter: &PaymentFilter) -> Self {
        match (size, filter.amount_min, filter.amount_max) {
            (Some(size), _, _) if size < AMOUNT_RANGE_COUNTED => Self::LookedUp,
            (Some(_), _, _) => Self::Walked,
            (None, Some(min), Some(max)) if min == max => Self::LookedUp,
            (None, _, _) => Self::Walked,
        }
    }
}

/// Whether a page of `filter` in `field` order finds its amounts as [`AmountTerms`] tells:
/// on SQLite, in creation order, bounded by amount, not walking a metadata entry and not a
/// reference's (whose rows are read through the index of references, their amounts tested).
pub(super) fn chosen(backend: DbBackend, filter: &PaymentFilter, field: SortField) -> bool {
    backend == DbBackend::Sqlite
        && field == SortField::CreatedAt
        && (filter.amount_min.is_some() || filter.amount_max.is_some())
        && filter.metadata.is_empty()
        && filter.reference.is_none()
}

/// How many of the account's payments `filter`'s amount range holds, counted through the
/// amount's index up to [`AMOUNT_RANGE_COUNTED`], for the page to choose how it finds them
/// (`PageQuery::amount_range_size`); `None` where the page does not choose (see [`chosen`]).
pub async fn amount_range_size(
    db: &Db,
    account_id: &str,
    filter: &PaymentFilter,
    field: SortField,
) -> Result<Option<u64>, DbError> {
    let backend = db.conn().get_database_backend();
    if !chosen(backend, filter, field) {
        return Ok(None);
    }
    let statement = backend.build(&counted(account_id, filter));
    let row = db
        .conn()
        .query_one_raw(statement)
        .await?
        .ok_or_else(|| DbError::Other("a count returned no row".into()))?;
    let size: i64 = row.try_get("", "n")?;
    Ok(Some(u64::try_from(size).unwrap_or(0)))
}

/// The count of [`amount_range_size`]: the range's payments of the account read through the
/// amount's index, at most [`AMOUNT_RANGE_COUNTED`] of them.
pub(super) fn counted(account_id: &str, filter: &PaymentFilter) -> SelectStatement {
    let amount = || Expr::col((payments::Entity, payments::Column::Amount));
    let bound = |term: Expr| Expr::cust_with_expr("likelihood(?, 0.0001)", term);
    let mut range = Query::select();
    range
        .expr(Expr::val(1))
        .from(payments::Entity)
        .and_where(Expr::col((payments::Entity, payments::Column::AccountId)).eq(account_id));
    if let Some(min) = filter.amount_min {
        range.and_where(bound(amount().gte(min)));
    }
    if let Some(max) = filter.amount_max {
        range.and_where(bound(amount().lte(max)));
    }
    range.limit(AMOUNT_RANGE_COUNTED);
    let mut count = Query::select();
    count
        .expr_as(Expr::cust("COUNT(*)"), Alias::new("n"))
        .from_subquery(range, Alias::new("in_range"));
    count
}
