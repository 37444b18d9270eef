//! `createClientToken`: a secret API key (unrestricted, or restricted with
//! `CLIENT_TOKENS_CREATE`) mints a short-lived token for a browser, within its own scopes.

use async_graphql::{Context, Enum, InputObject, Result, SimpleObject};

use super::Viewer;
use super::scalars::DateTime;
use crate::domain::client_token::{DEFAULT_TTL_SECONDS, Scope, Scopes};
use crate::service::accounts::Keys;

/// What a client token may do. Anything else needs a secret API key.
#[derive(Enum, Copy, Clone, Debug, PartialEq, Eq)]
pub enum ClientTokenScope {
    /// `viewer`, `payment`, `payments`, `node`, `nodes`, `idempotencyRecord` and the
    /// `paymentUpdated` subscription.
    PaymentsRead,
    /// `createPayment`, `confirmPayment` and `cancelPayment`.
    PaymentsWrite,
    /// `refundPayment`.
    RefundsWrite,
}

impl From<ClientTokenScope> for Scope {
    fn from(scope: ClientTokenScope) -> Self {
        match scope {
            ClientTokenScope::PaymentsRead => Scope::PaymentsRead,
            ClientTokenScope::PaymentsWrite => Scope::PaymentsWrite,
            ClientTokenScope::RefundsWrite => Scope::RefundsWrite,
        }
    }
}

impl ClientTokenScope {
    /// The API's name for `scope`, if a client token can hold it.
    fn of(scope: Scope) -> Option<Self> {
        match scope {
            Scope::PaymentsRead => Some(ClientTokenScope::PaymentsRead),
            Scope::PaymentsWrite => Some(ClientTokenScope::PaymentsWrite),
            Scope::RefundsWrite => Some(ClientTokenScope::RefundsWrite),
            Scope::PaymentsCapture | Scope::WebhooksManage | Scope::ClientTokensCreate => None,
        }
    }
}

#[derive(InputObject, Clone, Debug)]
pub struct CreateClientTokenInput {
    /// At least one.
    pub scopes: Vec<ClientTokenScope>,
    /// How long the token works, 1 to 86,400 seconds (24 hours).
    #[graphql(default = 3600)]
    pub ttl_seconds: i32,
}

#[derive(SimpleObject)]
pub struct ClientTokenPayload {
    /// Send it as `Authorization: Bearer <token>`, or in the WebSocket `connection_init`. It
    /// stops working at `expiresAt`, or as soon as the API key that minted it is revoked.
    pub token: String,
    pub scopes: Vec<ClientTokenScope>,
    pub expires_at: DateTime,
}

pub async fn create(
    ctx: &Context<'_>,
    input: CreateClientTokenInput,
) -> Result<ClientTokenPayload> {
    debug_assert_eq!(DEFAULT_TTL_SECONDS, 3600, "the schema's default above");
    let viewer = ctx.data::<Viewer>()?;
    let keys = ctx.data::<Keys>()?;
    let scopes: Scopes = input.scopes.iter().map(|s| Scope::from(*s)).collect();
    let token = keys.mint(&viewer.caller, scopes, i64::from(input.ttl_seconds))?;
    Ok(ClientTokenPayload {
        token: keys.sign(&token),
        scopes: token
            .scopes
            .iter()
            .filter_map(ClientTokenScope::of)
            .collect(),
        expires_at: DateTime(token.expires_at),
    })
}
