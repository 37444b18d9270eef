//! The change feed behind `paymentUpdated`: changes reach subscribers once and in order when
//! the feed's connection is lost, when the database keeps it out for a while, when a change
//! commits late, and across gateway processes sharing one PostgreSQL.

use std::time::Duration;

use graphpay::domain::currency::Currency;
use graphpay::domain::money::MinorUnits;
use graphpay::domain::status::PaymentStatus;
use graphpay::domain::time::Timestamp;
use graphpay::persistence::accounts;
use graphpay::persistence::payments::{self, NewPayment};
use graphpay::service::feed::READER_NAME;
use serde_json::{Value, json};

use crate::helpers::{
    Backend, GatewayProcess, OwnCluster, OwnDatabase, Socket, TestApp, connect, created_id,
    next_update, postgres_url, subscribe_synced,
};

/// A payment that stays PENDING: one change each.
fn pending(amount: i64) -> Value {
    json!({"amount": amount, "currency": "USD", "source": "tok_visa", "confirm": false})
}

/// `postgres://user@host:port` of the test server.
fn server_url() -> String {
    let url = postgres_url();
    url.rsplit_once('/')
        .expect("a URL with a database")
        .0
        .to_string()
}

async fn readiness(app: &TestApp) -> u16 {
    app.get("/readyz").await.status().as_u16()
}

/// Waits (up to 20 s) until `/readyz` answers `status`.
async fn until_readiness(app: &TestApp, status: u16) {
    for _ in 0..400 {
        if readiness(app).await == status {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("/readyz never answered {status}");
}

/// The ids of the next `n` updates, in the order they arrived.
async fn next_ids(socket: &mut Socket, n: usize) -> Vec<String> {
    let mut ids = Vec::new();
    for _ in 0..n {
        let update = tokio::time::timeout(Duration::from_secs(30), next_update(socket))
            .await
            .expect("an update within 30 s");
        ids.push(update["id"].as_str().expect("an id").to_string());
    }
    ids
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[cfg_attr(
    not(pg_tests),
    ignore = "TEST_DATABASE_URL is not set: PostgreSQL test NOT run"
)]
async fn changes_made_while_the_feed_is_kept_out_of_the_database_arrive_once_in_order_postgres() {
    let server = server_url();
    let database = OwnDatabase::create(&server).await;
    let url = database.url(&server);
    let app = TestApp::spawn_on(url).await;
    let key = accounts::create(&app.server_db, "Alice")
        .await
        .unwrap()
        .api_key;
    let mut socket = connect(&app, &key).await.unwrap();
    subscribe_synced(&app, &key, &mut socket, None).await;
    assert_eq!(readiness(&app).await, 200);

    // The feed's connection is ended and the database lets no new connection in; the
    // gateway's other connections, opened before, stay.
    database.refuse_new_connections().await;
    database.terminate(READER_NAME).await;
    until_readiness(&app, 503).await;
    let mut made = Vec::new();
    for n in 0..5 {
        made.push(created_id(&app, &key, &format!("away-{n}"), pending(100 + n)).await);
    }
    assert_eq!(readiness(&app).await, 503, "the feed still cannot read");

    database.allow_connections().await;
    assert_eq!(
        next_ids(&mut socket, 5).await,
        made,
        "every change, once, in order"
    );
    until_readiness(&app, 200).await;
    // Nothing was handed out twice: the next update is the next change.
    let after = created_id(&app, &key, "after", pending(200)).await;
    assert_eq!(next_ids(&mut socket, 1).await, vec![after]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[cfg_attr(
    not(pg_tests),
    ignore = "TEST_DATABASE_URL is not set: PostgreSQL test NOT run"
)]
async fn a_change_that_commits_late_is_not_passed_over_postgres() {
    let app = TestApp::spawn(Backend::Postgres).await;
    let (account, key) = app.account("Alice").await;
    let mut socket = connect(&app, &key).await.unwrap();
    subscribe_synced(&app, &key, &mut socket, None).await;

    // A change whose transaction stays open while a later one commits. It is a payment of
    // another status than the later one's, so that the two never touch the same row of the
    // account's status counts (the later one would wait for the held one to commit).
    let held = payments::insert_held(
        &app.db,
        NewPayment {
            account_id: account.clone(),
            amount: MinorUnits::parse(300).unwrap(),
            currency: Currency::parse("USD").unwrap(),
            source: "tok_visa".into(),
            description: None,
            reference: None,
            metadata: Default::default(),
            status: PaymentStatus::Failed,
            capture_method: Default::default(),
            return_url: None,
            created_at: Timestamp::now(),
        },
    )
    .await
    .unwrap();
    let late = held.payment.id.clone();
    let later = tokio::time::timeout(
        Duration::from_secs(10),
        created_id(&app, &key, "later", pending(400)),
    )
    .await
    .expect("the later change does not wait for the held one");
    // The later change waits for the open one: handing it out now would let the reader's
    // position pass the open one's.
    let early = tokio::time::timeout(Duration::from_millis(500), next_update(&mut socket)).await;
    assert!(
        early.is_err(),
        "nothing before the open change commits: {early:?}"
    );

    held.commit().await.unwrap();
    assert_eq!(next_ids(&mut socket, 2).await, vec![late, later]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[cfg_attr(
    not(pg_tests),
    ignore = "TEST_DATABASE_URL is not set: PostgreSQL test NOT run"
)]
async fn a_change_made_through_one_gateway_process_reaches_a_subscriber_of_another_postgres() {
    let server = server_url();
    let database = OwnDatabase::create(&server).await;
    let url = database.url(&server);
    let env = [
        ("DATABASE_URL", url.as_str()),
        ("SANDBOX_WEBHOOK_DELAY_MS", "0"),
    ];
    let first = GatewayProcess::start(&env);
    let second = GatewayProcess::start_on_shared_database(&env);

    let mut socket = crate::helpers::connect_to(&second.address, &first.key)
        .await
        .unwrap();
    crate::helpers::subscribe_as(&mut socket, "1", None).await;
    // Changes made through the first process until the second's subscriber hears one (the
    // subscription is taken in asynchronously); then every later one arrives in order.
    let mut heard = None;
    for attempt in 0..50 {
        let (_, body) = first
            .post(
                crate::helpers::CREATE,
                json!({"key": format!("sync-{attempt}"), "input": pending(1)}),
            )
            .await;
        assert!(body["errors"].is_null(), "{body}");
        if let Ok(Some(message)) = tokio::time::timeout(
            Duration::from_millis(300),
            crate::helpers::next_message(&mut socket),
        )
        .await
        {
            heard = Some(message);
            break;
        }
    }
    assert!(
        heard.is_some(),
        "the second process's subscriber never heard the first's change"
    );
    while let Ok(Some(_)) = tokio::time::timeout(
        Duration::from_millis(300),
        crate::helpers::next_message(&mut socket),
    )
    .await
    {}
    let mut made = Vec::new();
    for n in 0..3 {
        let (_, body) = first
            .post(
                crate::helpers::CREATE,
                json!({"key": format!("made-{n}"), "input": pending(500 + n)}),
            )
            .await;
        made.push(
            body["data"]["createPayment"]["payment"]["id"]
                .as_str()
                .unwrap()
                .to_string(),
        );
    }
    assert_eq!(next_ids(&mut socket, 3).await, made);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[cfg_attr(
    not(pg_tests),
    ignore = "TEST_DATABASE_URL is not set: PostgreSQL test NOT run"
)]
async fn subscribers_hear_every_change_across_a_restart_of_postgresql_postgres() {
    let cluster = OwnCluster::start().await;
    let url = cluster.url();
    let app = TestApp::spawn_on(url).await;
    let key = accounts::create(&app.server_db, "Alice")
        .await
        .unwrap()
        .api_key;
    let mut socket = connect(&app, &key).await.unwrap();
    subscribe_synced(&app, &key, &mut socket, None).await;

    // Changes just before a restart (read before it or after it), and changes after it.
    let mut made = Vec::new();
    for n in 0..2 {
        made.push(created_id(&app, &key, &format!("before-{n}"), pending(100 + n)).await);
    }
    cluster.stop().await;
    until_readiness(&app, 503).await;
    cluster.start_again().await;
    for n in 0..2 {
        let idem = format!("after-{n}");
        made.push(create_once_reachable(&app, &key, &idem, pending(200 + n)).await);
    }
    assert_eq!(
        next_ids(&mut socket, 4).await,
        made,
        "every change, once, in order"
    );
    until_readiness(&app, 200).await;

    // A fast restart while idle: the feed comes back by itself.
    cluster.restart().await;
    let last = create_once_reachable(&app, &key, "last", pending(300)).await;
    assert_eq!(next_ids(&mut socket, 1).await, vec![last]);
}

/// Creates a payment, retrying with the same idempotency key while the gateway's pool is
/// still reconnecting to a database that has just come back.
pub(crate) async fn create_once_reachable(
    app: &TestApp,
    key: &str,
    idem: &str,
    input: Value,
) -> String {
    for _ in 0..100 {
        let (_, body) = app
            .post(
                Some(key),
                crate::helpers::CREATE,
                json!({"input": input, "key": idem}),
            )
            .await;
        if let Some(id) = body["data"]["createPayment"]["payment"]["id"].as_str() {
            return id.to_string();
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("the gateway never created the payment after the database came back");
}
