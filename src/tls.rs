//! Outgoing TLS, set up in one place for every HTTP client of the process (the processor's,
//! the sandbox's and merchant webhooks'): the process's crypto provider, and the client
//! configuration with the Mozilla root certificates (webpki-roots).

use std::sync::Arc;

/// Makes `ring` the process's default TLS provider, once. Every HTTP client in the process
/// then finds one, as the TLS library requires.
pub fn install_default_provider() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // Err only when a provider is installed already, which is as good.
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
}

/// The TLS configuration of an outgoing client: the ring provider, safe protocol versions,
/// and the Mozilla root certificates, whatever the machine's own store holds.
pub fn client_config() -> Result<rustls::ClientConfig, String> {
    let mut roots = rustls::RootCertStore::empty();
    roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| format!("cannot set up TLS: {e}"))?
        .with_root_certificates(roots)
        .with_no_client_auth();
    Ok(config)
}
