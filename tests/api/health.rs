use crate::helpers::{
    Backend, CREATE, TestApp, first_error_code, input, on_both_backends, on_both_backends_fn,
    post_on_new_connection,
};

on_both_backends! {
    async fn health_and_readiness_answer(app: TestApp) {
        let health = app.get("/healthz").await;
        assert_eq!(health.status(), 200);
        assert!(health.headers().contains_key("x-request-id"));
        let ready = app.get("/readyz").await;
        assert_eq!(ready.status(), 200);
        let body: serde_json::Value = ready.json().await.unwrap();
        assert_eq!(body["database"], "ok");
    }


}

async fn shutting_down_finishes_the_requests_in_flight(backend: Backend) {
    let mut app = TestApp::spawn_with(backend, |c: &mut graphpay::config::Config| {
        c.processor_limits.attempt_timeout = std::time::Duration::from_secs(1);
        c.processor_limits.max_retries = 0;
    })
    .await;
    let (_, key) = app.account("Alice").await;
    // A request that takes a while: a processor that does not answer, given 1 s.
    let slow = tokio::spawn(post_on_new_connection(
        app.address.clone(),
        key.clone(),
        CREATE,
        serde_json::json!({"input": input(100, "tok_timeout"), "key": "slow"}),
    ));
    // Stop only once the request is inside the gateway (its key is claimed).
    let record = "{ idempotencyRecord(key: \"slow\") { state } }";
    for _ in 0..200 {
        let (_, body) = app.post(Some(&key), record, serde_json::json!({})).await;
        if !body["data"]["idempotencyRecord"].is_null() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    app.stop().await;
    let body = slow.await.expect("the request in flight got its answer");
    assert_eq!(first_error_code(&body), "PROCESSOR_UNAVAILABLE", "{body}");
    assert!(
        reqwest::Client::new()
            .get(format!("{}/healthz", app.address))
            .send()
            .await
            .is_err(),
        "no new connections after shutdown"
    );
}

on_both_backends_fn!(shutting_down_finishes_the_requests_in_flight);
