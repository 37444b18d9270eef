//! The object types clients read: Account, Payment, Refund, PaymentEvent, and their enums.
//! They wrap domain values; the API shape is defined here, not by the tables.

use std::sync::Arc;

use async_graphql::dataloader::DataLoader;
use async_graphql::{Context, Enum, ID, Object, Result};

use super::connection::{self, PageArgs, PaymentConnection, PaymentFilterInput, PaymentOrderInput};
pub use super::events::PaymentEvent;
use super::lifecycle::{CancellationReason, CaptureMethod, NextAction};
use super::limits::fields::charge_list;
use super::loaders::{AccountLoader, EventsOfPayment, PaymentById, RefundsOfPayment};
use super::merchant_data::{self, MetadataEntry};
use super::relations::PageRelations;
use super::scalars::{Currency, DateTime};
use crate::domain::idempotency::KeyState;
use crate::domain::{payment, status};
use crate::error::ApiError;
use crate::persistence::{Db, accounts};

#[derive(Enum, Copy, Clone, Debug, Eq, PartialEq)]
#[graphql(remote = "status::PaymentStatus")]
pub enum PaymentStatus {
    Pending,
    Processing,
    /// Waiting for the customer (3-D Secure): see `nextAction`.
    RequiresAction,
    /// Authorized (`MANUAL`): waiting for `capturePayment` or `cancelPayment`.
    RequiresCapture,
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

/// A merchant account: the owner of API keys and payments.
pub struct Account {
    pub account: accounts::Account,
}

impl From<accounts::Account> for Account {
    fn from(account: accounts::Account) -> Self {
        Account { account }
    }
}

#[Object]
impl Account {
    /// Opaque id, prefixed `acct_`.
    pub async fn id(&self) -> ID {
        ID(self.account.id.clone())
    }
    async fn name(&self) -> &str {
        &self.account.name
    }
    async fn created_at(&self) -> DateTime {
        DateTime(self.account.created_at)
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
        connection::payments(ctx, &self.account.id, args).await
    }
}

/// A payment: an amount in minor units charged to a source, and everything that became of it.
pub struct Payment {
    pub payment: Arc<payment::Payment>,
    /// When it was listed in a page: the page's relations, which load its refunds and events
    /// together with its neighbours'.
    pub page: Option<Arc<PageRelations>>,
    /// Set on the payment a change left (a subscription frame): its refunds and events are
    /// then those made up to that change, not the ones made since.
    pub as_of_change: bool,
}

impl From<payment::Payment> for Payment {
    fn from(payment: payment::Payment) -> Self {
        Payment {
            payment: Arc::new(payment),
            page: None,
            as_of_change: false,
        }
    }
}

impl Payment {
    /// A payment shown on its own (a mutation's payload): its refunds and events, when asked,
    /// are read at once, with no window for gathering other payments' loads.
    pub fn alone(payment: payment::Payment) -> Self {
        let payment = Arc::new(payment);
        Payment {
            page: Some(PageRelations::new(
                &payment.account_id,
                vec![payment.clone()],
            )),
            payment,
            as_of_change: false,
        }
    }

    /// The payment as a change left it.
    pub fn as_changed(payment: payment::Payment) -> Self {
        Payment {
            payment: Arc::new(payment),
            page: None,
            as_of_change: true,
        }
    }

    /// Whether something made at `at` belongs with this payment as it is shown.
    fn shows(&self, at: crate::domain::time::Timestamp) -> bool {
        !self.as_of_change || at <= self.payment.updated_at
    }
}

#[Object]
impl Payment {
    /// Opaque id, prefixed `pay_`.
    pub async fn id(&self) -> ID {
        ID(self.payment.id.clone())
    }
    /// In minor units (cents for USD, yen for JPY).
    async fn amount(&self) -> i64 {
        self.payment.amount.get()
    }
    async fn currency(&self) -> Currency {
        Currency(self.payment.currency)
    }
    async fn status(&self) -> PaymentStatus {
        self.payment.status.into()
    }
    /// Sum of succeeded refunds, in minor units; never more than `amountCaptured`.
    async fn amount_refunded(&self) -> i64 {
        self.payment.amount_refunded
    }
    async fn capture_method(&self) -> CaptureMethod {
        self.payment.capture_method.into()
    }
    /// What `capturePayment` may still take, in minor units (REQUIRES_CAPTURE only).
    async fn amount_capturable(&self) -> i64 {
        self.payment.amount_capturable
    }
    /// What was taken from the customer, in minor units; refunds are bounded by it.
    async fn amount_captured(&self) -> i64 {
        self.payment.amount_captured
    }
    /// When an uncaptured authorization is voided.
    async fn capture_before(&self) -> Option<DateTime> {
        self.payment.capture_before.map(DateTime)
    }
    /// What the customer must do, while REQUIRES_ACTION.
    async fn next_action(&self) -> Option<NextAction> {
        self.payment
            .next_action_url
            .as_deref()
            .map(NextAction::redirect)
    }
    async fn cancellation_reason(&self) -> Option<CancellationReason> {
        self.payment.cancellation_reason.map(Into::into)
    }
    /// What may still be refunded, in minor units.
    async fn amount_refundable(&self) -> i64 {
        self.payment.amount_refundable()
    }
    /// The payment source token (never a card number).
    async fn source(&self) -> &str {
        &self.payment.source
    }
    async fn description(&self) -> Option<&str> {
        self.payment.description.as_deref()
    }
    /// The merchant's reference (an order number, say).
    async fn reference(&self) -> Option<&str> {
        self.payment.reference.as_deref()
    }
    /// The merchant's key-value entries, sorted by key.
    async fn metadata(&self) -> Vec<MetadataEntry> {
        merchant_data::shown(&self.payment.metadata)
    }
    /// Set when the payment FAILED, e.g. `card_declined`.
    async fn failure_code(&self) -> Option<&str> {
        self.payment.failure_code.as_deref()
    }
    async fn failure_message(&self) -> Option<&str> {
        self.payment.failure_message.as_deref()
    }
    async fn created_at(&self) -> DateTime {
        DateTime(self.payment.created_at)
    }
    async fn updated_at(&self) -> DateTime {
        DateTime(self.payment.updated_at)
    }
    /// Refunds of this payment, oldest first.
    async fn refunds(&self, ctx: &Context<'_>) -> Result<Vec<Refund>> {
        let id = &self.payment.id;
        let refunds = match &self.page {
            Some(page) => page
                .refunds(ctx.data::<Db>()?, id)
                .await
                .map_err(ApiError::from)?,
            None => {
                let loader = ctx.data::<DataLoader<AccountLoader>>()?;
                loader
                    .load_one(RefundsOfPayment(id.clone()))
                    .await?
                    .unwrap_or_default()
            }
        };
        let refunds: Vec<_> = refunds
            .into_iter()
            .filter(|refund| self.shows(refund.created_at))
            .collect();
        charge_list(ctx, refunds.len())?;
        Ok(refunds
            .into_iter()
            .map(|refund| Refund {
                refund,
                parent: Some(self.payment.clone()),
            })
            .collect())
    }
    /// Every status change, oldest first.
    async fn events(&self, ctx: &Context<'_>) -> Result<Vec<PaymentEvent>> {
        let id = &self.payment.id;
        let events = match &self.page {
            Some(page) => page
                .events(ctx.data::<Db>()?, id)
                .await
                .map_err(ApiError::from)?,
            None => {
                let loader = ctx.data::<DataLoader<AccountLoader>>()?;
                loader
                    .load_one(EventsOfPayment(id.clone()))
                    .await?
                    .unwrap_or_default()
            }
        };
        let events: Vec<_> = events
            .into_iter()
            .filter(|event| self.shows(event.created_at))
            .map(|event| PaymentEvent { event })
            .collect();
        charge_list(ctx, events.len())?;
        Ok(events)
    }
}

/// A refund of part or all of a payment.
pub struct Refund {
    pub refund: payment::Refund,
    /// The payment, when the refund was reached from it.
    pub parent: Option<Arc<payment::Payment>>,
}

impl From<payment::Refund> for Refund {
    fn from(refund: payment::Refund) -> Self {
        Refund {
            refund,
            parent: None,
        }
    }
}

#[Object]
impl Refund {
    /// Opaque id, prefixed `re_`.
    pub async fn id(&self) -> ID {
        ID(self.refund.id.clone())
    }
    async fn payment(&self, ctx: &Context<'_>) -> Result<Payment> {
        if let Some(parent) = &self.parent {
            return Ok(Payment {
                payment: parent.clone(),
                page: None,
                as_of_change: false,
            });
        }
        let loader = ctx.data::<DataLoader<AccountLoader>>()?;
        let payment = loader
            .load_one(PaymentById(self.refund.payment_id.clone()))
            .await?
            .ok_or_else(|| ApiError::internal("a refund's payment is missing"))?;
        Ok(Payment::from(payment))
    }
    /// In minor units of the payment's currency.
    async fn amount(&self) -> i64 {
        self.refund.amount.get()
    }
    async fn currency(&self) -> Currency {
        Currency(self.refund.currency)
    }
    async fn status(&self) -> RefundStatus {
        self.refund.status.into()
    }
    async fn reason(&self) -> Option<&str> {
        self.refund.reason.as_deref()
    }
    async fn failure_code(&self) -> Option<&str> {
        self.refund.failure_code.as_deref()
    }
    async fn created_at(&self) -> DateTime {
        DateTime(self.refund.created_at)
    }
    async fn updated_at(&self) -> DateTime {
        DateTime(self.refund.updated_at)
    }
}

#[derive(Enum, Copy, Clone, Debug, Eq, PartialEq)]
pub enum IdempotencyState {
    InProgress,
    Completed,
}

/// What became of a request sent with an idempotency key.
pub struct IdempotencyRecord {
    pub record: crate::persistence::idempotency_keys::IdempotencyRecord,
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
        match self.record.state {
            KeyState::Done => IdempotencyState::Completed,
            KeyState::Started => IdempotencyState::InProgress,
        }
    }
    async fn created_at(&self) -> DateTime {
        DateTime(self.record.created_at)
    }
    /// When the key is forgotten; a request with it after that is a new request.
    async fn expires_at(&self) -> DateTime {
        DateTime(self.record.created_at.plus_seconds(self.retention_seconds))
    }
    /// The payment the request created or acted on, as it is now.
    async fn payment(&self, ctx: &Context<'_>) -> Result<Option<Payment>> {
        let Some(id) = &self.record.payment_id else {
            return Ok(None);
        };
        let found = super::node::FoundPayments::read(ctx, std::slice::from_ref(id)).await?;
        Ok(found.get(id))
    }
    /// The refund the request created, as it is now.
    async fn refund(&self, ctx: &Context<'_>) -> Result<Option<Refund>> {
        let Some(id) = &self.record.refund_id else {
            return Ok(None);
        };
        let mut found = super::node::refunds_by_id(ctx, std::slice::from_ref(id)).await?;
        Ok(found.remove(id).map(Refund::from))
    }
}
