//! The object types clients read: Account, Payment, Refund, PaymentEvent, and their enums.
//! They wrap stored rows; the API shape is defined here, not by the tables.

use std::sync::Arc;

use async_graphql::dataloader::DataLoader;
use async_graphql::{Context, Enum, ID, Object, Result};

use super::connection::{self, PageArgs, PaymentConnection, PaymentFilterInput, PaymentOrderInput};
use super::loaders::{AccountLoader, EventsOfPayment, PaymentById, RefundsOfPayment};
use super::relations::PageRelations;
use super::scalars::{Currency, DateTime};
use crate::domain::currency;
use crate::domain::status;
use crate::domain::time::Timestamp;
use crate::error::ApiError;
use crate::persistence::payments;
use crate::persistence::{Db, accounts};

#[derive(Enum, Copy, Clone, Debug, Eq, PartialEq)]
#[graphql(remote = "status::PaymentStatus")]
pub enum PaymentStatus {
    Pending,
    Processing,
    Succeeded,
    Failed,
    Canceled,
    Refunding,
    PartiallyRefunded,
    Refunded,
}

#[derive(Enum, Copy, Clone, Debug, Eq, PartialEq)]
#[graphql(remote = "status::RefundStatus")]
pub enum RefundStatus {
    Pending,
    Succeeded,
    Failed,
}

fn time(micros: i64) -> DateTime {
    DateTime(Timestamp::from_micros(micros))
}

/// Stored values were validated on the way in; a value that no longer parses is corruption.
fn stored<T>(value: Option<T>, what: &str) -> Result<T> {
    value.ok_or_else(|| ApiError::internal(format!("unreadable stored {what}")).into())
}

fn stored_currency(code: &str) -> Result<Currency> {
    stored(
        currency::Currency::parse(code).ok().map(Currency),
        "currency",
    )
}

/// A merchant account: the owner of API keys and payments.
pub struct Account(pub accounts::Account);

#[Object]
impl Account {
    /// Opaque id, prefixed `acct_`.
    pub async fn id(&self) -> ID {
        ID(self.0.id.clone())
    }
    async fn name(&self) -> &str {
        &self.0.name
    }
    async fn created_at(&self) -> DateTime {
        time(self.0.created_at)
    }
    /// This account's payments, a page at a time; the same as `Query.payments`.
    #[allow(clippy::too_many_arguments)]
    async fn payments(
        &self,
        ctx: &Context<'_>,
        first: Option<i32>,
        after: Option<String>,
        last: Option<i32>,
        before: Option<String>,
        filter: Option<PaymentFilterInput>,
        order_by: Option<PaymentOrderInput>,
    ) -> Result<PaymentConnection> {
        let args = PageArgs {
            first,
            after,
            last,
            before,
            filter,
            order_by,
        };
        connection::payments(ctx, &self.0.id, args).await
    }
}

/// A payment: an amount in minor units charged to a source, and everything that became of it.
/// When it was listed in a page, the page's relations load its refunds and events together
/// with its neighbours'.
pub struct Payment(pub payments::Payment, pub Option<Arc<PageRelations>>);

impl From<payments::Payment> for Payment {
    fn from(row: payments::Payment) -> Self {
        Payment(row, None)
    }
}

#[Object]
impl Payment {
    /// Opaque id, prefixed `pay_`.
    pub async fn id(&self) -> ID {
        ID(self.0.id.clone())
    }
    /// In minor units (cents for USD, yen for JPY).
    async fn amount(&self) -> i64 {
        self.0.amount
    }
    async fn currency(&self) -> Result<Currency> {
        stored_currency(&self.0.currency)
    }
    async fn status(&self) -> Result<PaymentStatus> {
        Ok(stored(
            status::PaymentStatus::parse(&self.0.status),
            "payment status",
        )?
        .into())
    }
    /// Sum of succeeded refunds, in minor units; never more than `amount`.
    async fn amount_refunded(&self) -> i64 {
        self.0.amount_refunded
    }
    /// What may still be refunded, in minor units.
    async fn amount_refundable(&self) -> i64 {
        let refundable = matches!(
            status::PaymentStatus::parse(&self.0.status),
            Some(status::PaymentStatus::Succeeded | status::PaymentStatus::PartiallyRefunded)
        );
        if refundable {
            self.0.amount - self.0.amount_refunded
        } else {
            0
        }
    }
    /// The payment source token (never a card number).
    async fn source(&self) -> &str {
        &self.0.source
    }
    async fn description(&self) -> Option<&str> {
        self.0.description.as_deref()
    }
    /// Set when the payment FAILED, e.g. `card_declined`.
    async fn failure_code(&self) -> Option<&str> {
        self.0.failure_code.as_deref()
    }
    async fn failure_message(&self) -> Option<&str> {
        self.0.failure_message.as_deref()
    }
    async fn created_at(&self) -> DateTime {
        time(self.0.created_at)
    }
    async fn updated_at(&self) -> DateTime {
        time(self.0.updated_at)
    }
    /// Refunds of this payment, oldest first.
    async fn refunds(&self, ctx: &Context<'_>) -> Result<Vec<Refund>> {
        let rows = match &self.1 {
            Some(page) => page
                .refunds(ctx.data::<Db>()?, &self.0.id)
                .await
                .map_err(ApiError::from)?,
            None => {
                let loader = ctx.data::<DataLoader<AccountLoader>>()?;
                loader
                    .load_one(RefundsOfPayment(self.0.id.clone()))
                    .await?
                    .unwrap_or_default()
            }
        };
        Ok(rows
            .into_iter()
            .map(|r| Refund(r, Some(Box::new(self.0.clone()))))
            .collect())
    }
    /// Every status change, oldest first.
    async fn events(&self, ctx: &Context<'_>) -> Result<Vec<PaymentEvent>> {
        let rows = match &self.1 {
            Some(page) => page
                .events(ctx.data::<Db>()?, &self.0.id)
                .await
                .map_err(ApiError::from)?,
            None => {
                let loader = ctx.data::<DataLoader<AccountLoader>>()?;
                loader
                    .load_one(EventsOfPayment(self.0.id.clone()))
                    .await?
                    .unwrap_or_default()
            }
        };
        Ok(rows.into_iter().map(PaymentEvent).collect())
    }
}

/// A refund of part or all of a payment (and the payment, when it was reached from it).
pub struct Refund(pub payments::Refund, pub Option<Box<payments::Payment>>);

impl From<payments::Refund> for Refund {
    fn from(row: payments::Refund) -> Self {
        Refund(row, None)
    }
}

#[Object]
impl Refund {
    /// Opaque id, prefixed `re_`.
    pub async fn id(&self) -> ID {
        ID(self.0.id.clone())
    }
    async fn payment(&self, ctx: &Context<'_>) -> Result<Payment> {
        if let Some(parent) = &self.1 {
            return Ok(Payment::from(parent.as_ref().clone()));
        }
        let loader = ctx.data::<DataLoader<AccountLoader>>()?;
        let payment = loader
            .load_one(PaymentById(self.0.payment_id.clone()))
            .await?;
        Ok(Payment::from(stored(payment, "refund's payment")?))
    }
    /// In minor units of the payment's currency.
    async fn amount(&self) -> i64 {
        self.0.amount
    }
    async fn currency(&self) -> Result<Currency> {
        stored_currency(&self.0.currency)
    }
    async fn status(&self) -> Result<RefundStatus> {
        Ok(stored(status::RefundStatus::parse(&self.0.status), "refund status")?.into())
    }
    async fn reason(&self) -> Option<&str> {
        self.0.reason.as_deref()
    }
    async fn failure_code(&self) -> Option<&str> {
        self.0.failure_code.as_deref()
    }
    async fn created_at(&self) -> DateTime {
        time(self.0.created_at)
    }
    async fn updated_at(&self) -> DateTime {
        time(self.0.updated_at)
    }
}

/// One status change of a payment.
pub struct PaymentEvent(pub payments::PaymentEvent);

#[Object]
impl PaymentEvent {
    /// Null for the event that created the payment.
    #[allow(clippy::wrong_self_convention)]
    async fn from_status(&self) -> Result<Option<PaymentStatus>> {
        match &self.0.from_status {
            None => Ok(None),
            Some(s) => Ok(Some(
                stored(status::PaymentStatus::parse(s), "event status")?.into(),
            )),
        }
    }
    async fn to_status(&self) -> Result<PaymentStatus> {
        Ok(stored(
            status::PaymentStatus::parse(&self.0.to_status),
            "event status",
        )?
        .into())
    }
    async fn reason(&self) -> Option<&str> {
        self.0.reason.as_deref()
    }
    async fn created_at(&self) -> DateTime {
        time(self.0.created_at)
    }
}

#[derive(Enum, Copy, Clone, Debug, Eq, PartialEq)]
pub enum IdempotencyState {
    InProgress,
    Completed,
}

/// What became of a request sent with an idempotency key.
pub struct IdempotencyRecord {
    pub record: crate::persistence::idempotency::IdempotencyRecord,
    pub retention_seconds: i64,
}

#[Object]
impl IdempotencyRecord {
    async fn key(&self) -> &str {
        &self.record.key
    }
    async fn operation(&self) -> &str {
        &self.record.operation
    }
    async fn state(&self) -> IdempotencyState {
        if self.record.state == crate::domain::idempotency::KeyState::Done.as_str() {
            IdempotencyState::Completed
        } else {
            IdempotencyState::InProgress
        }
    }
    async fn created_at(&self) -> DateTime {
        time(self.record.created_at)
    }
    /// When the key is forgotten; a request with it after that is a new request.
    async fn expires_at(&self) -> DateTime {
        DateTime(
            Timestamp::from_micros(self.record.created_at).plus_seconds(self.retention_seconds),
        )
    }
    /// The payment the request created or acted on, as it is now.
    async fn payment(&self, ctx: &Context<'_>) -> Result<Option<Payment>> {
        let Some(id) = &self.record.payment_id else {
            return Ok(None);
        };
        let loader = ctx.data::<DataLoader<AccountLoader>>()?;
        Ok(loader
            .load_one(PaymentById(id.clone()))
            .await?
            .map(Payment::from))
    }
    /// The refund the request created, as it is now.
    async fn refund(&self, ctx: &Context<'_>) -> Result<Option<Refund>> {
        let Some(id) = &self.record.refund_id else {
            return Ok(None);
        };
        let loader = ctx.data::<DataLoader<AccountLoader>>()?;
        Ok(loader
            .load_one(super::loaders::RefundById(id.clone()))
            .await?
            .map(Refund::from))
    }
}
