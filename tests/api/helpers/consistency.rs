//! The invariants every account's stored payments keep, checked from the database.

use graphpay::domain::state_machine::is_allowed_change;
use graphpay::persistence::payments;

use super::TestApp;

/// Checks the invariants of every payment of an account, from what is stored.
pub async fn assert_consistent(app: &TestApp, account_id: &str) {
    let rows = app
        .db
        .query_text(&format!(
            "SELECT id FROM payments WHERE account_id = '{account_id}'"
        ))
        .await
        .unwrap();
    let ids: Vec<String> = rows.into_iter().map(|mut r| r.remove(0)).collect();
    let found = payments::find_payments(&app.db, account_id, &ids)
        .await
        .unwrap();
    let events = payments::events_of(&app.db, account_id, &ids)
        .await
        .unwrap();
    let refunds = payments::refunds_of(&app.db, account_id, &ids)
        .await
        .unwrap();
    for p in found {
        let log: Vec<_> = events.iter().filter(|e| e.payment_id == p.id).collect();
        assert!(!log.is_empty(), "{} has no events", p.id);
        assert!(
            log[0].from_status.is_none(),
            "{}: first event has a from status",
            p.id
        );
        for pair in log.windows(2) {
            assert_eq!(
                pair[1].from_status,
                Some(pair[0].to_status),
                "{}: broken chain",
                p.id
            );
        }
        for e in &log {
            let (from, to) = (e.from_status, e.to_status);
            assert!(
                is_allowed_change(from, to),
                "{}: {from:?} -> {to:?} is not in the table",
                p.id
            );
        }
        assert_eq!(
            log.last().unwrap().to_status,
            p.status,
            "{}: status and log disagree",
            p.id
        );
        let mine: Vec<_> = refunds.iter().filter(|r| r.payment_id == p.id).collect();
        let succeeded: i64 = mine
            .iter()
            .filter(|r| r.status.as_str() == "SUCCEEDED")
            .map(|r| r.amount.get())
            .sum();
        assert_eq!(
            p.amount_refunded, succeeded,
            "{}: amountRefunded is the sum of succeeded refunds",
            p.id
        );
        assert!(
            p.amount_refunded <= p.amount_captured,
            "{}: refunded beyond captured",
            p.id
        );
        assert!(
            p.amount_captured <= p.amount.get(),
            "{}: captured beyond amount",
            p.id
        );
        let pending = mine
            .iter()
            .filter(|r| r.status.as_str() == "PENDING")
            .count();
        assert_eq!(
            pending > 0,
            p.status.as_str() == "REFUNDING",
            "{}: a refund is in flight iff REFUNDING",
            p.id
        );
        assert!(pending <= 1);
    }
}
