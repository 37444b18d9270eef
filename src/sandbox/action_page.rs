//! The sandbox's customer-action page (3-D Secure): where a customer whose payment asks for
//! action approves or declines it, served on the gateway's own listener (under `/sandbox`)
//! for the in-process sandbox and by the sandbox service when it runs apart. It works without
//! internet access and without JavaScript: two forms, styled inline. The answer is the
//! sandbox's (`Sandbox::answer_action`), which tells the gateway by webhook; the browser is then
//! sent back to the payment's `returnUrl`.

use std::sync::Arc;

use axum::Router;
use axum::extract::{Path, State};
use axum::http::{StatusCode, header};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::{get, post};

use super::{ActionAnswer, Sandbox};
use crate::domain::currency::Currency;
use crate::domain::return_url::ReturnUrl;

/// What the page may load: nothing but its own inline style.
const CONTENT_SECURITY_POLICY: &str =
    "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; frame-ancestors 'none'";

/// The page's routes, for any router's state.
pub fn routes<S: Clone + Send + Sync + 'static>(sandbox: Arc<Sandbox>) -> Router<S> {
    Router::new()
        .route("/actions/{key}", get(page))
        .route("/actions/{key}/approve", post(approve))
        .route("/actions/{key}/decline", post(decline))
        .with_state(sandbox)
}

/// An operation key as the gateway makes them; anything else is no page of ours.
fn valid_key(key: &str) -> bool {
    (1..=255).contains(&key.len())
        && key
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
}

fn document(title: &str, body: &str) -> Response {
    let html = format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>{title}</title><style>\
         body{{font-family:system-ui,sans-serif;background:#f4f5f7;margin:0;padding:2rem}}\
         main{{max-width:24rem;margin:3rem auto;background:#fff;border-radius:8px;padding:2rem;\
         box-shadow:0 1px 4px rgba(0,0,0,.15)}}h1{{font-size:1.3rem}}\
         .amount{{font-size:2rem;font-weight:600}}form{{display:inline}}\
         button{{font-size:1rem;padding:.6rem 1.4rem;margin:.5rem .5rem 0 0;border-radius:6px;\
         border:1px solid #888;cursor:pointer}}#approve{{background:#1a7f37;color:#fff}}\
         </style></head><body><main>{body}</main></body></html>"
    );
    (
        [(header::CONTENT_SECURITY_POLICY, CONTENT_SECURITY_POLICY)],
        Html(html),
    )
        .into_response()
}

fn not_found() -> Response {
    (StatusCode::NOT_FOUND, "no customer action here").into_response()
}

fn unavailable() -> Response {
    (
        StatusCode::SERVICE_UNAVAILABLE,
        "the sandbox cannot answer now; try again",
    )
        .into_response()
}

/// `minor` units of `currency` as a customer reads them: `12.34 USD`, `1200 JPY`.
fn money(minor: i64, currency: &str) -> String {
    let exponent = Currency::parse(currency).map_or(0, Currency::exponent);
    if exponent == 0 {
        return format!("{minor} {currency}");
    }
    let unit = 10_i64.pow(u32::from(exponent));
    let width = usize::from(exponent);
    format!(
        "{}.{:0width$} {currency}",
        minor / unit,
        (minor % unit).abs()
    )
}

/// `text` for a double-quoted HTML attribute.
fn attribute(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('"', "&quot;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// The return URL, if it is one the gateway would have accepted.
fn back(return_url: Option<&str>) -> Option<ReturnUrl> {
    return_url.and_then(|url| ReturnUrl::parse(url).ok())
}

async fn page(State(sandbox): State<Arc<Sandbox>>, Path(key): Path<String>) -> Response {
    if !valid_key(&key) {
        return not_found();
    }
    let action = match sandbox.pending_action(&key).await {
        Ok(Some(action)) => action,
        Ok(None) => return not_found(),
        Err(err) => {
            tracing::warn!(error = %err, "sandbox: cannot read an action");
            return unavailable();
        }
    };
    let amount = money(action.amount, &action.currency);
    if !action.open {
        let link = back(action.return_url.as_deref())
            .map(|url| {
                format!(
                    "<p><a href=\"{}\">Back to the shop</a></p>",
                    attribute(url.as_str())
                )
            })
            .unwrap_or_default();
        return document(
            "Nothing to confirm",
            &format!(
                "<h1>Nothing to confirm</h1><p>This payment of {amount} needs no action now.</p>{link}"
            ),
        );
    }
    document(
        "Confirm your payment",
        &format!(
            "<h1>Confirm your payment</h1><p class=\"amount\" id=\"amount\">{amount}</p>\
             <p>graphpay sandbox: approve to authenticate this payment, or decline it.</p>\
             <form method=\"post\" action=\"{key}/approve\"><button id=\"approve\">Approve</button></form>\
             <form method=\"post\" action=\"{key}/decline\"><button id=\"decline\">Decline</button></form>"
        ),
    )
}

async fn approve(state: State<Arc<Sandbox>>, key: Path<String>) -> Response {
    answer(state, key, true).await
}

async fn decline(state: State<Arc<Sandbox>>, key: Path<String>) -> Response {
    answer(state, key, false).await
}

/// Records the customer's answer (once) and sends the browser back to the shop.
async fn answer(
    State(sandbox): State<Arc<Sandbox>>,
    Path(key): Path<String>,
    approve: bool,
) -> Response {
    if !valid_key(&key) {
        return not_found();
    }
    let return_url = match sandbox.answer_action(&key, approve).await {
        Ok(Some(ActionAnswer::Settled { return_url } | ActionAnswer::Unchanged { return_url })) => {
            return_url
        }
        Ok(None) => return not_found(),
        Err(err) => {
            tracing::warn!(error = %err, "sandbox: cannot record an answer");
            return unavailable();
        }
    };
    match back(return_url.as_deref()) {
        Some(url) => (
            StatusCode::SEE_OTHER,
            [(header::LOCATION, url.as_str().to_string())],
        )
            .into_response(),
        None => document(
            "Done",
            "<h1>Done</h1><p>Your answer was recorded. You may close this window.</p>",
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amounts_are_shown_in_the_currency_s_units() {
        assert_eq!(money(1234, "USD"), "12.34 USD");
        assert_eq!(money(5, "USD"), "0.05 USD");
        assert_eq!(money(1200, "JPY"), "1200 JPY");
        assert_eq!(money(1, "KWD"), "0.001 KWD");
    }

    #[test]
    fn only_keys_the_gateway_makes_have_pages() {
        assert!(valid_key("pay_01J0000000000000000000000"));
        for bad in ["", "a/b", "<script>", "a b", &"k".repeat(256)] {
            assert!(!valid_key(bad), "{bad}");
        }
    }
}
