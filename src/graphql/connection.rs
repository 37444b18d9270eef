//! Relay cursor connections over payments: `payments(first, after, last, before, filter,
//! orderBy)` on `Query` and `Account`.

use async_graphql::{ComplexObject, Context, Enum, InputObject, Object, Result, SimpleObject};

use std::sync::Arc;

use super::direct::Direct;
use super::limits::fields::charge_list;
use super::listed::{self, Edges, Listed, Nodes, PaymentFields, Rows};
use super::merchant_data::MetadataEntryInput;
use super::objects::{Payment, PaymentStatus};
use super::paging::{Listing, PageInfo, Paged, page_size, position};
use super::relations::PageRelations;
use super::scalars::{Currency, DateTime};
use crate::domain::cursor::CursorCodec;
use crate::domain::ids::IdKind;
use crate::domain::money::MAX_AMOUNT;
use crate::domain::paging::{self, Direction, Order, SortField};
use crate::error::ApiError;
use crate::persistence::Db;
use crate::persistence::payment_pages::{self, PageQuery};

#[derive(Enum, Copy, Clone, Debug, Eq, PartialEq)]
#[graphql(remote = "SortField")]
pub enum PaymentOrderField {
    CreatedAt,
    Amount,
}

#[derive(Enum, Copy, Clone, Debug, Eq, PartialEq)]
#[graphql(remote = "Direction")]
pub enum OrderDirection {
    Asc,
    Desc,
}

/// The order of a listing; `id` breaks ties, so the order is total.
#[derive(InputObject, Clone, Copy, Debug)]
#[graphql(name = "PaymentOrder")]
pub struct PaymentOrderInput {
    #[graphql(default_with = "PaymentOrderField::CreatedAt")]
    pub field: PaymentOrderField,
    #[graphql(default_with = "OrderDirection::Desc")]
    pub direction: OrderDirection,
}

/// Which payments to list; every part is optional and they combine.
#[derive(InputObject, Clone, Debug, Default)]
#[graphql(name = "PaymentFilter")]
pub struct PaymentFilterInput {
    /// Any of these statuses.
    pub status: Option<Vec<PaymentStatus>>,
    pub currency: Option<Currency>,
    /// Created at or after this instant.
    pub created_after: Option<DateTime>,
    /// Created strictly before this instant.
    pub created_before: Option<DateTime>,
    /// At least this amount, in minor units.
    pub amount_min: Option<i64>,
    /// At most this amount, in minor units.
    pub amount_max: Option<i64>,
    /// The merchant's reference, exactly.
    pub reference: Option<String>,
    /// Entries the payments carry, every one of them (at most 50).
    pub metadata: Option<Vec<MetadataEntryInput>>,
}

impl PaymentFilterInput {
    fn into_domain(self) -> Result<paging::PaymentFilter, ApiError> {
        for (field, value) in [
            ("filter.amountMin", self.amount_min),
            ("filter.amountMax", self.amount_max),
        ] {
            if let Some(v) = value.filter(|v| !(0..=MAX_AMOUNT).contains(v)) {
                return Err(ApiError::bad_input(
                    field,
                    format!("must be between 0 and {MAX_AMOUNT} minor units, got {v}"),
                ));
            }
        }
        let (reference, metadata) = crate::service::payments::merchant_data(
            "filter",
            self.reference,
            self.metadata.map(super::merchant_data::entries),
        )?;
        Ok(paging::PaymentFilter {
            reference,
            metadata: metadata.unwrap_or_default(),
            statuses: self
                .status
                .unwrap_or_default()
                .into_iter()
                .map(Into::into)
                .collect(),
            currency: self.currency.map(|c| c.0),
            created_after: self.created_after.map(|t| t.0),
            created_before: self.created_before.map(|t| t.0),
            amount_min: self.amount_min,
            amount_max: self.amount_max,
        }
        .normalised())
    }
}

/// The arguments every payments connection takes.
pub struct PageArgs {
    pub first: Option<i32>,
    pub after: Option<String>,
    pub last: Option<i32>,
    pub before: Option<String>,
    pub filter: Option<PaymentFilterInput>,
    pub order_by: Option<PaymentOrderInput>,
}

/// Validates the arguments, fetches the page and wraps it as a connection.
pub async fn payments(
    ctx: &Context<'_>,
    account_id: &str,
    args: PageArgs,
) -> Result<PaymentConnection> {
    let db = ctx.data::<Db>()?;
    let codec = ctx.data::<CursorCodec>()?;
    let size = page_size(args.first, args.last)?;
    let filter = args.filter.unwrap_or_default().into_domain()?;
    let order = args
        .order_by
        .map(|o| Order {
            field: o.field.into(),
            direction: o.direction.into(),
        })
        .unwrap_or_default();
    let listing = Listing {
        kind: IdKind::Payment,
        fingerprint: paging::fingerprint(&filter, order),
    };
    // What the selection reads (the columns it shows, whether it counts), planned once per
    // document.
    let (columns, counted) = *crate::graphql::kept::planned::<PaymentConnection, _, _>(
        ctx,
        ctx.item.pos,
        || {
            let shown = &ctx.item.node.selection_set.node;
            (
                listed::columns_shown(listed::document(ctx), shown),
                ctx.look_ahead().field("totalCount").exists(),
            )
        },
        |_| 1,
    );
    // Cursors are checked before any statement runs: a refused page costs the database nothing.
    let after = position(codec, listing, args.after)?;
    let before = position(codec, listing, args.before)?;
    let amount_range_size = payment_pages::amount_range_size(db, account_id, &filter, order.field)
        .await
        .map_err(ApiError::from)?;
    let query = PageQuery {
        account_id: account_id.to_string(),
        after,
        before,
        filter,
        order,
        size,
        columns,
        amount_range_size,
    };
    // `totalCount` comes with the page's own statement where the status counts answer it.
    let page = if counted {
        payment_pages::fetch_with_total(db, &query).await
    } else {
        payment_pages::fetch(db, &query).await
    }
    .map_err(ApiError::from)?;
    Ok(PaymentConnection {
        relations: PageRelations::new(account_id, page.rows.clone()),
        paged: Paged::new(page, query, listing),
    })
}

/// A page of payments.
pub struct PaymentConnection {
    paged: Paged<PageQuery>,
    relations: Arc<PageRelations>,
}

impl PaymentConnection {
    fn rows(&self) -> &[Arc<crate::persistence::payments::Payment>] {
        self.paged.rows()
    }
}

impl Rows for PaymentConnection {
    type Query = PageQuery;
    type Fields = PaymentFields;
    type Edge = PaymentEdge;
    type Node = Direct;

    fn paged(&self) -> &Paged<PageQuery> {
        &self.paged
    }

    /// A payment of the page, its fields answered as a payment on its own is (the row's
    /// written straight in, `events` and `refunds` by the page's loaders).
    fn node(&self, payment: &Arc<crate::persistence::payments::Payment>) -> Direct {
        Direct(Payment {
            payment: payment.clone(),
            page: Some(self.relations.clone()),
            as_of_change: false,
        })
    }

    fn edge(cursor: String, node: Direct) -> PaymentEdge {
        PaymentEdge { cursor, node }
    }
}

#[Object]
impl PaymentConnection {
    async fn edges(&self, ctx: &Context<'_>) -> Result<Listed<'_, Self, Edges>> {
        charge_list(ctx, self.rows().len())?;
        Ok(Listed::new(self))
    }

    async fn nodes(&self, ctx: &Context<'_>) -> Result<Listed<'_, Self, Nodes>> {
        charge_list(ctx, self.rows().len())?;
        Ok(Listed::new(self))
    }

    async fn page_info(&self, ctx: &Context<'_>) -> PageInfo<'_> {
        self.paged.page_info(ctx).await
    }

    /// How many payments match the filter, across all pages. Counted only when selected.
    async fn total_count(&self, ctx: &Context<'_>) -> Result<i64> {
        if let Some(total) = self.paged.total() {
            return Ok(i64::try_from(total).unwrap_or(i64::MAX));
        }
        let db = ctx.data::<Db>()?;
        let query = self.paged.query();
        let n = payment_pages::count(db, &query.account_id, &query.filter)
            .await
            .map_err(ApiError::from)?;
        Ok(i64::try_from(n).unwrap_or(i64::MAX))
    }
}

#[derive(SimpleObject)]
#[graphql(complex)]
pub struct PaymentEdge {
    /// Opaque; pass it as `after` or `before` with the same filter and order.
    pub cursor: String,
    #[graphql(skip)]
    node: Direct,
}

#[ComplexObject]
impl PaymentEdge {
    async fn node(&self) -> &Direct {
        &self.node
    }
}
