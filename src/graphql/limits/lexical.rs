//! Bounds checked on a document's text before it is parsed: its size, how deeply its brackets
//! nest and how many tokens it has. The parser recurses once per nesting level, so without
//! this check a few kilobytes of `[[[[...` overflow a worker thread's stack. The scan is one
//! pass over the bytes, with no allocation.

/// Limits on a document's text.
#[derive(Clone, Copy, Debug)]
pub struct TextLimits {
    pub max_bytes: usize,
    /// Deepest nesting of `{`, `[` and `(` together.
    pub max_nesting: usize,
    pub max_tokens: usize,
}

/// Why a document's text was refused.
#[derive(Debug, PartialEq, Eq)]
pub enum TextRefusal {
    TooLarge { bytes: usize, max: usize },
    NestedTooDeep { max: usize },
    TooManyTokens { max: usize },
}

impl TextRefusal {
    pub fn message(&self) -> String {
        match self {
            TextRefusal::TooLarge { bytes, max } => {
                format!("the document is {bytes} bytes; at most {max} are accepted")
            }
            TextRefusal::NestedTooDeep { max } => format!(
                "the document nests braces, brackets and parentheses deeper than {max} levels"
            ),
            TextRefusal::TooManyTokens { max } => {
                format!("the document has more than {max} tokens")
            }
        }
    }
}

/// Scans `text` once and refuses it as soon as a limit is passed.
pub fn check(text: &str, limits: TextLimits) -> Result<(), TextRefusal> {
    if text.len() > limits.max_bytes {
        return Err(TextRefusal::TooLarge {
            bytes: text.len(),
            max: limits.max_bytes,
        });
    }
    let bytes = text.as_bytes();
    let (mut i, mut depth, mut tokens) = (0usize, 0usize, 0usize);
    while i < bytes.len() {
        let b = bytes[i];
        match b {
            b' ' | b'\t' | b'\n' | b'\r' | b',' => {
                i += 1;
                continue;
            }
            b'#' => {
                while i < bytes.len() && bytes[i] != b'\n' && bytes[i] != b'\r' {
                    i += 1;
                }
                continue;
            }
            b'"' => i = skip_string(bytes, i),
            b'{' | b'[' | b'(' => {
                depth += 1;
                if depth > limits.max_nesting {
                    return Err(TextRefusal::NestedTooDeep {
                        max: limits.max_nesting,
                    });
                }
                i += 1;
            }
            b'}' | b']' | b')' => {
                depth = depth.saturating_sub(1);
                i += 1;
            }
            b'.' if bytes[i..].starts_with(b"...") => i += 3,
            b if is_name_byte(b) || b == b'-' => {
                i += 1;
                while i < bytes.len() && (is_name_byte(bytes[i]) || bytes[i] == b'.') {
                    i += 1;
                }
            }
            _ => i += 1,
        }
        tokens += 1;
        if tokens > limits.max_tokens {
            return Err(TextRefusal::TooManyTokens {
                max: limits.max_tokens,
            });
        }
    }
    Ok(())
}

fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// The index just past the string (or block string) that starts at `start`; the end of the
/// text when it is not closed (the parser then reports the error).
fn skip_string(bytes: &[u8], start: usize) -> usize {
    if bytes[start..].starts_with(b"\"\"\"") {
        let mut i = start + 3;
        while i < bytes.len() {
            if bytes[i] == b'\\' && bytes[i..].starts_with(b"\\\"\"\"") {
                i += 4;
            } else if bytes[i..].starts_with(b"\"\"\"") {
                return i + 3;
            } else {
                i += 1;
            }
        }
        return bytes.len();
    }
    let mut i = start + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return i + 1,
            b'\n' | b'\r' => return i,
            _ => i += 1,
        }
    }
    bytes.len()
}

/// How deeply a JSON-like value nests (a scalar is 0, `[]` and `{}` are 1).
pub fn value_depth(value: &async_graphql::Value, max: usize) -> Result<(), TextRefusal> {
    fn depth(value: &async_graphql::Value, at: usize, max: usize) -> bool {
        use async_graphql::Value;
        match value {
            Value::List(items) => at < max && items.iter().all(|v| depth(v, at + 1, max)),
            Value::Object(fields) => at < max && fields.values().all(|v| depth(v, at + 1, max)),
            _ => true,
        }
    }
    if depth(value, 0, max) {
        Ok(())
    } else {
        Err(TextRefusal::NestedTooDeep { max })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIMITS: TextLimits = TextLimits {
        max_bytes: 1_000,
        max_nesting: 4,
        max_tokens: 20,
    };

    #[test]
    fn a_small_document_passes() {
        assert_eq!(check("{ viewer { id name } }", LIMITS), Ok(()));
    }

    #[test]
    fn brackets_inside_strings_and_comments_do_not_count() {
        let text = "{ a(x: \"[[[[[[[[\") # {{{{{{{{{{\n { b(y: \"\"\"((((((\\\"\"\"((\"\"\") } }";
        assert_eq!(check(text, LIMITS), Ok(()));
    }

    #[test]
    fn nesting_is_counted_across_kinds_of_bracket() {
        assert_eq!(check("{ a(x: [{ y: 1 }]) }", LIMITS), Ok(()));
        assert_eq!(
            check("{ a(x: [[{ y: 1 }]]) }", LIMITS),
            Err(TextRefusal::NestedTooDeep { max: 4 })
        );
    }

    #[test]
    fn deep_nesting_is_refused_without_reading_further() {
        let text = "[".repeat(100_000);
        let limits = TextLimits {
            max_bytes: 1 << 20,
            ..LIMITS
        };
        assert_eq!(
            check(&text, limits),
            Err(TextRefusal::NestedTooDeep { max: 4 })
        );
    }

    #[test]
    fn size_and_token_count_are_bounded() {
        assert!(matches!(
            check(&"a ".repeat(600), LIMITS),
            Err(TextRefusal::TooLarge { bytes: 1_200, .. })
        ));
        assert_eq!(
            check(&"a ".repeat(21), LIMITS),
            Err(TextRefusal::TooManyTokens { max: 20 })
        );
        assert_eq!(check(&"a ".repeat(20), LIMITS), Ok(()));
        assert_eq!(check("{ ...F }", LIMITS), Ok(()));
    }

    #[test]
    fn value_depth_counts_lists_and_objects() {
        let value: async_graphql::Value = serde_json::from_str(r#"{"a": [[{"b": 1}]]}"#).unwrap();
        assert_eq!(value_depth(&value, 4), Ok(()));
        assert_eq!(
            value_depth(&value, 3),
            Err(TextRefusal::NestedTooDeep { max: 3 })
        );
    }
}
