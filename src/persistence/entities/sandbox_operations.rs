//! The `sandbox_operations` table.

use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "sandbox_operations")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub idempotency_key: String,
    pub kind: String,
    pub reference: String,
    pub source: String,
    pub amount: i64,
    pub currency: String,
    pub status: String,
    pub failure_code: Option<String>,
    pub attempts: i32,
    pub created_at: i64,
    /// Where the customer goes after a customer action.
    pub return_url: Option<String>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
