//! Secrets at rest: webhook signing secrets and the gateway's own signing secrets are stored
//! sealed with AES-256-GCM under a key the operator provides (never kept in the database).
//! A sealed value is `sealed:v1:` and the base64 of a random 12-byte nonce followed by the
//! ciphertext and its tag. A value without that prefix is a secret stored before a key was
//! configured: it is read as it is, and sealed when the gateway next starts with a key.

use aes_gcm::Aes256Gcm;
use aes_gcm::aead::{Aead, KeyInit};
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use rand::RngCore;

const PREFIX: &str = "sealed:v1:";
const NONCE_LEN: usize = 12;
/// The operator's key: 32 bytes, given as standard base64.
pub const KEY_LEN: usize = 32;

/// Why a stored secret could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SealError {
    #[error("a secret is stored sealed, and no secrets key is configured")]
    NoKey,
    #[error("a sealed secret does not open with the configured secrets key")]
    WrongKey,
    #[error("the secrets key must be the standard base64 of 32 bytes")]
    BadKey,
}

/// Seals secrets before they are stored and opens them when they are read; without a key,
/// stores them as they are.
#[derive(Clone)]
pub struct Sealer {
    cipher: Option<std::sync::Arc<Aes256Gcm>>,
}

impl std::fmt::Debug for Sealer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.cipher.is_some() {
            "Sealer(<key>)"
        } else {
            "Sealer(none)"
        })
    }
}

impl Sealer {
    /// Stores secrets as they are (and reads sealed ones as [`SealError::NoKey`]).
    pub fn none() -> Self {
        Self { cipher: None }
    }

    /// A sealer with the operator's key, given as standard base64 of 32 bytes (surrounding
    /// white space, such as a file's last newline, is ignored).
    pub fn from_base64(key: &str) -> Result<Self, SealError> {
        let bytes = STANDARD.decode(key.trim()).map_err(|_| SealError::BadKey)?;
        if bytes.len() != KEY_LEN {
            return Err(SealError::BadKey);
        }
        let cipher = Aes256Gcm::new_from_slice(&bytes).map_err(|_| SealError::BadKey)?;
        Ok(Self {
            cipher: Some(std::sync::Arc::new(cipher)),
        })
    }

    /// A new random key, as standard base64 (for `graphpay secrets new-key`).
    pub fn generate_key() -> String {
        let mut key = [0u8; KEY_LEN];
        rand::rng().fill_bytes(&mut key);
        STANDARD.encode(key)
    }

    pub fn has_key(&self) -> bool {
        self.cipher.is_some()
    }

    /// The stored form of `secret`.
    pub fn seal(&self, secret: &str) -> String {
        let Some(cipher) = &self.cipher else {
            return secret.to_string();
        };
        let mut nonce = [0u8; NONCE_LEN];
        rand::rng().fill_bytes(&mut nonce);
        // Encryption fails only for inputs of gigabytes.
        let sealed = cipher
            .encrypt(&nonce.into(), secret.as_bytes())
            .unwrap_or_default();
        let mut bytes = nonce.to_vec();
        bytes.extend_from_slice(&sealed);
        format!("{PREFIX}{}", STANDARD.encode(bytes))
    }

    /// The secret of a stored value, sealed or not.
    pub fn open(&self, stored: &str) -> Result<String, SealError> {
        let Some(encoded) = stored.strip_prefix(PREFIX) else {
            return Ok(stored.to_string());
        };
        let cipher = self.cipher.as_ref().ok_or(SealError::NoKey)?;
        let bytes = STANDARD.decode(encoded).map_err(|_| SealError::WrongKey)?;
        if bytes.len() < NONCE_LEN {
            return Err(SealError::WrongKey);
        }
        let (nonce, sealed) = bytes.split_at(NONCE_LEN);
        let nonce: [u8; NONCE_LEN] = nonce.try_into().map_err(|_| SealError::WrongKey)?;
        let plain = cipher
            .decrypt(&nonce.into(), sealed)
            .map_err(|_| SealError::WrongKey)?;
        String::from_utf8(plain).map_err(|_| SealError::WrongKey)
    }

    /// Whether a stored value is sealed.
    pub fn is_sealed(stored: &str) -> bool {
        stored.starts_with(PREFIX)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sealed_secrets_open_with_their_key_only() {
        let sealer = Sealer::from_base64(&Sealer::generate_key()).unwrap();
        let sealed = sealer.seal("whsec_abc");
        assert!(Sealer::is_sealed(&sealed));
        assert!(!sealed.contains("whsec_abc"));
        assert_ne!(sealer.seal("whsec_abc"), sealed, "a fresh nonce each time");
        assert_eq!(sealer.open(&sealed).unwrap(), "whsec_abc");
        let other = Sealer::from_base64(&Sealer::generate_key()).unwrap();
        assert_eq!(other.open(&sealed), Err(SealError::WrongKey));
        assert_eq!(Sealer::none().open(&sealed), Err(SealError::NoKey));
        assert_eq!(sealer.open("whsec_plain").unwrap(), "whsec_plain");
        assert_eq!(Sealer::none().seal("x"), "x");
    }

    #[test]
    fn keys_must_be_32_bytes_of_base64() {
        assert!(Sealer::from_base64(&STANDARD.encode([1u8; 31])).is_err());
        assert!(Sealer::from_base64("not base64!").is_err());
        assert!(Sealer::from_base64(&format!("{}\n", STANDARD.encode([1u8; 32]))).is_ok());
    }
}
