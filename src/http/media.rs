//! Media types at `/graphql`: what a client asks for (`Accept`), and what a `POST` body is
//! (`Content-Type`), as GraphQL over HTTP reads them.

use axum::http::HeaderMap;
use axum::http::header::{ACCEPT, CONTENT_TYPE};

pub const GRAPHQL_RESPONSE: &str = "application/graphql-response+json";
pub const JSON: &str = "application/json";

/// What to answer with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Answer {
    /// `application/graphql-response+json`: request errors get a 4xx status.
    GraphqlResponse,
    /// `application/json`: every GraphQL response gets 200.
    Json,
    /// `text/html`: a browser, which gets the playground on `GET`.
    Html,
}

/// The client's preference among the GraphQL media types and HTML: the highest `q`, and of
/// equal ones the first listed. Wildcards count as `application/json`; no `Accept`, or
/// nothing we know, means `application/json` too.
pub fn preferred(headers: &HeaderMap) -> Answer {
    let Some(accept) = headers.get(ACCEPT).and_then(|v| v.to_str().ok()) else {
        return Answer::Json;
    };
    let mut best: Option<(f32, Answer)> = None;
    for range in accept.split(',') {
        let mut parts = range.split(';');
        let media = parts.next().unwrap_or_default().trim().to_ascii_lowercase();
        let answer = match media.as_str() {
            GRAPHQL_RESPONSE => Answer::GraphqlResponse,
            JSON | "application/*" | "*/*" => Answer::Json,
            "text/html" => Answer::Html,
            _ => continue,
        };
        let q = parts
            .filter_map(|p| p.trim().strip_prefix("q="))
            .find_map(|q| q.trim().parse::<f32>().ok())
            .unwrap_or(1.0);
        if q <= 0.0 {
            continue;
        }
        if best.is_none_or(|(best_q, _)| q > best_q) {
            best = Some((q, answer));
        }
    }
    best.map_or(Answer::Json, |(_, answer)| answer)
}

/// What a `POST` body says it is.
#[derive(Debug, PartialEq, Eq)]
pub enum BodyType {
    /// `application/json`, in UTF-8 (the default).
    Json,
    Missing,
    Unsupported,
}

pub fn body_type(headers: &HeaderMap) -> BodyType {
    let Some(value) = headers.get(CONTENT_TYPE) else {
        return BodyType::Missing;
    };
    let Ok(value) = value.to_str() else {
        return BodyType::Unsupported;
    };
    let mut parts = value.split(';');
    let media = parts.next().unwrap_or_default().trim();
    if !media.eq_ignore_ascii_case(JSON) {
        return BodyType::Unsupported;
    }
    let utf8 = parts.all(|param| match param.split_once('=') {
        Some((name, charset)) if name.trim().eq_ignore_ascii_case("charset") => {
            let charset = charset.trim().trim_matches('"');
            charset.eq_ignore_ascii_case("utf-8") || charset.eq_ignore_ascii_case("utf8")
        }
        _ => true,
    });
    if utf8 {
        BodyType::Json
    } else {
        BodyType::Unsupported
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(name: axum::http::HeaderName, value: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(name, value.parse().unwrap());
        headers
    }

    #[test]
    fn reads_what_the_client_prefers() {
        let accept = |v| preferred(&with(ACCEPT, v));
        assert_eq!(preferred(&HeaderMap::new()), Answer::Json);
        assert_eq!(accept("*/*"), Answer::Json);
        assert_eq!(accept("application/json"), Answer::Json);
        assert_eq!(
            accept("application/graphql-response+json"),
            Answer::GraphqlResponse
        );
        assert_eq!(
            accept("application/graphql-response+json, application/json"),
            Answer::GraphqlResponse
        );
        assert_eq!(
            accept("application/json;q=1, application/graphql-response+json;q=0.9"),
            Answer::Json
        );
        let browser = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,\
                       image/webp,*/*;q=0.8";
        assert_eq!(accept(browser), Answer::Html);
        assert_eq!(accept("application/json, text/html"), Answer::Json);
        assert_eq!(accept("text/html;q=0.5, application/json"), Answer::Json);
        assert_eq!(accept("text/html;q=0, */*"), Answer::Json);
        assert_eq!(accept("image/png"), Answer::Json);
    }

    #[test]
    fn reads_json_bodies_in_utf8_only() {
        let ty = |v| body_type(&with(CONTENT_TYPE, v));
        assert_eq!(body_type(&HeaderMap::new()), BodyType::Missing);
        assert_eq!(ty("application/json"), BodyType::Json);
        assert_eq!(ty("Application/JSON; charset=UTF-8"), BodyType::Json);
        assert_eq!(
            ty("application/json; charset=latin1"),
            BodyType::Unsupported
        );
        assert_eq!(ty("text/plain;charset=UTF-8"), BodyType::Unsupported);
        assert_eq!(
            ty("application/x-www-form-urlencoded"),
            BodyType::Unsupported
        );
    }
}
