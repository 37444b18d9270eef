//! The `payment_metadata` table: one row per metadata entry of a payment, ordered for
//! filtered listings (see the migration).

use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "payment_metadata")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub account_id: String,
    #[sea_orm(primary_key, auto_increment = false)]
    pub key: String,
    #[sea_orm(primary_key, auto_increment = false)]
    pub value: String,
    #[sea_orm(primary_key, auto_increment = false)]
    pub created_at: i64,
    #[sea_orm(primary_key, auto_increment = false)]
    pub payment_id: String,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
