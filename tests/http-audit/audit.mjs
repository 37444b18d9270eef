// Runs graphql-http's server audits (GraphQL over HTTP conformance) against a running
// gateway and prints each one. Exits non-zero unless every audit passes: a failed MUST, a
// SHOULD not followed (a warning) and a MAY not taken (a notice) all count as failures.
//
// Usage: node audit.mjs [URL] [API_KEY]
//   or:  GRAPHPAY_URL=http://127.0.0.1:8000/graphql GRAPHPAY_API_KEY=gpk_... node audit.mjs
// The gateway requires a credential on every request, so each audit request is sent with
// `Authorization: Bearer <API_KEY>`.
import { auditServer } from 'graphql-http';

const url = process.argv[2] ?? process.env.GRAPHPAY_URL;
const key = process.argv[3] ?? process.env.GRAPHPAY_API_KEY;
if (!url || !key) {
  console.error('usage: node audit.mjs URL API_KEY (or GRAPHPAY_URL and GRAPHPAY_API_KEY)');
  process.exit(2);
}

/** `fetch` with the gateway's credential added to whatever headers the audit sends. */
function fetchWithKey(input, init = {}) {
  const headers = new Headers(init.headers ?? {});
  headers.set('authorization', `Bearer ${key}`);
  return fetch(input, { ...init, headers });
}

const results = await auditServer({ url, fetchFn: fetchWithKey });
const tally = { ok: 0, warn: 0, notice: 0, error: 0 };
for (const result of results) {
  tally[result.status] = (tally[result.status] ?? 0) + 1;
  const line = `${result.status.toUpperCase().padEnd(6)} ${result.id} ${result.name}`;
  if (result.status === 'ok') {
    console.log(line);
    continue;
  }
  let body = '';
  try {
    body = await result.response.text();
  } catch {
    // The body may already have been read by the audit.
  }
  console.log(`${line}\n       reason: ${result.reason}\n       status: ${result.response.status}` +
    (body ? `\n       body: ${body.slice(0, 500)}` : ''));
}
const notOk = results.length - tally.ok;
console.log(
  `HTTP audit: ${results.length} audits, ${tally.ok} ok, ${tally.error} failed, ` +
    `${tally.warn} warnings, ${tally.notice} notices`,
);
process.exit(notOk === 0 ? 0 : 1);
