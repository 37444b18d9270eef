//! Keyset pages of merchant webhook endpoints and deliveries, newest first.

use sea_orm::sea_query::{Expr, ExprTrait};
use sea_orm::{EntityTrait, PaginatorTrait, QueryFilter, QueryOrder, QuerySelect, Select};

use crate::domain::paging::{PageSize, Position};
use crate::persistence::{Db, DbError};

/// A page in newest-first order, bounded by the cursors given.
#[derive(Clone, Debug)]
pub struct PageRequest {
    pub size: PageSize,
    pub after: Option<Position>,
    pub before: Option<Position>,
}

#[derive(Clone, Debug)]
pub struct Page<T> {
    pub rows: Vec<T>,
    pub has_next: bool,
    pub has_previous: bool,
}

impl<T> Page<T> {
    pub(super) fn map<U>(self, f: impl FnMut(T) -> Result<U, DbError>) -> Result<Page<U>, DbError> {
        Ok(Page {
            rows: self.rows.into_iter().map(f).collect::<Result<_, _>>()?,
            has_next: self.has_next,
            has_previous: self.has_previous,
        })
    }
}

/// A keyset page over `(created_at, id)`, newest first, of the rows `base` selects. The flag
/// for the side opposite to paging costs a count of the rows beyond the cursor given.
pub(super) async fn keyset_page<E>(
    db: &Db,
    base: Select<E>,
    created: E::Column,
    id: E::Column,
    request: &PageRequest,
) -> Result<Page<E::Model>, DbError>
where
    E: EntityTrait,
    E::Model: Sync,
{
    let key = |p: &Position| Expr::tuple([Expr::value(p.key), Expr::value(p.id.clone())]);
    let columns = || Expr::tuple([Expr::col(created), Expr::col(id)]);
    let mut select = base.clone();
    if let Some(after) = &request.after {
        select = select.filter(columns().lt(key(after)));
    }
    if let Some(before) = &request.before {
        select = select.filter(columns().gt(key(before)));
    }
    let (limit, backward) = match request.size {
        PageSize::First(n) => (n, false),
        PageSize::Last(n) => (n, true),
    };
    let ordered = if backward {
        select.order_by_asc(created).order_by_asc(id)
    } else {
        select.order_by_desc(created).order_by_desc(id)
    };
    let mut rows = ordered.limit(limit + 1).all(db.conn()).await?;
    let more = rows.len() as u64 > limit;
    rows.truncate(limit as usize);
    if backward {
        rows.reverse();
    }
    let beyond = match (backward, &request.after, &request.before) {
        (false, Some(after), _) => Some(base.filter(columns().gte(key(after)))),
        (true, _, Some(before)) => Some(base.filter(columns().lte(key(before)))),
        _ => None,
    };
    let other_side = match beyond {
        Some(beyond) => beyond.count(db.conn()).await? > 0,
        None => false,
    };
    Ok(Page {
        rows,
        has_next: if backward { other_side } else { more },
        has_previous: if backward { more } else { other_side },
    })
}
