//! JSON written straight into a response's bytes: the rows of a page, from the payments
//! themselves, and the response around them ([`write_value`], which `http::wire` writes every
//! answer over HTTP with).
//!
//! async-graphql carries an answer as a tree of values until it is serialized: for a page of
//! 50 a hundred maps and some 500 values, made, hashed, moved and freed for each request. The
//! rows of a page answered from its payments (`super::listed`) are written as JSON text
//! instead, one `Value::Binary` per row in the page's `Value::List`, which [`write_value`]
//! writes as it is. The list keeps one item per row, so what reads the answer's shape (the
//! cost of what a request returned) counts the rows as before. Only a request marked
//! [`RowsAsJson`] gets such rows: one answered over HTTP, whose answer [`write_value`] writes.
//! Nothing else in the schema answers with `Binary`.

use async_graphql::resolver_utils::EnumType;
use async_graphql::{Name, Value};

use crate::domain::time::Timestamp;

/// In a request's data: its answer is written by [`write_value`], so rows may be carried in it
/// as their JSON text.
#[derive(Clone, Copy, Debug)]
pub struct RowsAsJson;

/// The JSON text of `value`, as serde_json writes it, with each `Binary` written as the JSON
/// text it holds.
pub fn write_value(out: &mut Vec<u8>, value: &Value) -> serde_json::Result<()> {
    match value {
        Value::Binary(text) => out.extend_from_slice(text),
        Value::List(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_value(out, item)?;
            }
            out.push(b']');
        }
        Value::Object(fields) => entries(out, fields, write_value)?,
        Value::String(text) => string(out, text)?,
        Value::Enum(name) => string(out, name)?,
        Value::Boolean(true) => out.extend_from_slice(b"true"),
        Value::Boolean(false) => out.extend_from_slice(b"false"),
        Value::Null => out.extend_from_slice(b"null"),
        leaf => serde_json::to_writer(&mut *out, leaf)?,
    }
    Ok(())
}

/// The bytes of the rows `value` carries as JSON text: most of its answer's length, when it
/// holds a page.
pub fn carried_len(value: &Value) -> usize {
    match value {
        Value::Binary(text) => text.len(),
        Value::List(items) => items.iter().map(carried_len).sum(),
        Value::Object(fields) => fields.values().map(carried_len).sum(),
        _ => 0,
    }
}

/// A string, escaped as serde_json escapes it: a string with nothing to escape (no `"`, `\\`
/// or control character below U+0020; every name and id, most text) is copied as it is.
pub fn string(out: &mut Vec<u8>, text: &str) -> serde_json::Result<()> {
    if needs_escaping(text.as_bytes()) {
        return serde_json::to_writer(out, text);
    }
    out.reserve(text.len() + 2);
    out.push(b'"');
    out.extend_from_slice(text.as_bytes());
    out.push(b'"');
    Ok(())
}

/// Whether any byte is one serde_json escapes: `"`, `\\` or below 0x20. Eight bytes at a time:
/// a byte of `x` is zero exactly where `(x - 0x01..) & !x & 0x80..` has its high bit, and a
/// byte is below 0x20 exactly where `(x - 0x20..) & !x & 0x80..` has it (no borrow reaches a
/// byte above a flagged one unflagged, so "any" is exact).
fn needs_escaping(bytes: &[u8]) -> bool {
    const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
    const HIGH: u64 = u64::from_ne_bytes([0x80; 8]);
    let below = |x: u64, n: u8| x.wrapping_sub(ONES * u64::from(n)) & !x & HIGH;
    let escaped = |word: [u8; 8]| {
        let x = u64::from_ne_bytes(word);
        below(x, 0x20)
            | below(x ^ (ONES * u64::from(b'"')), 1)
            | below(x ^ (ONES * u64::from(b'\\')), 1)
            != 0
    };
    let mut chunks = bytes.chunks_exact(8);
    for chunk in &mut chunks {
        let mut word = [0; 8];
        word.copy_from_slice(chunk);
        if escaped(word) {
            return true;
        }
    }
    // The last bytes, in a word padded with a byte that needs no escaping, put together in a
    // register (a word read back from bytes just copied to memory waits for the copy).
    let mut word = ONES * u64::from(b'0');
    for (i, &b) in chunks.remainder().iter().enumerate() {
        word = word & !(0xff << (8 * i)) | u64::from(b) << (8 * i);
    }
    escaped(word.to_ne_bytes())
}

/// A string, or null.
pub fn optional(out: &mut Vec<u8>, text: Option<&str>) -> serde_json::Result<()> {
    match text {
        Some(text) => string(out, text),
        None => {
            out.extend_from_slice(b"null");
            Ok(())
        }
    }
}

/// An integer.
pub fn integer(out: &mut Vec<u8>, n: i64) -> serde_json::Result<()> {
    out.extend_from_slice(itoa::Buffer::new().format(n).as_bytes());
    Ok(())
}

/// A `DateTime`, as its scalar answers it ([`Timestamp::to_rfc3339`]).
pub fn timestamp(out: &mut Vec<u8>, at: Timestamp) -> serde_json::Result<()> {
    match at.rfc3339_bytes() {
        Some(text) => {
            out.push(b'"');
            out.extend_from_slice(&text);
            out.push(b'"');
            Ok(())
        }
        None => string(out, &at.to_rfc3339()),
    }
}

/// An enum's value, by its name in the schema (as async-graphql's `enum_value` names it).
pub fn enumerated<E: EnumType>(out: &mut Vec<u8>, value: E) -> serde_json::Result<()> {
    match E::items().iter().find(|item| item.value == value) {
        Some(item) => string(out, item.name),
        None => write_value(out, &async_graphql::resolver_utils::enum_value(value)),
    }
}

/// A response key of a planned object, with its JSON text (`"key":`) written once, when the
/// plan is made: every row of a page writes the same keys.
#[derive(Clone, Debug)]
pub struct Key {
    name: Name,
    written: Box<[u8]>,
}

impl Key {
    pub fn new(name: Name) -> serde_json::Result<Self> {
        let mut written = Vec::with_capacity(name.len() + 3);
        string(&mut written, &name)?;
        written.push(b':');
        Ok(Key {
            name,
            written: written.into_boxed_slice(),
        })
    }

    pub fn name(&self) -> &Name {
        &self.name
    }
}

/// An object of `fields`, each value written by `each` (`{}` when every field was skipped).
pub fn object<'f, T: 'f>(
    out: &mut Vec<u8>,
    fields: &'f [(Key, T)],
    mut each: impl FnMut(&mut Vec<u8>, &'f T) -> serde_json::Result<()>,
) -> serde_json::Result<()> {
    if fields.is_empty() {
        out.extend_from_slice(b"{}");
        return Ok(());
    }
    let mut separator = b'{';
    for (key, part) in fields {
        out.push(separator);
        separator = b',';
        out.extend_from_slice(&key.written);
        each(out, part)?;
    }
    out.push(b'}');
    Ok(())
}

/// A JSON object of `fields`, each value written by `each`.
fn entries<'f, T: 'f>(
    out: &mut Vec<u8>,
    fields: impl IntoIterator<Item = (&'f Name, &'f T)>,
    mut each: impl FnMut(&mut Vec<u8>, &'f T) -> serde_json::Result<()>,
) -> serde_json::Result<()> {
    out.push(b'{');
    for (i, (key, part)) in fields.into_iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        string(out, key)?;
        out.push(b':');
        each(out, part)?;
    }
    out.push(b'}');
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use async_graphql::indexmap::IndexMap;

    fn written(value: &Value) -> String {
        let mut out = Vec::new();
        write_value(&mut out, value).expect("written");
        String::from_utf8(out).expect("utf-8")
    }

    #[test]
    fn a_value_is_written_as_serde_json_writes_it() {
        let mut inner = IndexMap::new();
        inner.insert(Name::new("q\"uote"), Value::from("line\nbreak \u{1} é"));
        inner.insert(Name::new("n"), Value::from(-12_i64));
        inner.insert(Name::new("f"), Value::from(1.5_f64));
        inner.insert(Name::new("e"), Value::Enum(Name::new("SUCCEEDED")));
        inner.insert(Name::new("empty"), Value::Object(IndexMap::new()));
        let mut outer = IndexMap::new();
        outer.insert(
            Name::new("list"),
            Value::List(vec![Value::Null, Value::from(true)]),
        );
        outer.insert(Name::new("inner"), Value::Object(inner));
        outer.insert(Name::new("none"), Value::List(vec![]));
        let value = Value::Object(outer);
        assert_eq!(
            written(&value),
            serde_json::to_string(&value).expect("serialized")
        );
    }

    #[test]
    fn binary_items_are_written_as_the_json_they_hold() {
        let rows = Value::List(vec![
            Value::Binary(bytes::Bytes::from_static(br#"{"id":"pay_1"}"#)),
            Value::Binary(bytes::Bytes::from_static(b"null")),
        ]);
        assert_eq!(written(&rows), r#"[{"id":"pay_1"},null]"#);
        let mut page = IndexMap::new();
        page.insert(Name::new("edges"), rows);
        page.insert(Name::new("totalCount"), Value::from(2));
        assert_eq!(carried_len(&Value::Object(page)), 18);
    }

    #[test]
    fn a_planned_object_is_written_as_its_value_is() {
        let fields: Vec<(Key, Value)> = [("id", Value::from("pay_1")), ("q\"k", Value::from(3))]
            .into_iter()
            .map(|(key, value)| (Key::new(Name::new(key)).expect("key"), value))
            .collect();
        let mut out = Vec::new();
        object(&mut out, &fields, write_value).expect("written");
        let value = Value::Object(
            fields
                .iter()
                .map(|(key, value)| (key.name().clone(), value.clone()))
                .collect(),
        );
        assert_eq!(String::from_utf8(out).expect("utf-8"), written(&value));
        let mut out = Vec::new();
        object(&mut out, &fields[..0], write_value).expect("written");
        assert_eq!(out, b"{}");
    }

    #[test]
    fn every_byte_that_needs_escaping_is_found_wherever_it_is() {
        for len in 1..=20 {
            for at in 0..len {
                for byte in 0..=0x7f_u8 {
                    let mut text = vec![b'a'; len];
                    text[at] = byte;
                    let expected = byte < 0x20 || byte == b'"' || byte == b'\\';
                    assert_eq!(
                        needs_escaping(&text),
                        expected,
                        "{byte:#x} at {at} of {len}"
                    );
                }
            }
        }
        assert!(!needs_escaping("é€ 𝄞 \u{7f}".as_bytes()));
    }

    proptest::proptest! {
        /// Copied or escaped, a string is written as serde_json writes it.
        #[test]
        fn a_string_is_written_as_serde_json_writes_it(text in "(\\PC|[\"\\\\\u{0}-\u{1f}\u{7f}é€])*") {
            let mut out = Vec::new();
            string(&mut out, &text).expect("written");
            proptest::prop_assert_eq!(out, serde_json::to_vec(&text).expect("serialized"));
        }

        /// An integer and a time are written as their values are.
        #[test]
        fn numbers_and_times_are_written_as_their_values(n: i64, micros: i64) {
            let mut out = Vec::new();
            integer(&mut out, n).expect("written");
            proptest::prop_assert_eq!(&out, &serde_json::to_vec(&n).expect("serialized"));
            let at = Timestamp::from_micros(micros);
            out.clear();
            timestamp(&mut out, at).expect("written");
            proptest::prop_assert_eq!(out, serde_json::to_vec(&at.to_rfc3339()).expect("serialized"));
        }
    }

    #[test]
    fn written_leaves_match_their_values() {
        let mut out = Vec::new();
        optional(&mut out, None).expect("written");
        out.push(b' ');
        optional(&mut out, Some("a\\b")).expect("written");
        out.push(b' ');
        integer(&mut out, i64::MIN).expect("written");
        assert_eq!(
            String::from_utf8(out).expect("utf-8"),
            format!("null {} {}", serde_json::json!("a\\b"), i64::MIN)
        );
        let mut fields = Vec::new();
        object::<()>(&mut fields, &[], |_, ()| Ok(())).expect("written");
        assert_eq!(fields, b"{}");
    }
}
