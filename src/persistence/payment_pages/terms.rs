//! How a listing's filter is written into its statement: the terms every page and count
//! shares, and how SQLite, which keeps no statistics of values, is told which index to walk.

use sea_orm::sea_query::{Expr, ExprTrait};
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, QuerySelect, Select};

use super::AmountTerms;
use crate::domain::paging::PaymentFilter;
use crate::persistence::entities::payments;

/// The account's rows that pass the filter, unordered; the first `walked` metadata entries
/// are left to the caller; its terms written as `written` tells.
pub(super) fn filtered(
    account_id: &str,
    filter: &PaymentFilter,
    walked: usize,
    written: Written,
) -> Select<payments::Entity> {
    narrowed(
        payments::Entity::find(),
        account_id,
        filter,
        walked,
        written,
    )
}

/// How the count of `filter`'s rows is written for `backend`: on SQLite, a reference's rows
/// are counted through the index of references, the other terms tested on them, as its page
/// reads them (`PageQuery::walks_reference`).
pub(super) fn counted(backend: sea_orm::DbBackend, filter: &PaymentFilter) -> Written {
    Written {
        amounts: None,
        by_reference: backend == sea_orm::DbBackend::Sqlite && filter.reference.is_some(),
    }
}

/// [`filtered`] without a column selected: a page's statement names the columns it reads
/// ([`Keyset::columns`]), so the table's 25 are not listed only to be cleared again.
pub(super) fn unselected(
    account_id: &str,
    filter: &PaymentFilter,
    walked: usize,
    written: Written,
) -> Select<payments::Entity> {
    static NO_COLUMN: std::sync::LazyLock<Select<payments::Entity>> =
        std::sync::LazyLock::new(|| payments::Entity::find().select_only());
    narrowed(NO_COLUMN.clone(), account_id, filter, walked, written)
}

/// How a page's terms are written for SQLite, which keeps no statistics of values and takes
/// its walk from how they are written (a `+` before a column keeps its index out of the
/// choice).
#[derive(Clone, Copy, Default)]
pub(super) struct Written {
    /// The amount bounds, when counted or chosen (`PageQuery::amount_terms`).
    pub amounts: Option<AmountTerms>,
    /// Every term but the account and the reference tested on each row, so that the index of
    /// references is the one walked (`PageQuery::walks_reference`).
    pub by_reference: bool,
}

/// `query` limited to the payments of `account_id` that `filter` selects, but for the first
/// `walked` metadata entries (which the page walks instead); its terms written as `written`
/// tells.
fn narrowed(
    query: Select<payments::Entity>,
    account_id: &str,
    filter: &PaymentFilter,
    walked: usize,
    written: Written,
) -> Select<payments::Entity> {
    let amounts = written.amounts;
    let term = |column: payments::Column| {
        let column = Expr::col((payments::Entity, column));
        match written.by_reference {
            true => Expr::cust_with_expr("+?", column),
            false => column,
        }
    };
    let amount = match amounts {
        Some(AmountTerms::Walked) => Expr::cust_with_expr("+?", term(payments::Column::Amount)),
        _ => term(payments::Column::Amount),
    };
    let bound = |term: Expr| match amounts {
        Some(AmountTerms::LookedUp) => Expr::cust_with_expr("likelihood(?, 0.0001)", term),
        _ => term,
    };
    let mut query = query.filter(payments::Column::AccountId.eq(account_id));
    if !filter.statuses.is_empty() {
        let statuses = filter.statuses.iter().map(|s| s.as_str());
        query = query.filter(term(payments::Column::Status).is_in(statuses));
    }
    if let Some(currency) = filter.currency {
        query = query.filter(term(payments::Column::Currency).eq(currency.code()));
    }
    if let Some(after) = filter.created_after {
        query = query.filter(term(payments::Column::CreatedAt).gte(after.micros()));
    }
    if let Some(before) = filter.created_before {
        query = query.filter(term(payments::Column::CreatedAt).lt(before.micros()));
    }
    if let Some(min) = filter.amount_min {
        query = query.filter(bound(amount.clone().gte(min)));
    }
    if let Some(max) = filter.amount_max {
        query = query.filter(bound(amount.lte(max)));
    }
    if let Some(reference) = &filter.reference {
        query = query.filter(payments::Column::Reference.eq(reference));
    }
    for (key, value) in filter.metadata.entries().iter().skip(walked) {
        query = query.filter(payments::Column::Id.in_subquery(
            crate::persistence::merchant_data::payments_with(account_id, key, value),
        ));
    }
    query
}
