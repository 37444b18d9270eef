//! The merchant's own data on payments as the API shows and takes it: `MetadataEntry`, its
//! input, and `updatePayment`'s input.

use async_graphql::{ID, InputObject, MaybeUndefined, SimpleObject};

use crate::domain::merchant_data::Metadata;

/// One entry of a payment's metadata.
#[derive(SimpleObject, Clone, Debug)]
pub struct MetadataEntry {
    pub key: String,
    pub value: String,
}

/// One entry of metadata to store or to filter by: a key of 1 to 40 characters of
/// `A-Z a-z 0-9 _ . -`, given once, and a value of at most 500 characters.
#[derive(InputObject, Clone, Debug)]
pub struct MetadataEntryInput {
    pub key: String,
    pub value: String,
}

/// The entries as the service takes them, in the order given.
pub fn entries(list: Vec<MetadataEntryInput>) -> Vec<(String, String)> {
    list.into_iter().map(|e| (e.key, e.value)).collect()
}

/// A payment's metadata as the API shows it, sorted by key.
pub fn shown(metadata: &Metadata) -> Vec<MetadataEntry> {
    metadata
        .entries()
        .iter()
        .map(|(key, value)| MetadataEntry {
            key: key.clone(),
            value: value.clone(),
        })
        .collect()
}

/// What `updatePayment` changes. A field left out stays as it is; `null` clears it. Given
/// metadata replaces the whole set (an empty list or `null` removes every entry).
#[derive(InputObject, Clone, Debug)]
pub struct UpdatePaymentInput {
    pub payment_id: ID,
    /// At most 1,000 characters.
    pub description: MaybeUndefined<String>,
    /// The merchant's reference (an order number, say): 1 to 255 printable characters.
    pub reference: MaybeUndefined<String>,
    /// At most 50 entries.
    pub metadata: MaybeUndefined<Vec<MetadataEntryInput>>,
}

/// Left out: `None`; `null`: `Some(None)`; a value: `Some(Some(value))`.
pub fn given<T>(value: MaybeUndefined<T>) -> Option<Option<T>> {
    match value {
        MaybeUndefined::Undefined => None,
        MaybeUndefined::Null => Some(None),
        MaybeUndefined::Value(value) => Some(Some(value)),
    }
}
