//! The most fields one request (or one subscription event) may resolve, whatever its lists
//! hold: the cost counts a list of objects as one object, and lists can nest (a payment's
//! refunds' payment's refunds...).
//!
//! Fields outside lists are bounded by the document's shape. Each list is charged when its
//! resolver has its items and before any of them is resolved: the number of items times the
//! fields selected under one item (a list nested there counted as one item; it is charged
//! again, in full, when it resolves). Nothing is charged per field, so resolving a field
//! costs nothing here.

use std::sync::atomic::{AtomicU64, Ordering};

use async_graphql::{Context, SelectionField};

use crate::error::ApiError;

/// One request's (or one subscription event's) fields, against the most it may resolve. In
/// the request's data while the query limits are on.
#[derive(Debug)]
pub struct FieldBudget {
    max: u64,
    used: AtomicU64,
}

impl FieldBudget {
    pub fn new(max: u64) -> Self {
        Self {
            max,
            used: AtomicU64::new(0),
        }
    }

    /// A subscription's next event starts afresh.
    pub fn reset(&self) {
        self.used.store(0, Ordering::Relaxed);
    }

    fn charge(&self, fields: u64) -> Result<(), ApiError> {
        let before = self.used.fetch_add(fields, Ordering::Relaxed);
        let after = before.saturating_add(fields);
        if after <= self.max {
            return Ok(());
        }
        if before <= self.max {
            tracing::warn!(max = self.max, "a result grew past the field limit");
        }
        Err(ApiError::QueryTooComplex {
            message: format!(
                "the result grew past {} fields; ask for less at once",
                self.max
            ),
            cost: None,
        })
    }
}

/// Charges the list the field of `ctx` resolves to, of `items` items; `Err` stops it before
/// its items are resolved.
pub fn charge_list(ctx: &Context<'_>, items: usize) -> Result<(), ApiError> {
    let Some(budget) = ctx.data_opt::<std::sync::Arc<FieldBudget>>() else {
        return Ok(());
    };
    if items == 0 {
        return Ok(());
    }
    let per_item = under(ctx.field()).max(1);
    budget.charge((items as u64).saturating_mul(per_item))
}

/// The fields selected under `field`, at every depth.
fn under(field: SelectionField<'_>) -> u64 {
    field
        .selection_set()
        .map(|child| 1 + under(child))
        .fold(0u64, u64::saturating_add)
}
