//! What every connection shares: its page arguments checked once (the size, and cursors
//! bound to the listing that issued them, with the errors they give), its rows' cursors, and
//! `PageInfo`, whose flags are exact in both directions.

use async_graphql::{Context, Object, Result};

use crate::domain::cursor::{CursorCodec, CursorError, Signer};
use crate::domain::ids::IdKind;
use crate::domain::paging::{PageSize, Position};
use crate::error::ApiError;
use crate::persistence::Db;
use crate::persistence::keyset::{self, Keyset, Page, PageRequest};

/// What a listing's cursors are bound to: the kind of object it lists, and a fingerprint of
/// its filter and order (or of its parent), so that another listing's cursor is refused.
#[derive(Clone, Copy, Debug)]
pub struct Listing {
    pub kind: IdKind,
    pub fingerprint: [u8; 8],
}

/// `first` and `last`, checked (`PAGE_SIZE_OUT_OF_RANGE`).
pub fn page_size(first: Option<i32>, last: Option<i32>) -> Result<PageSize, ApiError> {
    PageSize::from_params(first, last).map_err(ApiError::PageSizeOutOfRange)
}

/// An `after` or `before` cursor, checked: signed by this server in a version it reads
/// (`INVALID_CURSOR`), and issued by this listing (`CURSOR_MISMATCH`).
pub fn position(
    codec: &CursorCodec,
    listing: Listing,
    cursor: Option<String>,
) -> Result<Option<Position>, ApiError> {
    cursor
        .map(|cursor| {
            codec
                .decode_for(listing.kind, &cursor, listing.fingerprint)
                .map_err(|err| match err {
                    CursorError::Invalid(why) => ApiError::InvalidCursor(why.to_string()),
                    CursorError::Mismatch => ApiError::CursorMismatch,
                })
        })
        .transpose()
}

/// A connection's page arguments, checked in the order their errors are reported: the size,
/// then `after`, then `before`.
pub fn page_request(
    codec: &CursorCodec,
    listing: Listing,
    first: Option<i32>,
    after: Option<String>,
    last: Option<i32>,
    before: Option<String>,
) -> Result<PageRequest, ApiError> {
    Ok(PageRequest {
        size: page_size(first, last)?,
        after: position(codec, listing, after)?,
        before: position(codec, listing, before)?,
    })
}

/// A page read for a connection, with what its cursors and `pageInfo` need.
pub struct Paged<K: Keyset> {
    page: Page<K::Row>,
    query: K,
    fingerprint: [u8; 8],
}

impl<K: Keyset + Sync> Paged<K>
where
    K::Row: Sync,
{
    pub fn new(page: Page<K::Row>, query: K, listing: Listing) -> Self {
        Paged {
            page,
            query,
            fingerprint: listing.fingerprint,
        }
    }

    pub fn rows(&self) -> &[K::Row] {
        &self.page.rows
    }

    /// What the page was read for.
    pub fn query(&self) -> &K {
        &self.query
    }

    /// The listing's size, when the page's statement read it.
    pub fn total(&self) -> Option<u64> {
        self.page.total
    }

    /// The cursor of one of the page's rows, signed by `signer` (taken once for the page's
    /// rows).
    pub fn cursor_by(&self, signer: &Signer, row: &K::Row) -> String {
        signer.encode_at(
            self.query.sort_key(row),
            self.query.id(row),
            self.fingerprint,
        )
    }

    /// [`Paged::cursor_by`] as a JSON string, appended to `out`.
    pub fn write_cursor(&self, signer: &Signer, row: &K::Row, out: &mut Vec<u8>) {
        signer.write_at(
            self.query.sort_key(row),
            self.query.id(row),
            self.fingerprint,
            out,
        );
    }

    /// `pageInfo`. The flag for the paging direction comes from the page's extra row; the
    /// other costs a `LIMIT 1` probe past the cursor the page starts from, made here only
    /// when the selection holds that flag, so that its resolver has it at hand.
    pub async fn page_info(&self, ctx: &Context<'_>) -> PageInfo<'_> {
        let behind = self.behind(ctx).await;
        let (has_next_page, has_previous_page) = if self.page.backward {
            (behind, Ok(self.page.more))
        } else {
            (Ok(self.page.more), behind)
        };
        PageInfo {
            has_next_page,
            has_previous_page,
            start: self.page.rows.first().map(|row| self.at(row)),
            end: self.page.rows.last().map(|row| self.at(row)),
            fingerprint: self.fingerprint,
        }
    }

    fn at<'r>(&self, row: &'r K::Row) -> (i64, &'r str) {
        (self.query.sort_key(row), self.query.id(row))
    }

    /// Whether rows lie behind the page, when `pageInfo`'s selection asks (`false` when it
    /// does not: the flag is then never shown).
    async fn behind(&self, ctx: &Context<'_>) -> Result<bool> {
        if self.query.window().start().is_none() {
            // A page that starts at an end of the listing has nothing behind it.
            return Ok(false);
        }
        let flag = if self.page.backward {
            "hasNextPage"
        } else {
            "hasPreviousPage"
        };
        if !ctx.look_ahead().field(flag).exists() {
            return Ok(false);
        }
        let db = ctx.data::<Db>()?;
        Ok(keyset::exists_behind(db, &self.query)
            .await
            .map_err(ApiError::from)?)
    }
}

/// Where a page sits, for every connection.
pub struct PageInfo<'a> {
    has_next_page: Result<bool>,
    has_previous_page: Result<bool>,
    /// The sort key and id of the first and last rows, encoded only when asked for.
    start: Option<(i64, &'a str)>,
    end: Option<(i64, &'a str)>,
    fingerprint: [u8; 8],
}

impl PageInfo<'_> {
    fn cursor(&self, ctx: &Context<'_>, at: Option<(i64, &str)>) -> Result<Option<String>> {
        let codec = ctx.data::<CursorCodec>()?;
        Ok(at.map(|(key, id)| codec.encode_at(key, id, self.fingerprint)))
    }
}

#[Object]
impl PageInfo<'_> {
    async fn has_next_page(&self) -> Result<bool> {
        self.has_next_page.clone()
    }

    async fn has_previous_page(&self) -> Result<bool> {
        self.has_previous_page.clone()
    }

    async fn start_cursor(&self, ctx: &Context<'_>) -> Result<Option<String>> {
        self.cursor(ctx, self.start)
    }

    async fn end_cursor(&self, ctx: &Context<'_>) -> Result<Option<String>> {
        self.cursor(ctx, self.end)
    }
}
