//! The `webhook_endpoints` table.

use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "webhook_endpoints")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: String,
    pub account_id: String,
    pub url: String,
    pub description: Option<String>,
    /// Payment statuses separated by commas; empty: all.
    pub statuses: String,
    /// Event types separated by commas; empty: all (or those of `statuses`).
    pub event_types: String,
    pub secret: String,
    /// The secret `secret` replaced, signing beside it until `previous_secret_expires_at`.
    pub previous_secret: Option<String>,
    pub previous_secret_expires_at: Option<i64>,
    pub enabled: bool,
    pub disabled_reason: Option<String>,
    pub last_success_at: Option<i64>,
    /// Where the change feed stood when it was created: it is owed the events from there on.
    pub feed_txid: i64,
    pub feed_position: i64,
    pub version: i32,
    pub created_at: i64,
    pub updated_at: i64,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
