//! The merchant's own data on a payment: a reference (an order number, say) and metadata, a
//! small set of key-value entries. Both are validated here, once, with the contract's limits.

use std::collections::BTreeMap;

/// Most entries one payment's metadata may hold.
pub const MAX_ENTRIES: usize = 50;
/// Longest metadata key, in characters (`[A-Za-z0-9_.-]`).
pub const MAX_KEY_LEN: usize = 40;
/// Longest metadata value, in characters.
pub const MAX_VALUE_LEN: usize = 500;
/// Longest reference, in characters.
pub const MAX_REFERENCE_LEN: usize = 255;

/// Why merchant data was refused: the part of the input at fault (relative to the argument,
/// e.g. `[3].key`, empty for the whole list) and what is wrong with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refused {
    pub at: String,
    pub message: String,
}

impl Refused {
    fn new(at: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            at: at.into(),
            message: message.into(),
        }
    }
}

/// A payment's metadata: entries with unique keys, sorted by key (byte order).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Metadata(Vec<(String, String)>);

impl Metadata {
    /// Validates entries as a client sends them: at most [`MAX_ENTRIES`], each key 1 to
    /// [`MAX_KEY_LEN`] characters of `[A-Za-z0-9_.-]` and given once, each value at most
    /// [`MAX_VALUE_LEN`] characters without control characters.
    pub fn parse(entries: Vec<(String, String)>) -> Result<Self, Refused> {
        if entries.len() > MAX_ENTRIES {
            return Err(Refused::new(
                "",
                format!(
                    "metadata holds at most {MAX_ENTRIES} entries, got {}",
                    entries.len()
                ),
            ));
        }
        let mut seen = BTreeMap::new();
        for (index, (key, value)) in entries.into_iter().enumerate() {
            check_key(&key).map_err(|message| Refused::new(format!("[{index}].key"), message))?;
            if value.chars().count() > MAX_VALUE_LEN || value.chars().any(char::is_control) {
                return Err(Refused::new(
                    format!("[{index}].value"),
                    format!(
                        "a metadata value must be at most {MAX_VALUE_LEN} characters, without control characters"
                    ),
                ));
            }
            if seen.contains_key(&key) {
                return Err(Refused::new(
                    format!("[{index}].key"),
                    format!("the metadata key {key:?} is given more than once"),
                ));
            }
            seen.insert(key, value);
        }
        Ok(Self(seen.into_iter().collect()))
    }

    /// The entries, sorted by key.
    pub fn entries(&self) -> &[(String, String)] {
        &self.0
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Whether every entry of `wanted` is one of these.
    pub fn contains_all(&self, wanted: &Metadata) -> bool {
        wanted
            .0
            .iter()
            .all(|entry| self.0.binary_search(entry).is_ok())
    }

    /// As stored: a JSON object in key order; `None` when there are no entries.
    pub fn to_json(&self) -> Option<String> {
        if self.0.is_empty() {
            return None;
        }
        let object: serde_json::Map<String, serde_json::Value> = self
            .0
            .iter()
            .map(|(k, v)| (k.clone(), serde_json::Value::String(v.clone())))
            .collect();
        Some(serde_json::Value::Object(object).to_string())
    }

    /// Read back from [`Metadata::to_json`]'s form; `None` for text that is not such an object.
    pub fn from_json(text: Option<&str>) -> Option<Self> {
        let Some(text) = text else {
            return Some(Self::default());
        };
        let object: BTreeMap<String, String> = serde_json::from_str(text).ok()?;
        Some(Self(object.into_iter().collect()))
    }

    /// The entries as a JSON list of `{key, value}` objects, the API's shape.
    pub fn to_api_json(&self) -> serde_json::Value {
        self.0
            .iter()
            .map(|(key, value)| serde_json::json!({ "key": key, "value": value }))
            .collect()
    }
}

fn check_key(key: &str) -> Result<(), String> {
    let fits = (1..=MAX_KEY_LEN).contains(&key.len())
        && key
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'));
    if fits {
        Ok(())
    } else {
        Err(format!(
            "a metadata key must be 1 to {MAX_KEY_LEN} characters of A-Z, a-z, 0-9, '_', '.' and '-'"
        ))
    }
}

/// Validates a reference: 1 to [`MAX_REFERENCE_LEN`] printable characters (no control
/// characters, not only spaces).
pub fn parse_reference(reference: &str) -> Result<(), String> {
    let count = reference.chars().count();
    if count == 0
        || count > MAX_REFERENCE_LEN
        || reference.chars().any(char::is_control)
        || reference.trim().is_empty()
    {
        return Err(format!(
            "reference must be 1 to {MAX_REFERENCE_LEN} printable characters"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entries(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn entries_come_back_sorted_and_round_trip_through_storage() {
        let metadata = Metadata::parse(entries(&[("order", "8812"), ("cart.id", "c-1")])).unwrap();
        assert_eq!(metadata.entries()[0].0, "cart.id");
        let stored = metadata.to_json().unwrap();
        assert_eq!(stored, r#"{"cart.id":"c-1","order":"8812"}"#);
        assert_eq!(Metadata::from_json(Some(&stored)), Some(metadata));
        assert_eq!(Metadata::from_json(None), Some(Metadata::default()));
        assert_eq!(Metadata::default().to_json(), None);
    }

    #[test]
    fn each_limit_holds_at_its_bound_and_refuses_one_past_it() {
        let key = "k".repeat(MAX_KEY_LEN);
        let value = "é".repeat(MAX_VALUE_LEN);
        assert!(Metadata::parse(entries(&[(&key, &value)])).is_ok());
        let long_key = "k".repeat(MAX_KEY_LEN + 1);
        let refused = Metadata::parse(entries(&[("a", "1"), (&long_key, "v")])).unwrap_err();
        assert_eq!(refused.at, "[1].key");
        let long_value = "v".repeat(MAX_VALUE_LEN + 1);
        assert_eq!(
            Metadata::parse(entries(&[("a", &long_value)]))
                .unwrap_err()
                .at,
            "[0].value"
        );
        let many: Vec<_> = (0..MAX_ENTRIES)
            .map(|i| (format!("k{i}"), String::new()))
            .collect();
        assert!(Metadata::parse(many.clone()).is_ok());
        let mut too_many = many;
        too_many.push(("one.more".into(), String::new()));
        assert_eq!(Metadata::parse(too_many).unwrap_err().at, "");
    }

    #[test]
    fn bad_keys_and_duplicates_are_refused() {
        for key in ["", "has space", "ünï", "a/b", "tab\t"] {
            assert!(Metadata::parse(entries(&[(key, "v")])).is_err(), "{key:?}");
        }
        let refused = Metadata::parse(entries(&[("a", "1"), ("b", "2"), ("a", "3")])).unwrap_err();
        assert_eq!(refused.at, "[2].key");
        assert!(Metadata::parse(entries(&[("a", "line\nbreak")])).is_err());
    }

    #[test]
    fn containment_is_by_whole_entries() {
        let metadata = Metadata::parse(entries(&[("a", "1"), ("b", "2")])).unwrap();
        let want = |pairs| Metadata::parse(entries(pairs)).unwrap();
        assert!(metadata.contains_all(&want(&[("b", "2")])));
        assert!(metadata.contains_all(&want(&[])));
        assert!(!metadata.contains_all(&want(&[("b", "1")])));
        assert!(!metadata.contains_all(&want(&[("a", "1"), ("c", "3")])));
    }

    #[test]
    fn references_are_printable_and_bounded() {
        assert!(parse_reference("order 8812").is_ok());
        assert!(parse_reference(&"r".repeat(MAX_REFERENCE_LEN)).is_ok());
        for bad in [
            String::new(),
            "   ".to_string(),
            "a\nb".to_string(),
            "r".repeat(MAX_REFERENCE_LEN + 1),
        ] {
            assert!(parse_reference(&bad).is_err(), "{bad:?}");
        }
    }
}
