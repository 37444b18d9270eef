//! Trusted documents (persisted queries): operations registered ahead of time in a manifest,
//! run by id (`{"documentId": "<id>", "variables": {...}}`) over `POST`, `GET` and the
//! WebSocket alike. The manifest is a JSON object mapping each id to its document text,
//! exactly as `relay-compiler` writes it with `persistConfig`.
//!
//! The manifest is read once, at start-up, and bounded: at most [`MAX_MANIFEST_BYTES`] bytes
//! and [`MAX_DOCUMENTS`] documents, ids of at most [`MAX_ID_BYTES`] bytes in the syntax of the
//! GraphQL-over-HTTP persisted documents proposal (letters, digits, `-`, `.`, `_`, `~`, and `:`
//! for prefixed ids such as `sha256:<hex>`), no id twice, no empty document. A document run by
//! id is held to the same limits, cost, budget and scopes as any other request.
//!
//! The operator may also require client tokens (the credentials of browsers) to run trusted
//! documents only; secret API keys may always send free query text.

use std::collections::HashMap;
use std::fmt;
use std::io::Read;
use std::path::Path;
use std::sync::{Arc, OnceLock};

use serde::de::{Deserializer, MapAccess, Visitor};

use super::prevalidated::Parsed;
use crate::error::ApiError;
use crate::service::accounts::Caller;

/// Largest manifest file read, in bytes.
pub const MAX_MANIFEST_BYTES: usize = 16 * 1024 * 1024;
/// Most documents one manifest may register.
pub const MAX_DOCUMENTS: usize = 10_000;
/// Longest document id, in bytes.
pub const MAX_ID_BYTES: usize = 256;

/// What a request asks to run: free query text, or a trusted document by id.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DocumentSource {
    Text(String),
    Id(String),
}

/// Why a manifest was refused at start-up.
#[derive(Debug, thiserror::Error)]
pub enum ManifestError {
    #[error("cannot read the trusted documents manifest {path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error(
        "the trusted documents manifest {path} is larger than {MAX_MANIFEST_BYTES} bytes; \
         split the operations over fewer, smaller documents"
    )]
    TooLarge { path: String },
    #[error(
        "the trusted documents manifest {path} is not a JSON object mapping document ids to \
         document text (as relay-compiler's persistConfig writes it): {reason}"
    )]
    Malformed { path: String, reason: String },
    #[error(
        "the trusted document {id:?} of {path} does not validate against the schema: {reason}; \
         regenerate the manifest with relay-compiler against this gateway's schema.graphql"
    )]
    Invalid {
        path: String,
        id: String,
        reason: String,
    },
}

/// The registered documents, and whether client tokens may run only them.
#[derive(Clone, Debug, Default)]
pub struct TrustedDocuments {
    documents: Arc<HashMap<String, Entry>>,
    client_tokens_only: bool,
}

/// A registered document: its text and, once the manifest has passed validation
/// ([`super::prevalidated::validate_manifest`]), the document parsed from it, which every
/// request that runs it shares.
struct Entry {
    text: Arc<str>,
    parsed: OnceLock<Arc<Parsed>>,
}

impl fmt::Debug for Entry {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.debug_struct("Entry")
            .field("text", &self.text)
            .field("parsed", &self.parsed.get().is_some())
            .finish()
    }
}

impl TrustedDocuments {
    /// No registered documents; every credential may send free text.
    pub fn none() -> Self {
        Self::default()
    }

    /// Reads and checks the manifest at `path` (see the module's bounds).
    pub fn load(path: &Path) -> Result<Self, ManifestError> {
        let shown = path.display().to_string();
        let file = std::fs::File::open(path).map_err(|source| ManifestError::Read {
            path: shown.clone(),
            source,
        })?;
        // One byte more than allowed tells a file that is too large from one that just fits.
        let mut bytes = Vec::new();
        file.take(MAX_MANIFEST_BYTES as u64 + 1)
            .read_to_end(&mut bytes)
            .map_err(|source| ManifestError::Read {
                path: shown.clone(),
                source,
            })?;
        if bytes.len() > MAX_MANIFEST_BYTES {
            return Err(ManifestError::TooLarge { path: shown });
        }
        Self::parse(&bytes).map_err(|reason| ManifestError::Malformed {
            path: shown,
            reason,
        })
    }

    /// Reads a manifest's bytes; `Err` says what is wrong with them.
    pub fn parse(bytes: &[u8]) -> Result<Self, String> {
        let mut deserializer = serde_json::Deserializer::from_slice(bytes);
        let documents = deserializer
            .deserialize_map(ManifestVisitor)
            .and_then(|documents| deserializer.end().map(|()| documents))
            .map_err(|err| err.to_string())?;
        let documents = documents
            .into_iter()
            .map(|(id, text)| {
                let parsed = OnceLock::new();
                (id, Entry { text, parsed })
            })
            .collect();
        Ok(Self {
            documents: Arc::new(documents),
            client_tokens_only: false,
        })
    }

    /// Requires client tokens to run registered documents only (or not).
    pub fn client_tokens_only(self, only: bool) -> Self {
        Self {
            client_tokens_only: only,
            ..self
        }
    }

    pub fn len(&self) -> usize {
        self.documents.len()
    }

    pub fn is_empty(&self) -> bool {
        self.documents.is_empty()
    }

    /// Every registered document: its id and text.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.documents
            .iter()
            .map(|(id, entry)| (id.as_str(), entry.text.as_ref()))
    }

    /// Keeps the document parsed (and validated) from the text registered as `id`.
    pub(crate) fn keep_parsed(&self, id: &str, parsed: Arc<Parsed>) {
        if let Some(entry) = self.documents.get(id) {
            let _ = entry.parsed.set(parsed);
        }
    }

    /// The document registered as `id`, as parsed when the manifest was validated.
    pub(crate) fn parsed(&self, id: &str) -> Option<Arc<Parsed>> {
        self.documents.get(id)?.parsed.get().cloned()
    }

    /// The document text `caller` may run for `source`: a registered document's text, or free
    /// text unless the caller is a client token held to trusted documents.
    pub fn resolve(
        &self,
        source: DocumentSource,
        caller: Option<&Caller>,
    ) -> Result<String, ApiError> {
        match source {
            DocumentSource::Id(id) => match self.documents.get(&id) {
                Some(entry) => Ok(entry.text.to_string()),
                None => Err(ApiError::PersistedQueryNotFound(id)),
            },
            DocumentSource::Text(text) => {
                if self.client_tokens_only && caller.is_some_and(Caller::is_client_token) {
                    Err(ApiError::PersistedQueryRequired)
                } else {
                    Ok(text)
                }
            }
        }
    }
}

/// Whether `id` has the persisted documents proposal's syntax.
fn valid_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= MAX_ID_BYTES
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b':'))
}

/// Reads the manifest's object entry by entry, refusing as soon as a bound is passed.
struct ManifestVisitor;

impl<'de> Visitor<'de> for ManifestVisitor {
    type Value = HashMap<String, Arc<str>>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an object mapping document ids to document text")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        use serde::de::Error;
        let mut documents = HashMap::new();
        while let Some((id, text)) = map.next_entry::<String, String>()? {
            if !valid_id(&id) {
                return Err(A::Error::custom(format!(
                    "the document id {:?} is not 1 to {MAX_ID_BYTES} letters, digits or any of \
                     `-._~:`",
                    truncated(&id)
                )));
            }
            if text.trim().is_empty() {
                return Err(A::Error::custom(format!("the document {id:?} is empty")));
            }
            if documents.len() == MAX_DOCUMENTS {
                return Err(A::Error::custom(format!(
                    "it registers more than {MAX_DOCUMENTS} documents"
                )));
            }
            if documents.insert(id.clone(), Arc::from(text)).is_some() {
                return Err(A::Error::custom(format!(
                    "the document id {id:?} appears twice"
                )));
            }
        }
        Ok(documents)
    }
}

/// At most the first 64 characters of `id`, for messages.
fn truncated(id: &str) -> String {
    id.chars().take(64).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::service::accounts::Credential;

    fn token() -> Caller {
        Caller {
            account_id: "acct".into(),
            key_id: "key".into(),
            credential: Credential::ClientToken,
            scopes: Some(Default::default()),
            expires_at: None,
        }
    }

    fn secret_key() -> Caller {
        Caller {
            credential: Credential::SecretKey,
            scopes: None,
            ..token()
        }
    }

    #[test]
    fn reads_a_manifest_and_resolves_ids() {
        let docs = TrustedDocuments::parse(br#"{"abc": "query A { viewer { id } }"}"#).unwrap();
        assert_eq!(docs.len(), 1);
        assert_eq!(
            docs.resolve(DocumentSource::Id("abc".into()), None)
                .unwrap(),
            "query A { viewer { id } }"
        );
        let missing = docs.resolve(DocumentSource::Id("abd".into()), None);
        assert!(matches!(missing, Err(ApiError::PersistedQueryNotFound(id)) if id == "abd"));
    }

    #[test]
    fn free_text_is_refused_only_to_client_tokens_held_to_trusted_documents() {
        let text = || DocumentSource::Text("{ viewer { id } }".into());
        let open = TrustedDocuments::none();
        assert!(open.resolve(text(), Some(&token())).is_ok());
        let only = TrustedDocuments::none().client_tokens_only(true);
        assert!(matches!(
            only.resolve(text(), Some(&token())),
            Err(ApiError::PersistedQueryRequired)
        ));
        assert!(only.resolve(text(), Some(&secret_key())).is_ok());
    }

    #[test]
    fn refuses_manifests_that_are_not_an_id_to_text_object() {
        for bad in [
            &b"[]"[..],
            b"{\"a\": 1}",
            b"{\"a\": \"{ x }\"",
            b"{\"a\": \"{ x }\"} trailing",
            b"{\"\": \"{ x }\"}",
            b"{\"a b\": \"{ x }\"}",
            b"{\"a\": \"  \"}",
            b"{\"a\": \"{ x }\", \"a\": \"{ y }\"}",
        ] {
            assert!(
                TrustedDocuments::parse(bad).is_err(),
                "{}",
                String::from_utf8_lossy(bad)
            );
        }
        let long_id = format!("{{\"{}\": \"{{ x }}\"}}", "a".repeat(MAX_ID_BYTES + 1));
        assert!(TrustedDocuments::parse(long_id.as_bytes()).is_err());
        let prefixed = format!("{{\"sha256:{}\": \"{{ x }}\"}}", "0f".repeat(32));
        assert!(TrustedDocuments::parse(prefixed.as_bytes()).is_ok());
    }

    #[test]
    fn refuses_more_documents_than_the_bound() {
        let entries: Vec<String> = (0..=MAX_DOCUMENTS)
            .map(|i| format!("\"d{i}\": \"{{ x }}\""))
            .collect();
        let manifest = format!("{{{}}}", entries.join(","));
        let err = TrustedDocuments::parse(manifest.as_bytes()).unwrap_err();
        assert!(err.contains("more than"), "{err}");
        let fits = format!("{{{}}}", entries[..MAX_DOCUMENTS].join(","));
        assert_eq!(
            TrustedDocuments::parse(fits.as_bytes()).unwrap().len(),
            MAX_DOCUMENTS
        );
    }
}
