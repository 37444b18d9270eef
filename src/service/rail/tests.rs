//! Every exit of the rail, on a real SQLite database: what becomes of the key.

use std::time::Duration;

use super::*;
use crate::domain::currency::Currency;
use crate::domain::idempotency::KeyState;
use crate::domain::money::MinorUnits;
use crate::domain::status::PaymentStatus;
use crate::domain::time::Timestamp;
use crate::persistence::{DbConfig, accounts};

struct Fixture {
    db: Db,
    account: String,
    settings: IdempotencySettings,
    _dir: tempfile::TempDir,
}

async fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let config = DbConfig {
        url: format!("sqlite://{}?mode=rwc", dir.path().join("rail.db").display()),
        schema: None,
        max_connections: 4,
        busy_timeout: Duration::from_secs(10),
        acquire_timeout: Duration::from_secs(10),
    };
    Db::migrate(&config).await.unwrap();
    let db = Db::connect(&config).await.unwrap();
    let account = accounts::create(&db, "Alice").await.unwrap().account.id;
    Fixture {
        db,
        account,
        settings: IdempotencySettings::default(),
        _dir: dir,
    }
}

impl Fixture {
    fn rail(&self) -> Rail<'_> {
        Rail {
            db: &self.db,
            settings: &self.settings,
        }
    }

    fn new_payment(&self) -> NewPayment {
        NewPayment {
            account_id: self.account.clone(),
            amount: MinorUnits::parse(100).unwrap(),
            currency: Currency::parse("USD").unwrap(),
            source: "tok_visa".into(),
            description: None,
            reference: None,
            metadata: Default::default(),
            status: PaymentStatus::Pending,
            capture_method: Default::default(),
            return_url: None,
            created_at: Timestamp::now(),
        }
    }

    /// Runs `operation` on the rail with `key`; a replay answers `"replayed"`.
    async fn run(
        &self,
        key: &IdempotencyKey,
        operation: impl AsyncFnOnce(Claimed, &Hold<'_>) -> Result<&'static str, ServiceError>,
    ) -> Result<&'static str, ServiceError> {
        let mutation = Mutation {
            account_id: &self.account,
            key,
            operation: "createPayment",
            fingerprint: "fp",
            claim_by: ClaimBy::Key,
        };
        self.rail()
            .run(mutation, |_| Ok("replayed"), operation)
            .await
    }

    async fn key_state(&self, key: &IdempotencyKey) -> Option<(KeyState, bool)> {
        idempotency_keys::find(&self.db, &self.account, key.as_str())
            .await
            .unwrap()
            .map(|record| (record.state, record.locked_at.is_some()))
    }
}

fn key(name: &str) -> IdempotencyKey {
    IdempotencyKey::parse(name).unwrap()
}

#[tokio::test]
async fn an_operation_whose_final_write_completed_the_key_is_replayed_after() {
    let f = fixture().await;
    let k = key("done");
    let answer = f
        .run(&k, async |_, hold| {
            let completion = Some(hold.completion());
            payment_writes::create_for_key(&f.db, f.new_payment(), hold.key(), completion).await?;
            Ok("made")
        })
        .await;
    assert!(matches!(answer, Ok("made")));
    assert_eq!(f.key_state(&k).await, Some((KeyState::Done, false)));
    let again = f.run(&k, async |_, _| Ok("ran twice")).await;
    assert!(matches!(again, Ok("replayed")));
}

#[tokio::test]
async fn an_operation_that_answers_without_completing_its_key_is_an_internal_error_and_released() {
    let f = fixture().await;
    let k = key("forgot");
    let answer = f.run(&k, async |_, _| Ok("made")).await;
    assert!(
        matches!(answer, Err(ServiceError::Internal(_))),
        "{answer:?}"
    );
    assert_eq!(f.key_state(&k).await, Some((KeyState::Started, false)));
}

#[tokio::test]
async fn a_refused_operation_forgets_its_claim() {
    let f = fixture().await;
    let k = key("refused");
    let answer = f
        .run(&k, async |_, _| {
            Err(ServiceError::RefundExceedsAvailable("no".into()))
        })
        .await;
    assert!(matches!(
        answer,
        Err(ServiceError::RefundExceedsAvailable(_))
    ));
    assert_eq!(f.key_state(&k).await, None, "the key is free again");
}

#[tokio::test]
async fn a_failed_operation_releases_its_claim_and_a_retry_takes_it_over_at_once() {
    let f = fixture().await;
    for (name, failure) in [
        ("processor", ServiceError::ProcessorUnavailable),
        ("store", ServiceError::internal("the database went away")),
        (
            "busy",
            ServiceError::RequestInProgress {
                retry_after_seconds: 1,
            },
        ),
    ] {
        let k = key(name);
        let created = f
            .run(&k, async |_, hold| {
                payment_writes::create_for_key(&f.db, f.new_payment(), hold.key(), None).await?;
                Err(failure)
            })
            .await;
        assert!(created.is_err(), "{name}");
        assert_eq!(
            f.key_state(&k).await,
            Some((KeyState::Started, false)),
            "{name}"
        );
        let retried = f
            .run(&k, async |claimed, hold| {
                let id = claimed.payment_id.expect("what the first attempt made");
                let payment = crate::persistence::payments::find_payment(&f.db, &f.account, &id)
                    .await?
                    .expect("the payment");
                hold.complete_with(&payment, None).await?;
                Ok("carried on")
            })
            .await;
        assert!(matches!(retried, Ok("carried on")), "{name}: {retried:?}");
        assert_eq!(
            f.key_state(&k).await,
            Some((KeyState::Done, false)),
            "{name}"
        );
    }
}

#[tokio::test]
async fn a_claim_dropped_by_a_panic_is_released() {
    let f = std::sync::Arc::new(fixture().await);
    let k = key("panic");
    let task = tokio::spawn({
        let (f, k) = (f.clone(), k.clone());
        async move {
            let _ = f
                .run(&k, async |_, _| -> Result<&'static str, ServiceError> {
                    panic!("the operation panicked")
                })
                .await;
        }
    });
    assert!(task.await.unwrap_err().is_panic());
    for _ in 0..100 {
        if f.key_state(&k).await == Some((KeyState::Started, false)) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("the claim is still held: {:?}", f.key_state(&k).await);
}

#[tokio::test]
async fn a_request_that_holds_no_claim_leaves_the_key_alone() {
    let f = fixture().await;
    let k = key("held");
    let now = Timestamp::now();
    idempotency_keys::claim(&f.db, &f.account, k.as_str(), "createPayment", "fp", now)
        .await
        .unwrap()
        .expect("another request's claim");
    let answer = f.run(&k, async |_, _| Ok("ran")).await;
    assert!(
        matches!(answer, Err(ServiceError::RequestInProgress { .. })),
        "{answer:?}"
    );
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(
        f.key_state(&k).await,
        Some((KeyState::Started, true)),
        "the other request's claim is still locked"
    );
}
