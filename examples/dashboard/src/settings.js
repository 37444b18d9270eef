// Where the dashboard finds its gateway and its first client token.

const DEFAULT_GATEWAY = 'http://127.0.0.1:8000';

/** The gateway's base URL: `?gateway=` in the page URL, else VITE_GATEWAY_URL, else a local gateway. */
export function gatewayUrl() {
  const fromPage = new URLSearchParams(window.location.search).get('gateway');
  const url = fromPage || import.meta.env.VITE_GATEWAY_URL || DEFAULT_GATEWAY;
  return url.replace(/\/+$/, '');
}

/** A client token passed in the URL fragment (`#token=gpct_...`), which never reaches a server. */
export function tokenFromFragment() {
  return new URLSearchParams(window.location.hash.slice(1)).get('token') ?? '';
}
