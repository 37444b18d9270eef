//! Where a customer is sent back to after a customer action (3-D Secure): validated once,
//! at the edge.

use std::net::IpAddr;

/// Longest `returnUrl` accepted, in characters.
pub const MAX_RETURN_URL_LEN: usize = 2048;

/// An absolute `https` URL, or `http` on a loopback host (local development), without
/// credentials, at most [`MAX_RETURN_URL_LEN`] characters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReturnUrl(url::Url);

impl ReturnUrl {
    pub fn parse(text: &str) -> Result<Self, String> {
        if text.chars().count() > MAX_RETURN_URL_LEN {
            return Err(format!(
                "returnUrl must be at most {MAX_RETURN_URL_LEN} characters"
            ));
        }
        let url = url::Url::parse(text)
            .map_err(|_| "returnUrl must be an absolute URL, e.g. https://shop.example/done")?;
        let loopback = match url.host() {
            Some(url::Host::Domain(name)) => name.eq_ignore_ascii_case("localhost"),
            Some(url::Host::Ipv4(ip)) => IpAddr::V4(ip).is_loopback(),
            Some(url::Host::Ipv6(ip)) => IpAddr::V6(ip).is_loopback(),
            None => false,
        };
        match url.scheme() {
            "https" if url.host().is_some() => {}
            "http" if loopback => {}
            _ => {
                return Err("returnUrl must be an https URL (http only on a loopback host)".into());
            }
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err("returnUrl must not carry credentials".into());
        }
        Ok(Self(url))
    }

    pub fn as_str(&self) -> &str {
        self.0.as_str()
    }

    /// The URL with `payment_id` added to its query, where the customer lands.
    pub fn with_payment(&self, payment_id: &str) -> String {
        let mut url = self.0.clone();
        url.query_pairs_mut().append_pair("payment_id", payment_id);
        url.into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn https_anywhere_and_http_only_on_loopback_are_accepted() {
        for ok in [
            "https://shop.example/done",
            "https://shop.example/done?order=1#top",
            "http://localhost:3000/back",
            "http://127.0.0.1:8080/back",
            "http://[::1]/back",
        ] {
            assert!(ReturnUrl::parse(ok).is_ok(), "{ok}");
        }
        for bad in [
            "",
            "/relative",
            "http://shop.example/done",
            "ftp://shop.example/",
            "javascript:alert(1)",
            "https://user:pw@shop.example/",
            "data:text/html,hi",
        ] {
            assert!(ReturnUrl::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_length_bound_is_inclusive() {
        let base = "https://shop.example/";
        let at = format!("{base}{}", "a".repeat(MAX_RETURN_URL_LEN - base.len()));
        assert!(ReturnUrl::parse(&at).is_ok());
        let past = format!("{at}a");
        assert!(ReturnUrl::parse(&past).is_err());
    }

    #[test]
    fn the_payment_id_is_added_to_the_query() {
        let url = ReturnUrl::parse("https://shop.example/done?order=8812").unwrap();
        assert_eq!(
            url.with_payment("pay_1"),
            "https://shop.example/done?order=8812&payment_id=pay_1"
        );
    }
}
