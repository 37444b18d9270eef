//! The payments listing: one account's payments, by creation time or amount, filtered; a
//! [`Keyset`] for the one paginator ([`super::keyset`]), which pages it. A page reads only
//! the columns its reader shows ([`PaymentColumns`]), and `totalCount` comes with the page's
//! own statement where the account's status counts answer it.

use std::sync::Arc;

use sea_orm::sea_query::{Alias, Asterisk, Expr, ExprTrait, IntoColumnRef, JoinType};
use sea_orm::{DbBackend, QueryFilter, QueryResult, QuerySelect, QueryTrait, Select};

use super::DbError;
use super::entities::{payment_metadata, payments};
use super::keyset::{Keyset, Planning, Window};
pub use super::keyset::{exists_behind, fetch, fetch_with_total};
pub use super::payment_columns::{PaymentColumns, PaymentDetail};
use super::payments::Payment;
use crate::domain::paging::{Direction, Order, PageSize, PaymentFilter, Position, SortField};

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
    /// On SQLite, in creation order, how many of the account's payments the filter's amount
    /// range holds, counted up to [`AMOUNT_RANGE_COUNTED`] ([`amount_range_size`]): it decides
    /// how the page finds them. `None` when not counted.
    pub amount_range_size: Option<u64>,
}

impl Keyset for PageQuery {
    type Entity = payments::Entity;
    /// Shared, not copied, by whatever shows them (a connection's edges and nodes).
    type Row = Arc<Payment>;

    /// Filtered by metadata and newest (or oldest) first, the page walks the first entry's
    /// rows in `payment_metadata`, which its index holds in creation order, and reads each
    /// payment by its id: the page costs its own rows, however rare the entry, where testing
    /// the account's payments in order for the entry costs as many look-ups as payments
    /// passed over (and a join on both columns is costed by PostgreSQL as if it matched
    /// almost nothing, and answered by hashing every match).
    ///
    /// On PostgreSQL each payment is read by a lateral subquery that is planned on its own
    /// (`OFFSET 0` keeps it from being merged into the outer query). As a two-table join the
    /// statement was planned again at every execution (PostgreSQL's plan cache kept choosing
    /// custom plans for it), and the join search cost several times the execution;
    /// see `docs/benchmarks/metadata-filter.md`.
    fn scope(&self, backend: DbBackend) -> Select<payments::Entity> {
        let Some((key, value)) = self.walked_entry() else {
            return unselected(&self.account_id, &self.filter, 0, self.written(backend));
        };
        let mut select = unselected(&self.account_id, &self.filter, 1, Written::default());
        let m = Alias::new(WALKED);
        let payment_of_row = Expr::col((m.clone(), payment_metadata::Column::PaymentId))
            .equals((payments::Entity, payments::Column::Id));
        let query = QueryTrait::query(&mut select);
        if backend == DbBackend::Postgres {
            let mut one = sea_orm::sea_query::Query::select();
            one.column(Asterisk)
                .from(payments::Entity)
                .and_where(payment_of_row)
                .offset(0);
            query
                .from_clear()
                .from_as(payment_metadata::Entity, m.clone())
                .join_lateral(
                    JoinType::InnerJoin,
                    one,
                    Alias::new("payments"),
                    Expr::value(true),
                );
        } else {
            query.join_as(
                JoinType::InnerJoin,
                payment_metadata::Entity,
                m.clone(),
                payment_of_row,
            );
        }
        select
            .filter(
                Expr::col((m.clone(), payment_metadata::Column::AccountId)).eq(&self.account_id),
            )
            .filter(Expr::col((m.clone(), payment_metadata::Column::Key)).eq(key))
            .filter(Expr::col((m, payment_metadata::Column::Value)).eq(value))
    }

    /// Filtered by more than one status and in creation order: one part per status, each
    /// walked through the account's index by status (and currency, when the page has one) and
    /// creation time. (One status is a single walk of that index as it is.) On SQLite, a page
    /// whose amount range is looked up through the amount's index ([`PageQuery::amount_terms`])
    /// is read as one; a range walked is tested on each part's rows.
    fn parts(&self, backend: DbBackend) -> Option<Vec<Select<payments::Entity>>> {
        let written = self.written(backend);
        let by_status = self.filter.statuses.len() > 1
            && self.order.field == SortField::CreatedAt
            && self.walked_entry().is_none()
            && !matches!(written.amounts, Some(AmountTerms::LookedUp))
            && !written.by_reference;
        by_status.then(|| {
            // Disjoint parts: a status given twice is walked once.
            let statuses = self.filter.clone().normalised().statuses;
            statuses
                .into_iter()
                .map(|status| {
                    let filter = PaymentFilter {
                        statuses: vec![status],
                        ..self.filter.clone()
                    };
                    unselected(&self.account_id, &filter, 0, written)
                })
                .collect()
        })
    }

    fn key_expr(&self, backend: DbBackend) -> Expr {
        let column = Expr::col(self.key_column().into_column_ref());
        match self.walked_entry() {
            Some(_) => Expr::col((Alias::new(WALKED), payment_metadata::Column::CreatedAt)),
            // A range counted sparse is read through the amount's index and sorted, and a
            // reference's rows on SQLite through the index of references: the order is not
            // taken from another index (`+`), which SQLite would walk instead.
            None if self.counted_sparse() || self.walks_reference(backend) => {
                Expr::cust_with_expr("+?", column)
            }
            None => column,
        }
    }

    fn id_expr(&self) -> Expr {
        match self.walked_entry() {
            Some(_) => Expr::col((Alias::new(WALKED), payment_metadata::Column::PaymentId)),
            None => Expr::col(self.id_column().into_column_ref()),
        }
    }

    fn key_column(&self) -> payments::Column {
        key_column(self.order.field)
    }

    fn id_column(&self) -> payments::Column {
        payments::Column::Id
    }

    fn direction(&self) -> Direction {
        self.order.direction
    }

    fn window(&self) -> Window<'_> {
        Window {
            size: self.size,
            after: self.after.as_ref(),
            before: self.before.as_ref(),
        }
    }

    fn columns(&self, select: Select<payments::Entity>) -> Select<payments::Entity> {
        select.select_only().columns(self.columns.list())
    }

    /// The status counts' sum, where they answer the filter ([`counted_by_status`]).
    fn total(&self) -> Option<Expr> {
        counted_by_status(&self.filter)
            .then(|| status_count(&self.account_id, &self.filter.statuses))
    }

    /// Planned for its values ([`planned_for_values`]) or by the generic plan page reads keep.
    fn planning(&self) -> Planning {
        if planned_for_values(&self.filter, self.order.field) {
            Planning::ForValues
        } else {
            Planning::Kept
        }
    }

    fn row(&self, row: &QueryResult) -> Result<Arc<Payment>, DbError> {
        super::payment_columns::payment_in(row, self.columns, &self.account_id).map(Arc::new)
    }

    fn sort_key(&self, row: &Arc<Payment>) -> i64 {
        sort_key(row, self.order.field)
    }

    fn id<'r>(&self, row: &'r Arc<Payment>) -> &'r str {
        &row.id
    }
}

/// The alias of `payment_metadata` in a page that walks an entry's rows.
const WALKED: &str = "walked";

impl PageQuery {
    /// How a page's amount bounds are written for SQLite, the embedded database, in creation
    /// order. It keeps no statistics of values, and even with `ANALYZE`'s reckons any range of
    /// amounts narrow, so left to itself it read every payment of the range through the
    /// amount's index and sorted them all (about 1 s for a page of `amountMin: 1` on an
    /// account of 300,000 payments). A range that holds fewer than [`AMOUNT_RANGE_COUNTED`]
    /// of the account's payments is read through that index; one that holds more walks the
    /// account in creation order, which stops at the page's end (`amount_range_size`, counted
    /// before the page). Not counted, one amount is looked up and a range walked.
    /// (PostgreSQL plans such a page for its values, see [`planned_for_values`].)
    fn amount_terms(&self, backend: DbBackend) -> Option<AmountTerms> {
        amount_range::chosen(backend, &self.filter, self.order.field)
            .then(|| AmountTerms::for_range(self.amount_range_size, &self.filter))
    }

    /// How the page's terms are written for `backend` ([`Written`]).
    fn written(&self, backend: DbBackend) -> Written {
        Written {
            amounts: self.amount_terms(backend),
            by_reference: self.walks_reference(backend),
        }
    }

    /// Whether the page is a reference's, read on SQLite through the index of references with
    /// every other term tested on its rows. SQLite keeps no statistics, and took the index by
    /// status, or in the order of amounts the amount's, which for a common status or any
    /// reference walked most of the account (0.36 s and 1.7 s on 1,000,000 payments). A
    /// reference is a merchant's own order number: it selects a handful of payments.
    fn walks_reference(&self, backend: DbBackend) -> bool {
        backend == DbBackend::Sqlite
            && self.filter.reference.is_some()
            && self.walked_entry().is_none()
    }

    /// Whether the page's amount range was counted (on SQLite, see [`amount_range_size`]) and
    /// holds fewer payments than [`AMOUNT_RANGE_COUNTED`].
    fn counted_sparse(&self) -> bool {
        self.walked_entry().is_none()
            && self.order.field == SortField::CreatedAt
            && self
                .amount_range_size
                .is_some_and(|size| size < AMOUNT_RANGE_COUNTED)
    }

    /// The metadata entry whose rows a page walks, if it walks one: when the page is filtered
    /// by metadata and ordered by creation time, which those rows hold.
    fn walked_entry(&self) -> Option<&(String, String)> {
        match self.order.field {
            SortField::CreatedAt => self.filter.metadata.entries().first(),
            SortField::Amount => None,
        }
    }
}

/// Whether a page's walk depends on the values of its filter, so that PostgreSQL must plan it
/// for them: one amount in a million is found by the amount's index, a common one by walking
/// the account in order, and the generic plan, made without the values, walks the account
/// for both, testing every payment. So is a page filtered by amount, and one filtered by
/// status, currency, time or metadata in the order of amounts. In creation order, a page of
/// the whole account, of a time range, of statuses (each walked by its own index, see
/// [`Keyset::parts`]), of a currency (walked by its index: the table's statistics reckon a
/// currency filter selective, see migration 16 and 17), of statuses and a currency (each
/// status walked by the index of both, migration 18) or of a metadata entry (walked by its
/// rows) is one walk whatever the values; a page of a reference is read through the index of
/// references whatever it is, in either order.
pub fn planned_for_values(filter: &PaymentFilter, field: SortField) -> bool {
    let PaymentFilter {
        statuses,
        currency,
        created_after,
        created_before,
        amount_min,
        amount_max,
        reference: _,
        metadata,
    } = filter;
    let by_value = amount_min.is_some() || amount_max.is_some();
    let walked_otherwise = !statuses.is_empty()
        || currency.is_some()
        || created_after.is_some()
        || created_before.is_some()
        || !metadata.is_empty();
    by_value || (walked_otherwise && field == SortField::Amount)
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

mod amount_range;
use amount_range::AmountTerms;
mod terms;
pub use amount_range::{AMOUNT_RANGE_COUNTED, amount_range_size};
use terms::{Written, filtered, unselected};
mod counted;
use counted::status_count;
pub use counted::{count, counted_by_status};
#[cfg(feature = "test-support")]
mod support;
#[cfg(feature = "test-support")]
pub use support::{
    amount_range_sql, count_sql, counted_page_sql, offset_page_for_benchmark, page_sql,
    prepared_page_sql,
};
