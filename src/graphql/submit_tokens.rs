//! `createSubmitToken`, and the idempotency key of a money-moving mutation checked against
//! the submit token rules before the mutation runs.

use async_graphql::{Context, InputObject, Result, SimpleObject};

use super::Viewer;
use super::scalars::DateTime;
use crate::domain::idempotency::IdempotencyKey;
use crate::error::ApiError;
use crate::service::submit_tokens::SubmitTokens;

#[derive(InputObject, Clone, Debug)]
pub struct CreateSubmitTokenInput {
    /// How long the token may wait for its first use: 1 second to the gateway's bound
    /// (24 hours unless the operator lowered it). Once used, it is replayed for as long as
    /// idempotency keys are kept.
    #[graphql(default = 1800)]
    pub ttl_seconds: i32,
}

#[derive(SimpleObject)]
pub struct SubmitTokenPayload {
    /// `sbt_...`: the `idempotencyKey` of exactly one money-moving mutation.
    pub token: String,
    /// When the token stops being accepted for its first use.
    pub expires_at: DateTime,
}

pub async fn create(
    ctx: &Context<'_>,
    input: CreateSubmitTokenInput,
) -> Result<SubmitTokenPayload> {
    let viewer = ctx.data::<Viewer>()?;
    let issued = ctx
        .data::<SubmitTokens>()?
        .issue(&viewer.caller, i64::from(input.ttl_seconds))
        .await?;
    Ok(SubmitTokenPayload {
        token: issued.token,
        expires_at: DateTime(issued.expires_at),
    })
}

/// The `idempotencyKey` of a money-moving mutation (`None`: sent without one, which only
/// `cancelPayment` allows), parsed, and admitted by the submit token rules.
pub async fn money_key(ctx: &Context<'_>, text: Option<&str>) -> Result<Option<IdempotencyKey>> {
    let key = text
        .map(IdempotencyKey::parse)
        .transpose()
        .map_err(ApiError::InvalidIdempotencyKey)?;
    let viewer = ctx.data::<Viewer>()?;
    ctx.data::<SubmitTokens>()?
        .admit(&viewer.caller, key.as_ref())
        .await?;
    Ok(key)
}
