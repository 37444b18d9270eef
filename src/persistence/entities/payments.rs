//! The `payments` table.

use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel, serde::Serialize, serde::Deserialize)]
#[sea_orm(table_name = "payments")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: String,
    pub account_id: String,
    pub amount: i64,
    pub currency: String,
    pub status: String,
    pub amount_refunded: i64,
    #[serde(default = "automatic")]
    pub capture_method: String,
    #[serde(default)]
    pub amount_capturable: i64,
    #[serde(default)]
    pub amount_captured: i64,
    #[serde(default)]
    pub capture_before: Option<i64>,
    /// A capture sent to the processor whose outcome is not yet recorded: its amount.
    #[serde(default)]
    pub capture_amount: Option<i64>,
    #[serde(default)]
    pub cancellation_reason: Option<String>,
    #[serde(default)]
    pub next_action_url: Option<String>,
    #[serde(default)]
    pub return_url: Option<String>,
    pub source: String,
    pub description: Option<String>,
    /// The merchant's reference (an order number, say).
    #[serde(default)]
    pub reference: Option<String>,
    /// The merchant's metadata as a JSON object in key order; null when there is none.
    #[serde(default)]
    pub metadata: Option<String>,
    pub failure_code: Option<String>,
    pub failure_message: Option<String>,
    /// The idempotency key this payment is charged with at the processor, on every attempt.
    pub processor_key: String,
    pub processor_ref: Option<String>,
    /// Optimistic-lock version, bumped by every status change.
    pub version: i32,
    pub created_at: i64,
    pub updated_at: i64,
}

/// How payments stored before capture methods existed were captured (snapshots of them
/// carry no method).
fn automatic() -> String {
    "AUTOMATIC".to_string()
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
