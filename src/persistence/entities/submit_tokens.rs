//! The `submit_tokens` table.

use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "submit_tokens")]
pub struct Model {
    /// Lowercase hex SHA-256 of the token; the token itself is never stored.
    #[sea_orm(primary_key, auto_increment = false)]
    pub token_hash: String,
    pub account_id: String,
    /// The key that asked for it.
    pub key_id: String,
    pub created_at: i64,
    pub expires_at: i64,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
