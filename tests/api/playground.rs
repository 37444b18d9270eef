use graphpay::config::Config;

use crate::helpers::{Backend, TestApp};

/// `GET /graphql` as a browser sends it: the playground is served to clients that ask for HTML.
async fn page(app: &TestApp) -> reqwest::Response {
    app.http
        .get(format!("{}/graphql", app.address))
        .header(
            "accept",
            "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
        )
        .send()
        .await
        .expect("request sent")
}

/// Every `src=` and `href=` in the page, and every `url(` in its stylesheet, is same-origin.
fn external_references(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for attr in ["src=\"", "href=\"", "url(", "@import"] {
        for (i, _) in text.match_indices(attr) {
            let rest = text[i + attr.len()..].trim_start_matches(['"', '\'']);
            let target: String = rest
                .chars()
                .take_while(|c| !matches!(c, '"' | '\'' | ')' | ' '))
                .collect();
            if target.contains("//") && !target.starts_with("data:") {
                found.push(target);
            }
        }
    }
    found
}

#[tokio::test]
async fn the_playground_is_served_from_this_origin_only() {
    let app = TestApp::spawn(Backend::Sqlite).await;
    let page = page(&app).await;
    assert_eq!(page.status(), 200);
    let csp = page.headers()["content-security-policy"]
        .to_str()
        .unwrap()
        .to_string();
    assert!(csp.contains("script-src 'self'"), "{csp}");
    let html = page.text().await.unwrap();
    assert!(html.contains("graphiql"), "{html}");
    assert_eq!(external_references(&html), Vec::<String>::new());

    for (asset, kind) in [
        ("react.js", "javascript"),
        ("react-dom.js", "javascript"),
        ("graphiql.js", "javascript"),
        ("graphiql.css", "css"),
        ("start.js", "javascript"),
    ] {
        let response = app.get(&format!("/graphql/assets/{asset}")).await;
        assert_eq!(response.status(), 200, "{asset}");
        assert!(
            response.headers()["content-type"]
                .to_str()
                .unwrap()
                .contains(kind)
        );
        let body = response.text().await.unwrap();
        assert!(body.len() > 100, "{asset} is empty");
        if asset.ends_with(".css") {
            assert_eq!(external_references(&body), Vec::<String>::new(), "{asset}");
        }
    }
    assert_eq!(app.get("/graphql/assets/other.js").await.status(), 404);
}

#[tokio::test]
async fn a_fresh_gateway_creates_a_demo_account_and_prefills_its_key() {
    let app = TestApp::spawn_with(Backend::Sqlite, |c: &mut Config| {
        c.create_demo_account = true
    })
    .await;
    let (account_id, key) = app
        .demo
        .clone()
        .expect("a demo account on an empty database");
    let html = page(&app).await.text().await.unwrap();
    assert!(html.contains(&format!("Bearer {key}")));
    let data = app
        .query(&key, "{ viewer { id } }", serde_json::json!({}))
        .await;
    assert_eq!(data["viewer"]["id"], account_id.as_str());
}

#[tokio::test]
async fn no_demo_account_when_accounts_exist_and_no_key_in_the_page() {
    let app = TestApp::spawn(Backend::Sqlite).await;
    assert!(app.demo.is_none());
    let html = page(&app).await.text().await.unwrap();
    assert!(!html.contains("gpk_"));
}
