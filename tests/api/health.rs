use crate::on_both_backends;

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
