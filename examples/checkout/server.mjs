// A merchant's server for the checkout page, in plain Node (no dependencies): it renders the
// page for each shopper with tokens it mints from the gateway, and serves the built assets.
//
// The secret API key (GRAPHPAY_KEY, gpk_...) stays in this process: it is sent to the gateway
// only, never to the browser. The browser gets what the key mints for one render:
//   - a client token (PAYMENTS_WRITE and PAYMENTS_READ on /, PAYMENTS_READ only on /return),
//     short-lived and limited to those scopes, and
//   - on /, a fresh submit token (sbt_...), which the page uses as the idempotency key of its
//     createPayment: one rendered page creates at most one payment, however often its button
//     is pressed or its request replayed.
//
// Environment:
//   GRAPHPAY_URL       the gateway (default http://127.0.0.1:8000)
//   GRAPHPAY_KEY       a secret API key of the merchant's account (required)
//   HOST, PORT         where to listen (default 127.0.0.1 and 5180; PORT=0 picks a free port)
//   PUBLIC_URL         this server's origin as browsers reach it (default http://HOST:PORT);
//                      the gateway must allow it as a CORS origin
//   CHECKOUT_AMOUNT    the order's total in minor units (default 1999)
//   CHECKOUT_CURRENCY  its currency (default USD)
// Prints `checkout listening on <url>` once it accepts connections.
//
// Run `npm run build` first: the page is served from dist/.

import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const GATEWAY = (process.env.GRAPHPAY_URL || 'http://127.0.0.1:8000').replace(/\/+$/, '');
const KEY = process.env.GRAPHPAY_KEY;
const HOST = process.env.HOST || '127.0.0.1';
const PORT = Number(process.env.PORT ?? 5180);
const AMOUNT = Number(process.env.CHECKOUT_AMOUNT ?? 1999);
const CURRENCY = process.env.CHECKOUT_CURRENCY || 'USD';
const GATEWAY_TIMEOUT_MS = 10_000;

const DIST = fileURLToPath(new URL('./dist/', import.meta.url));
const CONFIG_BLOCK = /(<script type="application\/json" id="checkout-config">)[\s\S]*?(<\/script>)/;
const TYPES = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
};

function fail(message) {
  console.error(`checkout: ${message}`);
  process.exit(1);
}

if (!KEY || !KEY.startsWith('gpk_')) fail('GRAPHPAY_KEY must be a secret API key (gpk_...) of the merchant\'s account');
if (!Number.isInteger(AMOUNT) || AMOUNT < 1) fail('CHECKOUT_AMOUNT must be a positive whole number of minor units');
if (!Number.isInteger(PORT) || PORT < 0 || PORT > 65535) fail('PORT must be a port number');
let template;
try {
  template = readFileSync(join(DIST, 'index.html'), 'utf8');
} catch {
  fail('dist/index.html is missing: run `npm ci && npm run build` in examples/checkout first');
}
if (!CONFIG_BLOCK.test(template)) fail('dist/index.html has no #checkout-config block: rebuild it');
const GATEWAY_ORIGIN = new URL(GATEWAY).origin;

/** Runs `query` on the gateway with the secret key; its data, or an Error naming the code. */
async function gateway(query, variables = {}) {
  const response = await fetch(`${GATEWAY}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
    body: JSON.stringify({ query, variables }),
    signal: AbortSignal.timeout(GATEWAY_TIMEOUT_MS),
  });
  const body = await response.json();
  const error = body.errors?.[0];
  if (error || !body.data) {
    throw new Error(`the gateway answered ${error?.extensions?.code ?? response.status}: ${error?.message ?? 'no data'}`);
  }
  return body.data;
}

const MINT_CHECKOUT = `mutation MintCheckoutTokens {
  clientToken: createClientToken(input: {scopes: [PAYMENTS_WRITE, PAYMENTS_READ], ttlSeconds: 900}) { token expiresAt }
  submitToken: createSubmitToken(input: {ttlSeconds: 1800}) { token expiresAt }
}`;
const MINT_READER = `mutation MintReaderToken {
  clientToken: createClientToken(input: {scopes: [PAYMENTS_READ], ttlSeconds: 900}) { token expiresAt }
}`;

/** JSON that can sit inside a <script> element: nothing in it can close the element. */
function scriptSafeJson(value) {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

function page(config) {
  return template.replace(CONFIG_BLOCK, (_, open, close) => `${open}${scriptSafeJson(config)}${close}`);
}

/** A payment id as the gateway makes them; anything else is not passed on. */
const paymentId = (value) => (value && /^[A-Za-z0-9_]{1,64}$/.test(value) ? value : null);

function send(res, status, headers, body) {
  res.writeHead(status, { 'x-content-type-options': 'nosniff', ...headers });
  res.end(res.req.method === 'HEAD' ? undefined : body);
}

function sendPage(res, config) {
  send(res, 200, {
    'content-type': 'text/html; charset=utf-8',
    // The page carries tokens: never cached, never framed, sent to no one as a referrer.
    'cache-control': 'no-store',
    'referrer-policy': 'no-referrer',
    'content-security-policy': `default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; `
      + `connect-src ${GATEWAY_ORIGIN}; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
  }, page(config));
}

async function serveAsset(res, name) {
  if (!/^[A-Za-z0-9._-]+$/.test(name) || name.startsWith('.')) return send(res, 404, {}, 'not found');
  let body;
  try {
    body = await readFile(join(DIST, 'assets', name));
  } catch {
    return send(res, 404, {}, 'not found');
  }
  send(res, 200, {
    'content-type': TYPES[extname(name)] ?? 'application/octet-stream',
    'cache-control': 'public, max-age=31536000, immutable',
  }, body);
}

async function handle(req, res, origin) {
  if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, { allow: 'GET, HEAD' }, 'method not allowed');
  const url = new URL(req.url, origin);
  if (url.pathname === '/') {
    const { clientToken, submitToken } = await gateway(MINT_CHECKOUT);
    return sendPage(res, {
      page: 'checkout',
      gateway: GATEWAY,
      clientToken: clientToken.token,
      submitToken: submitToken.token,
      amount: AMOUNT,
      currency: CURRENCY,
      description: 'graphpay sandbox order',
      returnUrl: `${origin}/return`,
    });
  }
  if (url.pathname === '/return') {
    const { clientToken } = await gateway(MINT_READER);
    return sendPage(res, {
      page: 'return',
      gateway: GATEWAY,
      clientToken: clientToken.token,
      paymentId: paymentId(url.searchParams.get('payment_id')),
    });
  }
  if (url.pathname.startsWith('/assets/')) return serveAsset(res, url.pathname.slice('/assets/'.length));
  return send(res, 404, { 'content-type': 'text/plain; charset=utf-8' }, 'not found');
}

let origin;
const server = createServer((req, res) => {
  handle(req, res, origin).catch((error) => {
    // The message names the gateway's error code, never the key.
    console.error(`checkout: ${req.method} ${req.url.split('?')[0]} failed: ${error.message}`);
    if (!res.headersSent) {
      send(res, 502, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' },
        'The checkout cannot reach the payment service right now. Please try again in a moment.');
    }
  });
});
server.listen(PORT, HOST, () => {
  const { port } = server.address();
  origin = (process.env.PUBLIC_URL || `http://${HOST.includes(':') ? `[${HOST}]` : HOST}:${port}`).replace(/\/+$/, '');
  console.log(`checkout listening on ${origin} (gateway ${GATEWAY})`);
});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(0));
