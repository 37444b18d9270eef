//! The `payment_events` table.

use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "payment_events")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: String,
    pub payment_id: String,
    pub account_id: String,
    pub from_status: Option<String>,
    pub to_status: String,
    pub reason: Option<String>,
    pub created_at: i64,
    /// The payment as this change left it (its row as JSON); absent on events older than
    /// the change feed.
    pub snapshot: Option<String>,
    /// `payment.<status>`, `payment.updated` or `refund.<status>`.
    pub event_type: String,
    /// For a refund's event: the refund, and the refund as the change left it (JSON).
    pub refund_id: Option<String>,
    pub refund_snapshot: Option<String>,
    /// The writing transaction's id on PostgreSQL, the row id on SQLite: with `id`, the
    /// event's place in the log (see `persistence::feed`). Set by the database.
    pub txid: i64,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
