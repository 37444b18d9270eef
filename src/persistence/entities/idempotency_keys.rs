//! The `idempotency_keys` table.

use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "idempotency_keys")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub account_id: String,
    #[sea_orm(primary_key, auto_increment = false)]
    pub key: String,
    pub operation: String,
    pub request_hash: String,
    /// `started` while a request holds the claim, `done` once its outcome is stored.
    pub state: String,
    pub locked_at: Option<i64>,
    pub payment_id: Option<String>,
    pub refund_id: Option<String>,
    #[sea_orm(column_type = "Text", nullable)]
    pub outcome: Option<String>,
    pub created_at: i64,
    pub updated_at: i64,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
