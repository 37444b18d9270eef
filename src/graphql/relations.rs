//! Refunds and events of a whole page of payments, each fetched with one query the first
//! time any payment of the page asks: a page of 100 payments with their refunds and events
//! costs the same few statements, however the resolvers happen to be scheduled. The payments
//! `payment`, `node` and `nodes` find, and a mutation's payment, are read the same way: the
//! statement runs at once, where the request's loader would first wait for a gathering window.

use std::collections::HashMap;
use std::sync::Arc;

use tokio::sync::OnceCell;

use crate::persistence::payments::{self, PaymentEvent, Refund};
use crate::persistence::{Db, DbError};

#[derive(Debug)]
pub struct PageRelations {
    account_id: String,
    /// The page's payments, whose ids the loaders read by (made only when one runs: most
    /// pages show neither refunds nor events).
    payments: Vec<Arc<payments::Payment>>,
    refunds: OnceCell<HashMap<String, Vec<Refund>>>,
    events: OnceCell<HashMap<String, Vec<PaymentEvent>>>,
}

fn by_payment<T>(rows: Vec<T>, payment_id: impl Fn(&T) -> &String) -> HashMap<String, Vec<T>> {
    let mut out: HashMap<String, Vec<T>> = HashMap::new();
    for row in rows {
        out.entry(payment_id(&row).clone()).or_default().push(row);
    }
    out
}

impl PageRelations {
    pub fn new(account_id: &str, payments: Vec<Arc<payments::Payment>>) -> Arc<Self> {
        Arc::new(Self {
            account_id: account_id.to_string(),
            payments,
            refunds: OnceCell::new(),
            events: OnceCell::new(),
        })
    }

    fn ids(&self) -> Vec<String> {
        self.payments.iter().map(|p| p.id.clone()).collect()
    }

    /// Refunds of `payment_id`, oldest first.
    pub async fn refunds(&self, db: &Db, payment_id: &str) -> Result<Vec<Refund>, DbError> {
        let all = self
            .refunds
            .get_or_try_init(|| async {
                let rows = payments::refunds_of(db, &self.account_id, &self.ids()).await?;
                Ok::<_, DbError>(by_payment(rows, |r| &r.payment_id))
            })
            .await?;
        Ok(all.get(payment_id).cloned().unwrap_or_default())
    }

    /// Status changes of `payment_id`, oldest first.
    pub async fn events(&self, db: &Db, payment_id: &str) -> Result<Vec<PaymentEvent>, DbError> {
        let all = self
            .events
            .get_or_try_init(|| async {
                let rows = payments::events_of(db, &self.account_id, &self.ids()).await?;
                Ok::<_, DbError>(by_payment(rows, |e| &e.payment_id))
            })
            .await?;
        Ok(all.get(payment_id).cloned().unwrap_or_default())
    }
}
