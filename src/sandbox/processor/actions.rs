//! The customer's side of a customer action (3-D Secure): what the action page shows, and the
//! customer's answer, which settles the charge or authorization once (a second answer changes
//! nothing) and tells the gateway by a signed webhook, as for any outcome that comes later.

use std::time::Duration;

use super::Sandbox;
use crate::persistence::DbError;
use crate::persistence::sandbox::{self as store, OperationKind, OperationStatus};
use crate::processor::events::{CHARGE_FAILED, CHARGE_SUCCEEDED, WebhookData, WebhookEvent};

/// Why a declined action failed.
const AUTHENTICATION_FAILED: &str = "authentication_failed";
/// How long the answer waits for the gateway to take the webhook before the customer is sent
/// back; the delivery goes on in the background after that.
const DELIVERY_WAIT: Duration = Duration::from_secs(5);

/// A charge or authorization as its action page shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PendingAction {
    pub amount: i64,
    pub currency: String,
    /// The customer may still answer.
    pub open: bool,
    pub return_url: Option<String>,
}

/// What became of a customer's answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ActionAnswer {
    /// The answer settled the operation.
    Settled { return_url: Option<String> },
    /// The operation was settled or withdrawn before: nothing changed.
    Unchanged { return_url: Option<String> },
}

impl Sandbox {
    /// The charge or authorization made with `key`, if there is one.
    pub async fn pending_action(&self, key: &str) -> Result<Option<PendingAction>, DbError> {
        Ok(store::find(&self.db, key)
            .await?
            .filter(|op| {
                matches!(
                    op.kind,
                    OperationKind::Charge | OperationKind::Authorization
                )
            })
            .map(|op| PendingAction {
                amount: op.amount,
                currency: op.currency,
                open: op.status == OperationStatus::ActionRequired,
                return_url: op.return_url,
            }))
    }

    /// The customer approves or declines the action of the operation made with `key`; `None`
    /// when there is no such operation.
    pub async fn answer_action(
        &self,
        key: &str,
        approve: bool,
    ) -> Result<Option<ActionAnswer>, DbError> {
        let Some(action) = self.pending_action(key).await? else {
            return Ok(None);
        };
        let return_url = action.return_url;
        let settled = if approve {
            store::settle(
                &self.db,
                key,
                OperationStatus::ActionRequired,
                OperationStatus::Approved,
            )
            .await?
        } else {
            store::decline(
                &self.db,
                key,
                OperationStatus::ActionRequired,
                AUTHENTICATION_FAILED,
            )
            .await?
        };
        if !settled {
            return Ok(Some(ActionAnswer::Unchanged { return_url }));
        }
        let Some(op) = store::find(&self.db, key).await? else {
            return Ok(Some(ActionAnswer::Unchanged { return_url }));
        };
        if let Some(target) = self.webhooks.clone() {
            let (kind, failure_code, failure_message) = if approve {
                (CHARGE_SUCCEEDED, None, None)
            } else {
                (
                    CHARGE_FAILED,
                    Some(AUTHENTICATION_FAILED.to_string()),
                    Some("The customer declined to authenticate.".to_string()),
                )
            };
            let event = WebhookEvent::new(
                kind,
                WebhookData {
                    idempotency_key: op.idempotency_key,
                    reference: op.reference,
                    failure_code,
                    failure_message,
                },
            );
            let delivery = tokio::spawn(async move { target.deliver(&event).await });
            if tokio::time::timeout(DELIVERY_WAIT, delivery).await.is_err() {
                tracing::warn!("the gateway has not taken a customer action's outcome yet");
            }
        }
        Ok(Some(ActionAnswer::Settled { return_url }))
    }
}
