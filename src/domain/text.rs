//! Free text that clients attach to payments and refunds (descriptions, reasons).

/// At most `max_chars` characters, and no control characters (which have no place in a
/// description and break logs and receipts).
pub fn is_acceptable(text: &str, max_chars: usize) -> bool {
    text.chars().count() <= max_chars && !text.chars().any(char::is_control)
}

#[cfg(test)]
mod tests {
    use super::is_acceptable;

    #[test]
    fn bounds_length_in_characters_and_refuses_control_characters() {
        assert!(is_acceptable("Order 42 — thank you", 20));
        assert!(is_acceptable("", 0));
        assert!(!is_acceptable("ééé", 2));
        assert!(!is_acceptable("line\nbreak", 100));
    }
}
