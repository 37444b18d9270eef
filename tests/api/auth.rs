use serde_json::json;

use crate::helpers::{first_error_code, on_both_backends};

const VIEWER: &str = "query Viewer { viewer { id name } }";

on_both_backends! {
    async fn a_valid_key_resolves_to_its_account(app: TestApp) {
        let (account_id, key) = app.account("Acme").await;
        let data = app.query(&key, VIEWER, json!({})).await;
        assert_eq!(data["viewer"]["id"], account_id.as_str());
        assert_eq!(data["viewer"]["name"], "Acme");
    }

    async fn a_missing_key_is_unauthenticated_and_nothing_resolves(app: TestApp) {
        let (status, body) = app.post(None, VIEWER, json!({})).await;
        assert_eq!(status, 401);
        assert_eq!(first_error_code(&body), "UNAUTHENTICATED");
        assert!(body["data"].is_null());
    }

    async fn a_wrong_or_malformed_key_is_unauthenticated(app: TestApp) {
        let (_, key) = app.account("Acme").await;
        let mut wrong = key.clone();
        wrong.pop();
        wrong.push(if key.ends_with('A') { 'B' } else { 'A' });
        for candidate in [wrong.as_str(), "gpk_nope", "", "Bearer"] {
            let (status, body) = app.post(Some(candidate), VIEWER, json!({})).await;
            assert_eq!(status, 401, "{candidate:?}");
            assert_eq!(first_error_code(&body), "UNAUTHENTICATED");
        }
        let response = app
            .http
            .post(format!("{}/graphql", app.address))
            .header("authorization", format!("Basic {key}"))
            .json(&json!({"query": VIEWER}))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 401);
    }

    async fn a_revoked_key_is_unauthenticated_while_other_keys_still_work(app: TestApp) {
        let (account_id, key) = app.account("Acme").await;
        let (second, second_secret) = graphpay::persistence::accounts::create_key(&app.db, &account_id)
            .await
            .unwrap()
            .unwrap();
        assert!(graphpay::persistence::accounts::revoke_key(&app.db, &second.id).await.unwrap().is_some());
        let (status, body) = app.post(Some(&second_secret), VIEWER, json!({})).await;
        assert_eq!(status, 401);
        assert_eq!(first_error_code(&body), "UNAUTHENTICATED");
        app.query(&key, VIEWER, json!({})).await;
    }

    async fn keys_are_stored_only_as_hashes(app: TestApp) {
        let (account_id, key) = app.account("Acme").await;
        let keys = graphpay::persistence::accounts::list_keys(&app.db, &account_id).await.unwrap();
        assert_eq!(keys.len(), 1);
        let stored = app.db.query_text("SELECT key_hash FROM api_keys").await.unwrap();
        let key_hash = &stored[0][0];
        assert_ne!(key_hash, &key);
        assert!(!key_hash.contains(&key[4..]));
        assert!(key.starts_with(&keys[0].prefix));
        assert!(keys[0].prefix.len() < 16);
    }
}
