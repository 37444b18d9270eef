//! Read your writes over HTTP: the consistency token a mutation's answer carries (in
//! `extensions.consistency.token`, [`crate::graphql::consistency`], and the
//! `graphpay-consistency-token` header), and the choice of server for a read that sends it
//! back (see [`crate::replicas`]).

use async_graphql::Value;
use axum::http::{HeaderMap, HeaderName, HeaderValue};

use super::AppState;
use crate::domain::consistency::{Lsn, ReadAfter};
use crate::graphql::over_http::Prepared;
use crate::metrics::replicas::{record_fallback, record_read};
use crate::replicas::Route;

/// The header a mutation's answer carries its token in, and a read sends it back in.
pub const HEADER: HeaderName = HeaderName::from_static("graphpay-consistency-token");

/// What a request's header asks of the server that answers its reads.
pub fn read_after(headers: &HeaderMap) -> ReadAfter {
    ReadAfter::of_header(headers.get(&HEADER).map(HeaderValue::as_bytes))
}

/// Sends a prepared read to a replica when one is far enough along for `after`; a mutation,
/// or any read when no replica is, stays on the primary. Reads (not refused requests) are
/// counted, only when replicas are configured.
pub fn route(state: &AppState, prepared: &mut Prepared, after: ReadAfter) {
    let Some(reads) = &state.reads else {
        return;
    };
    if prepared.runs_mutation() || !prepared.is_admitted() {
        // A mutation, or a request refused already: nothing to read.
        return;
    }
    match reads.route(after) {
        Route::Replica(replica) => {
            if !prepared.read_from(replica.target(), &state.db) {
                record_read("primary");
            }
        }
        Route::Primary(reason) => {
            record_fallback(reason);
            record_read("primary");
        }
    }
}

/// The header for an answer holding `responses`: the furthest of their tokens.
pub fn header_for<'a>(
    responses: impl IntoIterator<Item = &'a async_graphql::Response>,
) -> Option<HeaderValue> {
    responses
        .into_iter()
        .filter_map(token_of)
        .max()
        .and_then(|lsn| HeaderValue::from_str(&lsn.token()).ok())
}

/// What the reads after `response` (in the same batch) ask for: as far as its token, if it
/// carries one (a mutation's), and at least as far as before.
pub fn after_answer(after: ReadAfter, response: &async_graphql::Response) -> ReadAfter {
    match (after, token_of(response)) {
        (ReadAfter::Unknown, _) | (_, None) => after,
        (ReadAfter::Position(before), Some(lsn)) => ReadAfter::Position(before.max(lsn)),
        (ReadAfter::Anything, Some(lsn)) => ReadAfter::Position(lsn),
    }
}

/// The position of the token an answer carries.
fn token_of(response: &async_graphql::Response) -> Option<Lsn> {
    match response.extensions.get("consistency") {
        Some(Value::Object(fields)) => match fields.get("token") {
            Some(Value::String(token)) => Lsn::from_token(token),
            _ => None,
        },
        _ => None,
    }
}
