//! Batched, account-scoped loading of related rows, so a page of payments with their refunds
//! and events costs a constant number of queries.

use std::collections::HashMap;
use std::sync::Arc;

use async_graphql::dataloader::Loader;

use crate::error::ApiError;
use crate::persistence::payments::{self, Payment, PaymentEvent, Refund};
use crate::persistence::{Db, DbError};

/// One loader per request, bound to the viewer's account.
pub struct AccountLoader {
    db: Db,
    account_id: String,
}

impl AccountLoader {
    pub fn new(db: Db, account_id: String) -> Self {
        Self { db, account_id }
    }
}

/// A failed batch; the cause is logged once and clients see `INTERNAL`.
#[derive(Clone, Debug)]
pub struct LoadError(Arc<str>);

impl From<DbError> for LoadError {
    fn from(err: DbError) -> Self {
        LoadError(err.to_string().into())
    }
}

impl From<LoadError> for async_graphql::Error {
    fn from(err: LoadError) -> Self {
        ApiError::internal(err.0).into()
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PaymentById(pub String);
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RefundsOfPayment(pub String);
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct EventsOfPayment(pub String);

fn ids<K>(keys: &[K], id: impl Fn(&K) -> &String) -> Vec<String> {
    keys.iter().map(|k| id(k).clone()).collect()
}

impl Loader<PaymentById> for AccountLoader {
    type Value = Payment;
    type Error = LoadError;

    async fn load(&self, keys: &[PaymentById]) -> Result<HashMap<PaymentById, Payment>, LoadError> {
        let rows =
            payments::find_payments(&self.db, &self.account_id, &ids(keys, |k| &k.0)).await?;
        Ok(rows
            .into_iter()
            .map(|p| (PaymentById(p.id.clone()), p))
            .collect())
    }
}

impl Loader<RefundsOfPayment> for AccountLoader {
    type Value = Vec<Refund>;
    type Error = LoadError;

    async fn load(
        &self,
        keys: &[RefundsOfPayment],
    ) -> Result<HashMap<RefundsOfPayment, Vec<Refund>>, LoadError> {
        let rows = payments::refunds_of(&self.db, &self.account_id, &ids(keys, |k| &k.0)).await?;
        let mut out: HashMap<_, Vec<_>> = HashMap::new();
        for r in rows {
            out.entry(RefundsOfPayment(r.payment_id.clone()))
                .or_default()
                .push(r);
        }
        Ok(out)
    }
}

impl Loader<EventsOfPayment> for AccountLoader {
    type Value = Vec<PaymentEvent>;
    type Error = LoadError;

    async fn load(
        &self,
        keys: &[EventsOfPayment],
    ) -> Result<HashMap<EventsOfPayment, Vec<PaymentEvent>>, LoadError> {
        let rows = payments::events_of(&self.db, &self.account_id, &ids(keys, |k| &k.0)).await?;
        let mut out: HashMap<_, Vec<_>> = HashMap::new();
        for e in rows {
            out.entry(EventsOfPayment(e.payment_id.clone()))
                .or_default()
                .push(e);
        }
        Ok(out)
    }
}
