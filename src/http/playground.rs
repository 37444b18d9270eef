//! The GraphiQL playground at `GET /graphql` (for clients that ask for HTML), served
//! entirely by the gateway.
//!
//! GraphiQL and React come from the npm registry at build time (see `playground/` and
//! `build.rs`) and are embedded in the binary; the page loads nothing from any other origin.

use axum::extract::Path;
use axum::http::StatusCode;
use axum::http::header::{CACHE_CONTROL, CONTENT_SECURITY_POLICY, CONTENT_TYPE};
use axum::response::{Html, IntoResponse, Response};

use super::AppState;

macro_rules! npm_asset {
    ($path:literal) => {
        include_bytes!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/playground/node_modules/",
            $path
        ))
    };
}

static REACT: &[u8] = npm_asset!("react/umd/react.production.min.js");
static REACT_DOM: &[u8] = npm_asset!("react-dom/umd/react-dom.production.min.js");
static GRAPHIQL_JS: &[u8] = npm_asset!("graphiql/dist/index.umd.js");
static GRAPHIQL_CSS: &[u8] = npm_asset!("graphiql/dist/style.css");

/// Our own start-up script: reads the page's JSON config and mounts GraphiQL.
/// Every request carries the pre-filled headers unless the headers editor overrides them
/// (so even the schema introspection at load time is authenticated), and subscriptions go
/// over `/graphql/ws` with the same key in `connection_init`.
static START_JS: &str = r#"(function () {
  var config = JSON.parse(document.getElementById("graphpay-config").textContent);
  var url = new URL("/graphql", window.location.href).toString();
  var subscriptionUrl = url.replace(/^http/, "ws") + "/ws";
  var preset = config.presetHeaders ? JSON.parse(config.headers) : {};
  var fetcher = function (params, opts) {
    var headers = Object.assign({}, preset, (opts && opts.headers) || {});
    var authorization = headers.Authorization || headers.authorization || "";
    var inner = GraphiQL.createFetcher({
      url: url,
      subscriptionUrl: subscriptionUrl,
      headers: headers,
      wsConnectionParams: { Authorization: authorization }
    });
    return inner(params, opts);
  };
  var props = { fetcher: fetcher, defaultQuery: config.query, defaultHeaders: config.headers };
  if (config.presetHeaders) { props.headers = config.headers; }
  ReactDOM.createRoot(document.getElementById("graphiql")).render(React.createElement(GraphiQL, props));
})();
"#;

const FIRST_QUERY: &str = "# Welcome to graphpay. Press the run button to ask who you are.\n\
query Viewer {\n  viewer {\n    id\n    name\n    createdAt\n  }\n}\n";

/// The rendered page, made once at start-up.
pub struct PlaygroundPage {
    html: String,
}

impl PlaygroundPage {
    /// `demo_key`: the API key of a demo account created by this start, pre-filled in the
    /// headers editor so a newcomer can run a query at once.
    pub fn new(demo_key: Option<&str>) -> Self {
        let headers = match demo_key {
            Some(key) => serde_json::json!({ "Authorization": format!("Bearer {key}") }),
            None => serde_json::json!({ "Authorization": "Bearer <your API key>" }),
        };
        let config = serde_json::json!({
            "query": FIRST_QUERY,
            "headers": serde_json::to_string_pretty(&headers).unwrap_or_default(),
            "presetHeaders": demo_key.is_some(),
        });
        // `<` is escaped so nothing in the JSON can close the script element.
        let config = config.to_string().replace('<', "\\u003c");
        let html = format!(
            r#"<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>graphpay playground</title>
  <link rel="stylesheet" href="/graphql/assets/graphiql.css">
  <style>body {{ margin: 0; }} #graphiql {{ height: 100vh; }}</style>
</head>
<body>
  <div id="graphiql">Loading the playground…</div>
  <script type="application/json" id="graphpay-config">{config}</script>
  <script src="/graphql/assets/react.js"></script>
  <script src="/graphql/assets/react-dom.js"></script>
  <script src="/graphql/assets/graphiql.js"></script>
  <script src="/graphql/assets/start.js"></script>
</body>
</html>
"#
        );
        Self { html }
    }
}

/// Only this origin may provide scripts, styles and connections.
const CSP: &str = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; \
                   img-src 'self' data:; font-src 'self' data:; connect-src 'self'; \
                   worker-src 'self' blob:";

/// The page, for a `GET /graphql` that asks for HTML.
pub fn page(state: &AppState) -> Response {
    (
        [(CONTENT_SECURITY_POLICY, CSP), (CACHE_CONTROL, "no-store")],
        Html(state.playground.html.clone()),
    )
        .into_response()
}

pub async fn asset(Path(name): Path<String>) -> Response {
    let (body, content_type): (&'static [u8], &str) = match name.as_str() {
        "react.js" => (REACT, "text/javascript; charset=utf-8"),
        "react-dom.js" => (REACT_DOM, "text/javascript; charset=utf-8"),
        "graphiql.js" => (GRAPHIQL_JS, "text/javascript; charset=utf-8"),
        "graphiql.css" => (GRAPHIQL_CSS, "text/css; charset=utf-8"),
        "start.js" => (START_JS.as_bytes(), "text/javascript; charset=utf-8"),
        _ => return StatusCode::NOT_FOUND.into_response(),
    };
    (
        [
            (CONTENT_TYPE, content_type),
            (CACHE_CONTROL, "public, max-age=3600"),
        ],
        body,
    )
        .into_response()
}
