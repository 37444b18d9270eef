//! CORS for the operator's allow-list of web origins, with tower-http's layer.
//!
//! Browsers send the credential in the `Authorization` header (client tokens), never in
//! cookies, so credentials mode stays off. Preflights are answered by the layer itself and
//! cached by the browser for [`PREFLIGHT_MAX_AGE`]. With no origins configured there is no
//! layer, and no CORS header is ever sent.

use std::time::Duration;

use axum::http::header::{AUTHORIZATION, CONTENT_TYPE};
use axum::http::{HeaderName, HeaderValue, Method, Uri};
use tower_http::cors::{AllowOrigin, CorsLayer};

use super::REQUEST_ID;

/// How long a browser may reuse a preflight's answer (Chromium caps it at two hours).
pub const PREFLIGHT_MAX_AGE: Duration = Duration::from_secs(7_200);

/// The allow-list in the form the layer matches against: `scheme://host[:port]`, as browsers
/// send `Origin`.
#[derive(Clone, Debug, Default)]
pub struct AllowedOrigins(Vec<HeaderValue>);

impl AllowedOrigins {
    /// Checks each configured origin: `http` or `https`, a host, an optional port, and nothing
    /// else (no path, no wildcard).
    pub fn parse(origins: &[String]) -> Result<Self, String> {
        let mut allowed = Vec::with_capacity(origins.len());
        for origin in origins {
            let normalized = origin.trim_end_matches('/');
            let refuse = || {
                format!(
                    "CORS origin {origin:?} is not an origin: expected scheme://host[:port], \
                     e.g. https://shop.example"
                )
            };
            let uri: Uri = normalized.parse().map_err(|_| refuse())?;
            let scheme_ok = matches!(uri.scheme_str(), Some("http" | "https"));
            let bare = uri
                .path_and_query()
                .is_none_or(|p| p.as_str().is_empty() || p == "/");
            if !scheme_ok
                || uri.host().is_none_or(str::is_empty)
                || !bare
                || normalized.contains('*')
            {
                return Err(refuse());
            }
            allowed.push(
                HeaderValue::from_str(&normalized.to_ascii_lowercase()).map_err(|_| refuse())?,
            );
        }
        Ok(Self(allowed))
    }

    /// The layer, or `None` when no origin is allowed.
    pub fn layer(&self) -> Option<CorsLayer> {
        if self.0.is_empty() {
            return None;
        }
        Some(
            CorsLayer::new()
                .allow_origin(AllowOrigin::list(self.0.clone()))
                .allow_methods([Method::GET, Method::POST])
                .allow_headers([
                    AUTHORIZATION,
                    CONTENT_TYPE,
                    HeaderName::from_static("accept"),
                    super::consistency::HEADER,
                ])
                .expose_headers([REQUEST_ID, super::consistency::HEADER])
                .max_age(PREFLIGHT_MAX_AGE),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_bare_http_origins_are_accepted() {
        let ok = AllowedOrigins::parse(&[
            "https://shop.example".into(),
            "http://127.0.0.1:5173/".into(),
            "HTTPS://Shop.Example:8443".into(),
        ])
        .unwrap();
        assert_eq!(
            ok.0,
            [
                "https://shop.example",
                "http://127.0.0.1:5173",
                "https://shop.example:8443"
            ]
        );
        for bad in [
            "*",
            "shop.example",
            "ftp://shop.example",
            "https://shop.example/path",
            "https://*.example",
            "https://shop.example?x=1",
            "",
        ] {
            assert!(AllowedOrigins::parse(&[bad.into()]).is_err(), "{bad:?}");
        }
        assert!(AllowedOrigins::parse(&[]).unwrap().layer().is_none());
    }
}
