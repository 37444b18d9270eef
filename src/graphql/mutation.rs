//! The `Mutation` root: money-moving operations, each idempotent by `idempotencyKey`.

use async_graphql::{Context, ID, InputObject, Object, Result, SimpleObject};

use super::lifecycle::{CancellationReason, CaptureMethod, CapturePaymentInput};
use super::merchant_data::{self, MetadataEntryInput, UpdatePaymentInput};
use super::objects::{Payment, Refund};
use super::scalars::Currency;
use super::{Viewer, api_keys, client_tokens, merchant_webhooks, submit_tokens};
use crate::domain::idempotency::IdempotencyKey;
use crate::domain::ids::PaymentId;
use crate::domain::money::MinorUnits;
use crate::domain::scope::Scope;
use crate::error::ApiError;
use crate::service::payments::{
    Cancel, CreateOptions, CreatePayment, PaymentResult, PaymentService, PaymentUpdate,
    RefundInput, RefundResult,
};

#[derive(InputObject, Clone, Debug)]
pub struct CreatePaymentInput {
    /// In minor units (cents for USD, yen for JPY), 1 to 99,999,999.
    pub amount: i64,
    pub currency: Currency,
    /// A payment source token, e.g. `tok_visa`; never a card number.
    pub source: String,
    pub description: Option<String>,
    /// Charge at once (default); `false` leaves the payment PENDING for `confirmPayment`.
    #[graphql(default_with = "Some(true)")]
    pub confirm: Option<bool>,
    /// `MANUAL` only authorizes: the payment waits in REQUIRES_CAPTURE for `capturePayment`.
    #[graphql(default_with = "Some(CaptureMethod::Automatic)")]
    pub capture_method: Option<CaptureMethod>,
    /// Where the customer is sent back to after a customer action (3-D Secure), with
    /// `payment_id` added to its query: an absolute `https` URL (`http` only on loopback), at
    /// most 2,048 characters.
    pub return_url: Option<String>,
    /// The merchant's reference (an order number, say): 1 to 255 printable characters.
    pub reference: Option<String>,
    /// The merchant's key-value entries: at most 50, keys unique.
    pub metadata: Option<Vec<MetadataEntryInput>>,
}

#[derive(SimpleObject)]
pub struct PaymentPayload {
    pub payment: Payment,
    /// True when this answer is the stored outcome of an earlier request with the same key.
    pub replayed: bool,
}

impl From<PaymentResult> for PaymentPayload {
    fn from(result: PaymentResult) -> Self {
        PaymentPayload {
            payment: Payment::alone(result.payment),
            replayed: result.replayed,
        }
    }
}

#[derive(InputObject, Clone, Debug)]
pub struct RefundPaymentInput {
    pub payment_id: ID,
    /// In minor units; null refunds everything still refundable.
    pub amount: Option<i64>,
    pub reason: Option<String>,
}

#[derive(SimpleObject)]
pub struct RefundPayload {
    pub refund: Refund,
    pub payment: Payment,
    /// True when this answer is the stored outcome of an earlier request with the same key.
    pub replayed: bool,
}

impl From<RefundResult> for RefundPayload {
    fn from(result: RefundResult) -> Self {
        RefundPayload {
            refund: Refund::from(result.refund),
            payment: Payment::alone(result.payment),
            replayed: result.replayed,
        }
    }
}

/// The `idempotencyKey` of a money-moving mutation, checked (submit tokens included).
async fn key(ctx: &Context<'_>, idempotency_key: &str) -> Result<IdempotencyKey> {
    let key = submit_tokens::money_key(ctx, Some(idempotency_key)).await?;
    key.ok_or_else(|| ApiError::internal("a given key parsed to none").into())
}

/// The `paymentId` argument, checked once here.
fn payment(payment_id: &str) -> Result<PaymentId, ApiError> {
    PaymentId::parse(payment_id).map_err(|not| ApiError::bad_input("paymentId", not.to_string()))
}

pub struct Mutation;

#[Object]
impl Mutation {
    /// Creates a payment and, unless `confirm: false`, charges it. Retrying with the same
    /// `idempotencyKey` never charges twice: it answers with the first outcome.
    async fn create_payment(
        &self,
        ctx: &Context<'_>,
        input: CreatePaymentInput,
        idempotency_key: String,
    ) -> Result<Option<PaymentPayload>> {
        let viewer = ctx.data::<Viewer>()?;
        let service = ctx.data::<PaymentService>()?;
        let key = key(ctx, &idempotency_key).await?;
        let options = CreateOptions {
            description: input.description,
            confirm: input.confirm.unwrap_or(true),
            capture_method: input
                .capture_method
                .unwrap_or(CaptureMethod::Automatic)
                .into(),
            return_url: input.return_url,
            reference: input.reference,
            metadata: input.metadata.map(merchant_data::entries),
        };
        let input = CreatePayment::parse(input.amount, input.currency.0, input.source, options)?;
        Ok(Some(
            service
                .create(&viewer.account_id, &key, input)
                .await?
                .into(),
        ))
    }

    /// Changes the merchant's own data on a payment (description, reference, metadata), in
    /// any status; appends a `payment.updated` event. Not money-moving: no idempotency key,
    /// and repeating it changes nothing more.
    async fn update_payment(
        &self,
        ctx: &Context<'_>,
        input: UpdatePaymentInput,
    ) -> Result<Option<PaymentPayload>> {
        let viewer = ctx.data::<Viewer>()?;
        let service = ctx.data::<PaymentService>()?;
        let id = payment(&input.payment_id)?;
        let update = PaymentUpdate::parse(
            merchant_data::given(input.description),
            merchant_data::given(input.reference),
            merchant_data::given(input.metadata).map(|m| m.map(merchant_data::entries)),
        )?;
        let payment = service.update(&viewer.account_id, &id, update).await?;
        Ok(Some(PaymentResult::made(payment).into()))
    }

    /// Charges a PENDING payment. Idempotent by `idempotencyKey`.
    async fn confirm_payment(
        &self,
        ctx: &Context<'_>,
        payment_id: ID,
        idempotency_key: String,
    ) -> Result<Option<PaymentPayload>> {
        let viewer = ctx.data::<Viewer>()?;
        let service = ctx.data::<PaymentService>()?;
        let key = key(ctx, &idempotency_key).await?;
        let payment_id = payment(&payment_id)?;
        Ok(Some(
            service
                .confirm(&viewer.account_id, &key, &payment_id)
                .await?
                .into(),
        ))
    }

    /// Takes all or part (`amount`) of an authorized payment (REQUIRES_CAPTURE), once; the
    /// rest of the authorization is released. Idempotent by `idempotencyKey`.
    async fn capture_payment(
        &self,
        ctx: &Context<'_>,
        input: CapturePaymentInput,
        idempotency_key: String,
    ) -> Result<Option<PaymentPayload>> {
        let viewer = ctx.data::<Viewer>()?;
        let service = ctx.data::<PaymentService>()?;
        let key = key(ctx, &idempotency_key).await?;
        let payment_id = payment(&input.payment_id)?;
        let amount = input
            .amount
            .map(MinorUnits::parse)
            .transpose()
            .map_err(ApiError::InvalidAmount)?;
        Ok(Some(
            service
                .capture(&viewer.account_id, &key, &payment_id, amount)
                .await?
                .into(),
        ))
    }

    /// Cancels a PENDING or REQUIRES_ACTION payment, or voids an authorization
    /// (REQUIRES_CAPTURE; secret keys only). Cancelling a CANCELED payment returns it
    /// unchanged. With an `idempotencyKey` it is idempotent like every money-moving mutation.
    async fn cancel_payment(
        &self,
        ctx: &Context<'_>,
        payment_id: ID,
        idempotency_key: Option<String>,
        reason: Option<CancellationReason>,
    ) -> Result<Option<PaymentPayload>> {
        let viewer = ctx.data::<Viewer>()?;
        let service = ctx.data::<PaymentService>()?;
        let key = submit_tokens::money_key(ctx, idempotency_key.as_deref()).await?;
        let payment_id = payment(&payment_id)?;
        let cancel = Cancel {
            payment_id: &payment_id,
            reason: reason.map(Into::into),
            may_void: viewer.caller.may(Scope::PaymentsCapture),
            may_cancel: viewer.caller.may(Scope::PaymentsWrite),
        };
        Ok(Some(
            service
                .cancel(&viewer.account_id, key.as_ref(), cancel)
                .await?
                .into(),
        ))
    }

    /// Refunds part or all of a SUCCEEDED or PARTIALLY_REFUNDED payment. Idempotent by
    /// `idempotencyKey`; the payment is REFUNDING while the refund is in flight.
    async fn refund_payment(
        &self,
        ctx: &Context<'_>,
        input: RefundPaymentInput,
        idempotency_key: String,
    ) -> Result<Option<RefundPayload>> {
        let viewer = ctx.data::<Viewer>()?;
        let service = ctx.data::<PaymentService>()?;
        let key = key(ctx, &idempotency_key).await?;
        let input = RefundInput::parse(&input.payment_id, input.amount, input.reason)?;
        Ok(Some(
            service
                .refund(&viewer.account_id, &key, input)
                .await?
                .into(),
        ))
    }

    /// Registers a URL to receive this account's payment events, signed with a new secret
    /// that this answer alone shows.
    async fn create_webhook_endpoint(
        &self,
        ctx: &Context<'_>,
        input: merchant_webhooks::CreateWebhookEndpointInput,
    ) -> Result<Option<merchant_webhooks::CreateWebhookEndpointPayload>> {
        merchant_webhooks::create(ctx, input).await.map(Some)
    }

    /// Changes an endpoint's URL, description or statuses, or enables or disables it.
    async fn update_webhook_endpoint(
        &self,
        ctx: &Context<'_>,
        input: merchant_webhooks::UpdateWebhookEndpointInput,
    ) -> Result<Option<merchant_webhooks::WebhookEndpointPayload>> {
        merchant_webhooks::update(ctx, input).await.map(Some)
    }

    /// Deletes an endpoint with its deliveries.
    async fn delete_webhook_endpoint(
        &self,
        ctx: &Context<'_>,
        id: ID,
    ) -> Result<Option<merchant_webhooks::DeleteWebhookEndpointPayload>> {
        merchant_webhooks::delete(ctx, id).await.map(Some)
    }

    /// Mints a short-lived client token for a browser, limited to `scopes` (secret API keys
    /// only). Nothing is stored: the token is signed, and revoking the key that minted it
    /// revokes it.
    async fn create_client_token(
        &self,
        ctx: &Context<'_>,
        input: client_tokens::CreateClientTokenInput,
    ) -> Result<Option<client_tokens::ClientTokenPayload>> {
        client_tokens::create(ctx, input).await.map(Some)
    }

    /// Issues a restricted API key for this account, limited to `scopes` (unrestricted keys
    /// only). The key is shown only in this answer.
    async fn create_api_key(
        &self,
        ctx: &Context<'_>,
        input: api_keys::CreateApiKeyInput,
    ) -> Result<Option<api_keys::CreateApiKeyPayload>> {
        api_keys::create(ctx, input).await.map(Some)
    }

    /// Issues a one-time submit token (`sbt_...`) for a form this server renders: the form's
    /// money-moving mutation sends it as its `idempotencyKey`, so however often the form is
    /// submitted, it moves money once (secret keys with `PAYMENTS_WRITE`).
    async fn create_submit_token(
        &self,
        ctx: &Context<'_>,
        #[graphql(default_with = "submit_tokens::CreateSubmitTokenInput { ttl_seconds: 1800 }")]
        input: submit_tokens::CreateSubmitTokenInput,
    ) -> Result<Option<submit_tokens::SubmitTokenPayload>> {
        submit_tokens::create(ctx, input).await.map(Some)
    }

    /// Issues a new API key in place of `keyId` (unrestricted keys only). The old key keeps
    /// working for `expireOldInSeconds` (at once by default, at most 7 days), then is refused
    /// with `UNAUTHENTICATED`, as are the client tokens it minted.
    async fn roll_api_key(
        &self,
        ctx: &Context<'_>,
        input: api_keys::RollApiKeyInput,
    ) -> Result<Option<api_keys::RollApiKeyPayload>> {
        api_keys::roll(ctx, input).await.map(Some)
    }

    /// Gives an endpoint a new signing secret, shown only in this answer. The old secret
    /// keeps signing every delivery beside the new one (two signatures in
    /// `webhook-signature`) for `expireOldInSeconds` (none by default, at most 7 days).
    async fn roll_webhook_endpoint_secret(
        &self,
        ctx: &Context<'_>,
        input: merchant_webhooks::RollWebhookEndpointSecretInput,
    ) -> Result<Option<merchant_webhooks::RollWebhookEndpointSecretPayload>> {
        merchant_webhooks::roll_secret(ctx, input).await.map(Some)
    }

    /// Sends a delivery again now, with the same event id and body.
    async fn redeliver_webhook(
        &self,
        ctx: &Context<'_>,
        delivery_id: ID,
    ) -> Result<Option<merchant_webhooks::WebhookDeliveryPayload>> {
        merchant_webhooks::redeliver(ctx, delivery_id)
            .await
            .map(Some)
    }
}
