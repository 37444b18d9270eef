//! The `webhook_deliveries` table.

use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "webhook_deliveries")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: String,
    pub endpoint_id: String,
    pub account_id: String,
    pub event_id: String,
    pub event_type: String,
    pub payment_id: String,
    pub payment_version: i32,
    pub body: String,
    pub status: String,
    pub attempt_count: i32,
    pub first_attempt_at: Option<i64>,
    pub next_attempt_at: Option<i64>,
    pub lease_until: Option<i64>,
    pub lease_token: Option<String>,
    pub created_at: i64,
    pub updated_at: i64,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
