//! A transient database failure after a money-moving mutation claimed its key releases the
//! key: the same request sent again right after succeeds, with one payment and one charge.
//! The failure is a real one, raised by the database: a trigger that refuses every update of
//! a payment while it is installed.

use serde_json::json;

use crate::helpers::{
    Backend, CONFIRM, CREATE, REFUND, TestApp, charges, create, created_id, first_error_code,
    input, on_both_backends, refund_payload, row_count,
};

/// Makes every `UPDATE` of a payment fail until [`heal`] is called.
async fn break_payment_updates(app: &TestApp) {
    let sql = match app.backend() {
        Backend::Sqlite => {
            "CREATE TRIGGER refuse_payment_updates BEFORE UPDATE ON payments \
             BEGIN SELECT RAISE(ABORT, 'payment updates refused'); END"
        }
        Backend::Postgres => {
            "CREATE FUNCTION refuse_payment_updates() RETURNS trigger LANGUAGE plpgsql AS \
             $$ BEGIN RAISE EXCEPTION 'payment updates refused'; END $$; \
             CREATE TRIGGER refuse_payment_updates BEFORE UPDATE ON payments \
             FOR EACH ROW EXECUTE FUNCTION refuse_payment_updates()"
        }
    };
    app.db.execute_unprepared(sql).await.unwrap();
}

async fn heal(app: &TestApp) {
    let sql = match app.backend() {
        Backend::Sqlite => "DROP TRIGGER refuse_payment_updates",
        Backend::Postgres => {
            "DROP TRIGGER refuse_payment_updates ON payments; \
             DROP FUNCTION refuse_payment_updates()"
        }
    };
    app.db.execute_unprepared(sql).await.unwrap();
}

on_both_backends! {
    async fn a_create_whose_settlement_failed_in_the_database_succeeds_when_sent_again(app: TestApp) {
        let (_, key) = app.account("Alice").await;
        let variables = json!({"input": input(4_200, "tok_visa"), "key": "order-1"});
        break_payment_updates(&app).await;
        // The key is claimed and the payment stored and charged; the settlement fails.
        let (_, body) = app.post(Some(&key), CREATE, variables.clone()).await;
        assert_eq!(first_error_code(&body), "INTERNAL", "{body}");
        heal(&app).await;
        let (_, body) = app.post(Some(&key), CREATE, variables).await;
        let paid = &body["data"]["createPayment"];
        assert_eq!(paid["payment"]["status"], "SUCCEEDED", "{body}");
        assert_eq!(paid["replayed"], false, "{body}");
        assert_eq!(row_count(&app, "payments").await, 1, "one payment for the key");
        assert_eq!(charges(&app).await, 1, "one charge for the key");
    }

    async fn a_confirm_that_failed_in_the_database_succeeds_when_sent_again(app: TestApp) {
        let (_, key) = app.account("Alice").await;
        let pending = json!({"amount": 900, "currency": "USD", "source": "tok_visa", "confirm": false});
        let id = created_id(&app, &key, "create", pending).await;
        let variables = json!({"id": id, "key": "confirm-1"});
        break_payment_updates(&app).await;
        let (_, body) = app.post(Some(&key), CONFIRM, variables.clone()).await;
        assert_eq!(first_error_code(&body), "INTERNAL", "{body}");
        heal(&app).await;
        let (_, body) = app.post(Some(&key), CONFIRM, variables).await;
        let confirmed = &body["data"]["confirmPayment"];
        assert_eq!(confirmed["payment"]["status"], "SUCCEEDED", "{body}");
        assert_eq!(confirmed["replayed"], false, "{body}");
        assert_eq!(charges(&app).await, 1);
    }

    async fn a_refund_that_failed_in_the_database_succeeds_when_sent_again(app: TestApp) {
        let (_, key) = app.account("Alice").await;
        let paid = create(&app, &key, "pay", input(1_000, "tok_visa")).await;
        let id = paid["payment"]["id"].as_str().unwrap().to_string();
        let variables = json!({"input": {"paymentId": id, "amount": 400}, "key": "refund-1"});
        break_payment_updates(&app).await;
        let (_, body) = app.post(Some(&key), REFUND, variables.clone()).await;
        assert_eq!(first_error_code(&body), "INTERNAL", "{body}");
        heal(&app).await;
        let (_, body) = app.post(Some(&key), REFUND, variables).await;
        let refunded = refund_payload(&body);
        assert_eq!(refunded["refund"]["status"], "SUCCEEDED", "{body}");
        assert_eq!(refunded["payment"]["amountRefunded"], 400, "{body}");
        assert_eq!(row_count(&app, "refunds").await, 1, "one refund for the key");
    }
}
