// Drives the built dashboard (examples/dashboard/dist) in Debian's Chromium against a running
// gateway, and checks what a merchant would see: every payment exactly once and in order while
// paging with "Load more"; a payment's reference and metadata in its details; a refund's new
// status arriving over the subscription, not by a reload; a read-only token's refund refused
// with FORBIDDEN on the page; and, when the page's WebSocket drops while payments change, every
// change heard exactly once after it reconnects (resumed after the last event it heard), the
// list showing each change once.
//
// Started by tests/api/dashboard_browser.rs, which passes everything in the environment:
//   DASHBOARD_URL    where the built dashboard is served (another origin than the gateway)
//   GATEWAY_URL      the gateway's base URL
//   CLIENT_TOKEN     a PAYMENTS_READ + REFUNDS_WRITE client token
//   READ_ONLY_TOKEN  a PAYMENTS_READ client token
//   SECRET_KEY       the account's secret key, used by this script (never by the page) to make
//                    probe payments until the page is seen to hear changes, to change payments
//                    while the page is offline, and to read the event log
//   EXPECTED_IDS     JSON array of every payment id, newest first
//   EXPECTED_DATA    JSON object: each payment's `{ reference, metadata: [{ key, value }] }` as
//                    created, by id
//   MANIFEST         path of the dashboard's persisted-documents.json
//   SCREENSHOT       where to save the screenshot (.png); others get -forbidden and -reconnect
//                    suffixes
// Exits 0 when every check passed; otherwise prints the check that failed and exits 1.

import { readFileSync } from 'node:fs';
import { launch } from './chromium.mjs';

const env = (name) => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
};
const DASHBOARD_URL = env('DASHBOARD_URL');
const GATEWAY_URL = env('GATEWAY_URL');
const EXPECTED_IDS = JSON.parse(env('EXPECTED_IDS'));
const EXPECTED_DATA = JSON.parse(env('EXPECTED_DATA'));
const SCREENSHOT = env('SCREENSHOT');
const MANIFEST = JSON.parse(readFileSync(env('MANIFEST'), 'utf8'));
const WAIT = 15_000;

let checks = 0;
function check(condition, what) {
  if (!condition) throw new Error(`check failed: ${what}`);
  checks += 1;
  console.log(`ok ${checks} - ${what}`);
}

function operationOf(documentId) {
  return MANIFEST[documentId]?.match(/^(query|mutation|subscription) (\w+)/)?.[2];
}

/** Runs a GraphQL operation with the secret key (as the merchant's server would); its data. */
async function gateway(query, variables = {}) {
  const response = await fetch(`${GATEWAY_URL}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${env('SECRET_KEY')}` },
    body: JSON.stringify({ query, variables }),
  });
  const body = await response.json();
  if (body.errors?.length || !body.data) throw new Error(`the gateway refused ${query.split('(')[0]}: ${JSON.stringify(body)}`);
  return body.data;
}

let currentPage = null;

/**
 * Opens the dashboard with `token` and records what the page sends and hears; each WebSocket
 * frame is tagged with the number of its socket (0 for the first the page opened). `beforeLoad`
 * runs on the page before it loads.
 */
async function openDashboard(browser, token, beforeLoad = async () => {}) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  currentPage = page;
  await beforeLoad(page);
  const seen = { posts: [], sent: [], received: [], sockets: 0, closed: new Set(), navigations: 0, pageErrors: [] };
  page.on('pageerror', (error) => seen.pageErrors.push(String(error)));
  page.on('framenavigated', (frame) => {
    if (frame === page.mainFrame()) seen.navigations += 1;
  });
  page.on('request', (request) => {
    if (request.method() === 'POST' && request.url() === `${GATEWAY_URL}/graphql`) {
      seen.posts.push(JSON.parse(request.postData()));
    }
  });
  page.on('websocket', (ws) => {
    const socket = seen.sockets++;
    ws.on('framesent', ({ payload }) => seen.sent.push({ ...JSON.parse(payload), socket }));
    ws.on('framereceived', ({ payload }) => seen.received.push({ ...JSON.parse(payload), socket }));
    ws.on('close', () => seen.closed.add(socket));
  });
  const query = new URLSearchParams({ gateway: GATEWAY_URL });
  await page.goto(`${DASHBOARD_URL}/?${query}#token=${encodeURIComponent(token)}`);
  return { page, seen };
}

const rows = (page) => page.getByTestId('payment-row');
const row = (page, id) => page.locator(`[data-testid="payment-row"][data-id="${id}"]`);

async function rowIds(page) {
  return rows(page).evaluateAll((all) => all.map((tr) => tr.dataset.id));
}

/** The event edges heard on the page's WebSocket number `socket`, in order. */
function heardOn(seen, socket) {
  return seen.received
    .filter((frame) => frame.socket === socket && frame.type === 'next' && frame.payload?.data?.events)
    .map((frame) => frame.payload.data.events);
}

/** The event ids the live updates list shows, newest first. */
async function liveEventIds(page) {
  return page.getByTestId('live-update').evaluateAll((all) => all.map((li) => li.dataset.event));
}

const byKey = (a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);

/** Checks that `details` show `expected.reference` and `expected.metadata`, sorted by key. */
async function checkMerchantData(details, id, expected) {
  const reference = await details.getByTestId('reference').innerText();
  check(reference === expected.reference, `the details of ${id} show its reference ${expected.reference} (shown: ${reference})`);
  const shown = await details
    .getByTestId('metadata-entry')
    .evaluateAll((all) => all.map((entry) => ({
      key: entry.querySelector('dt').textContent,
      value: entry.querySelector('dd').textContent,
    })));
  const wanted = [...expected.metadata].sort(byKey);
  check(
    JSON.stringify(shown) === JSON.stringify(wanted),
    `the details of ${id} show its metadata, sorted by key (shown: ${JSON.stringify(shown)})`,
  );
}

/** Clicks "Load more" until it is gone, checking the list grows by a page each time. */
async function loadEverything(page) {
  await rows(page).first().waitFor({ timeout: WAIT });
  const loadMore = page.getByRole('button', { name: 'Load more' });
  let shown = await rows(page).count();
  let pages = 1;
  while (await loadMore.isVisible()) {
    await loadMore.click();
    await page.waitForFunction(
      (before) => document.querySelectorAll('[data-testid="payment-row"]').length > before,
      shown,
      { timeout: WAIT },
    );
    shown = await rows(page).count();
    pages += 1;
    if (pages > 20) throw new Error('"Load more" never went away');
  }
  return pages;
}

/** Makes probe payments until the page's live updates show one: the subscription is then live. */
async function waitUntilLive(page) {
  await page.getByTestId('live-status').filter({ hasText: 'connected' }).waitFor({ timeout: WAIT });
  for (let attempt = 0; attempt < 30; attempt += 1) {
    const data = await gateway(
      `mutation Probe($key: String!) {
        createPayment(input: {amount: 1, currency: "USD", source: "tok_visa", confirm: false, description: "probe"},
                      idempotencyKey: $key) { payment { id } } }`,
      { key: `probe-${attempt}-${Date.now()}` },
    );
    const probe = data.createPayment.payment.id;
    const heard = page.locator(`[data-testid="live-update"][data-id="${probe}"]`);
    if (await heard.waitFor({ timeout: 1_000 }).then(() => true, () => false)) return attempt + 1;
  }
  throw new Error('the page never heard a probe payment over its subscription');
}

async function pagingRefundAndFilter(browser) {
  const { page, seen } = await openDashboard(browser, env('CLIENT_TOKEN'));

  const pages = await loadEverything(page);
  const ids = await rowIds(page);
  check(ids.length === EXPECTED_IDS.length, `${ids.length} rows shown after ${pages} pages, ${EXPECTED_IDS.length} expected`);
  check(new Set(ids).size === ids.length, 'no payment is shown twice');
  const firstMismatch = ids.findIndex((id, i) => id !== EXPECTED_IDS[i]);
  check(firstMismatch === -1, `every payment in order, newest first${firstMismatch === -1 ? '' : ` (row ${firstMismatch} is ${ids[firstMismatch]}, expected ${EXPECTED_IDS[firstMismatch]})`}`);
  check(await page.getByTestId('count').innerText() === `${EXPECTED_IDS.length} of ${EXPECTED_IDS.length}`, 'the count says all are shown');
  check(seen.posts.length === pages, `one request per page (${seen.posts.length} for ${pages})`);
  check(
    seen.posts.every((post) => post.query === undefined && typeof post.documentId === 'string' && MANIFEST[post.documentId]),
    'every request names a registered document by id and sends no query text',
  );

  const probes = await waitUntilLive(page);
  const subscribe = seen.sent.find((frame) => frame.type === 'subscribe');
  check(
    subscribe && subscribe.payload.query === undefined && operationOf(subscribe.payload.documentId) === 'LiveUpdatesSubscription',
    'the subscription is started by document id, without query text',
  );
  check(
    typeof subscribe.payload.variables.after === 'string',
    'the subscription starts after the last event of the log as the page first read it',
  );
  check(probes >= 1, `the page hears changes over its subscription (after ${probes} probe payment(s))`);

  // Refund a payment from the middle of the list.
  const target = EXPECTED_IDS[Math.floor(EXPECTED_IDS.length / 2)];
  await row(page, target).click();
  const details = page.locator(`[data-testid="details"][data-id="${target}"]`);
  await details.waitFor({ timeout: WAIT });
  await checkMerchantData(details, target, EXPECTED_DATA[target]);
  check(
    await row(page, target).getByTestId('reference').innerText() === EXPECTED_DATA[target].reference,
    `the row of ${target} shows its reference`,
  );
  check(await row(page, target).getByTestId('status').innerText() === 'SUCCEEDED', `${target} is SUCCEEDED before its refund`);
  const postsBefore = seen.posts.length;
  const navigationsBefore = seen.navigations;
  await details.getByRole('button', { name: /^Refund/ }).click();
  await row(page, target).getByTestId('status').filter({ hasText: /^REFUNDED$/ }).waitFor({ timeout: WAIT });
  const refundPosts = seen.posts.slice(postsBefore).map((post) => operationOf(post.documentId));
  check(
    refundPosts.length === 1 && refundPosts[0] === 'PaymentDetailsRefundMutation',
    `the refund sent one request, the refund mutation, and nothing was refetched (${refundPosts.join(', ')})`,
  );
  const refundMutation = Object.values(MANIFEST).find((text) => text.startsWith('mutation PaymentDetailsRefundMutation'));
  check(!/\bstatus\b/.test(refundMutation.split('refunds')[0]), "the refund mutation does not ask for the payment's status");
  const heard = heardOn(seen, 0).filter((edge) => edge.node.payment.id === target);
  check(
    heard.some((edge) => edge.node.payment.status === 'REFUNDED'),
    `the WebSocket brought ${target} as REFUNDED (heard: ${heard.map((e) => `${e.node.type} → ${e.node.payment.status}`).join(', ')})`,
  );
  check(seen.navigations === navigationsBefore, 'the page was not reloaded');
  await details.getByText(/REFUNDING → REFUNDED/).waitFor({ timeout: WAIT });
  check(await details.getByTestId('refunds').innerText().then((text) => /SUCCEEDED/.test(text)), 'the details show the refund, succeeded');
  check(
    await page.locator(`[data-testid="live-update"][data-id="${target}"][data-type="payment.refunded"]`).count() === 1,
    'the live updates list the refund, once',
  );
  await page.screenshot({ path: SCREENSHOT });

  // The status filter refetches: only the refunded payment is REFUNDED.
  await page.getByLabel('Status').selectOption('REFUNDED');
  const onlyTarget = await page
    .waitForFunction(
      (id) => {
        const shown = [...document.querySelectorAll('[data-testid="payment-row"]')].map((tr) => tr.dataset.id);
        return shown.length === 1 && shown[0] === id;
      },
      target,
      { timeout: WAIT },
    )
    .then(() => true, () => false);
  check(onlyTarget, `filtering by REFUNDED shows only the refunded payment (shown: ${await rowIds(page)})`);
  check(seen.pageErrors.length === 0, `no script errors on the page (${seen.pageErrors.join('; ')})`);
  await page.close();
}

async function readOnlyRefundIsRefused(browser) {
  const { page, seen } = await openDashboard(browser, env('READ_ONLY_TOKEN'));
  const target = EXPECTED_IDS[0];
  await row(page, target).click();
  const details = page.locator(`[data-testid="details"][data-id="${target}"]`);
  await details.waitFor({ timeout: WAIT });
  await details.getByRole('button', { name: /^Refund/ }).click();
  const alert = details.getByRole('alert');
  await alert.waitFor({ timeout: WAIT });
  const text = await alert.innerText();
  check(/FORBIDDEN/.test(text), `the page shows the FORBIDDEN code: "${text.trim()}"`);
  check(/REFUNDS_WRITE|scope/i.test(text), "the page shows the gateway's message naming what is missing");
  check(await row(page, target).getByTestId('status').innerText() === 'SUCCEEDED', 'the payment is still SUCCEEDED');
  await page.screenshot({ path: SCREENSHOT.replace(/\.png$/, '-forbidden.png') });
  check(seen.pageErrors.length === 0, `no script errors on the page (${seen.pageErrors.join('; ')})`);
  await page.close();
}

const LATEST_EVENT = `{ events(last: 1) { edges { cursor node { id } } } }`;
const EVENTS_AFTER = `query EventsAfter($after: String) {
  events(first: 100, after: $after) { edges { cursor node { id type payment { id } } } pageInfo { hasNextPage } }
}`;
const REFUND = `mutation Refund($input: RefundPaymentInput!, $key: String!) {
  refundPayment(input: $input, idempotencyKey: $key) { payment { id } }
}`;
const CREATE = `mutation Create($input: CreatePaymentInput!, $key: String!) {
  createPayment(input: $input, idempotencyKey: $key) { payment { id status reference } }
}`;

/** Polls `read` until it returns something truthy; that, or null after `timeout` ms. */
async function eventually(read, timeout = WAIT) {
  const until = Date.now() + timeout;
  for (;;) {
    const value = await read();
    if (value || Date.now() > until) return value || null;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/**
 * Drops the page's WebSocket, changes payments while it is down (refunds, and payments made
 * meanwhile, through the gateway with the secret key), then lets it reconnect: the page must
 * resubscribe after the last event it heard, hear every change made meanwhile exactly once and
 * in the log's order, and show each change once in its list, without reloading anything.
 */
async function resumesAfterADroppedSocket(browser) {
  // Every WebSocket of the page is routed through here so that it can be dropped; one opened
  // after the drop stays connecting until the changes have been made.
  const sockets = [];
  let allowReconnect;
  const reconnectAllowed = new Promise((resolve) => {
    allowReconnect = resolve;
  });
  const { page, seen } = await openDashboard(browser, env('CLIENT_TOKEN'), (newPage) =>
    newPage.routeWebSocket(`${GATEWAY_URL.replace(/^http/, 'ws')}/graphql/ws`, async (ws) => {
      if (sockets.length > 0) await reconnectAllowed;
      sockets.push({ ws, server: ws.connectToServer() });
    }));

  await rows(page).first().waitFor({ timeout: WAIT });
  await waitUntilLive(page);
  const refunded = EXPECTED_IDS.slice(1, 4);
  for (const id of refunded) {
    check(await row(page, id).getByTestId('status').innerText() === 'SUCCEEDED', `${id} is listed, SUCCEEDED, before the drop`);
  }
  // Nothing is on its way: the page has heard the last event of the log.
  const caughtUp = await eventually(async () => {
    const latest = (await gateway(LATEST_EVENT)).events.edges[0]?.node.id;
    return latest && heardOn(seen, 0).at(-1)?.node.id === latest;
  });
  check(caughtUp, 'before the drop the page has heard the last event of the log');
  const lastHeard = heardOn(seen, 0).at(-1);
  const [shownBefore, totalBefore] = (await page.getByTestId('count').innerText()).split(' of ').map(Number);
  const postsBefore = seen.posts.length;
  const navigationsBefore = seen.navigations;

  // The connection is lost (an abnormal closure, as when the network goes away); the gateway's
  // side is closed too.
  const { ws, server } = sockets[0];
  ws.onClose(() => server.close());
  await ws.close({ code: 1006, reason: 'connection lost' });
  await page.waitForFunction(
    () => document.querySelector('[data-testid="live-status"]').textContent !== 'connected',
    null,
    { timeout: WAIT },
  );
  check(await eventually(async () => seen.closed.has(0)), 'the WebSocket is closed on both sides');

  // While it is down: refunds of listed payments, and new payments.
  for (const id of refunded) {
    await gateway(REFUND, { input: { paymentId: id, reason: 'requested_by_customer' }, key: `offline-refund-${id}` });
  }
  const made = [];
  for (let n = 1; n <= 2; n += 1) {
    const reference = `OFFLINE-${n}-${Date.now()}`;
    const metadata = [{ key: 'source', value: 'while the dashboard was offline' }, { key: 'attempt', value: `${n}` }];
    const data = await gateway(CREATE, {
      input: {
        amount: 5000 + n, currency: 'USD', source: 'tok_visa', description: `Made offline ${n}`, reference, metadata,
      },
      key: `offline-create-${n}-${Date.now()}`,
    });
    made.push({ id: data.createPayment.payment.id, reference, metadata });
  }
  check(sockets.length === 1 && heardOn(seen, 0).at(-1) === lastHeard, 'the page heard nothing while it was offline');
  const missed = await eventually(async () => {
    const { edges, pageInfo } = (await gateway(EVENTS_AFTER, { after: lastHeard.cursor })).events;
    const paymentsIn = new Set(edges.map((edge) => edge.node.payment.id));
    return [...refunded, ...made.map((m) => m.id)].every((id) => paymentsIn.has(id)) && !pageInfo.hasNextPage && edges;
  });
  check(missed, `the log holds the changes made while the page was offline (${missed?.length} events)`);

  // Back online: graphql-ws connects again and subscribes again.
  allowReconnect();
  await page.getByTestId('live-status').filter({ hasText: /^connected$/ }).waitFor({ timeout: WAIT });
  check(sockets.length === 2, `the page reconnected on its own (${sockets.length} sockets)`);
  // The status turns `connected` on the gateway's acknowledgement; the subscribe frame follows
  // it, and its record reaches this script a moment later.
  const resubscribe = await eventually(
    async () => seen.sent.find((frame) => frame.socket === 1 && frame.type === 'subscribe'),
  );
  check(
    resubscribe && operationOf(resubscribe.payload.documentId) === 'LiveUpdatesSubscription'
      && resubscribe.payload.variables.after === lastHeard.cursor,
    resubscribe
      ? `the page resubscribed after the last event it heard (after: ${resubscribe.payload.variables.after === lastHeard.cursor ? 'its cursor' : resubscribe.payload.variables.after})`
      : 'the page resubscribed after the last event it heard (no subscribe frame on the new socket)',
  );
  for (const id of refunded) {
    await row(page, id).getByTestId('status').filter({ hasText: /^REFUNDED$/ }).waitFor({ timeout: WAIT });
  }
  for (const { id } of made) await row(page, id).waitFor({ timeout: WAIT });

  // Every change made meanwhile heard once, in the log's order: what the page heard since it
  // reconnected is the log after its cursor, event for event (later changes included, if any).
  let heard = [];
  let log = [];
  const same = await eventually(async () => {
    heard = heardOn(seen, 1).map((edge) => edge.node.id);
    log = (await gateway(EVENTS_AFTER, { after: lastHeard.cursor })).events.edges.map((edge) => edge.node.id);
    return heard.length === log.length && heard.every((id, i) => id === log[i]);
  });
  check(
    same,
    `after reconnecting the page heard the ${log.length} events it missed, each once and in order `
      + `(heard ${heard.length}, ${new Set(heard).size} distinct; log ${log.length})`,
  );
  const listed = await liveEventIds(page);
  check(new Set(listed).size === listed.length, `the live updates list no event twice (${listed.length} listed)`);
  const sinceDrop = listed.slice(0, log.length).reverse();
  check(
    sinceDrop.every((id, i) => id === log[i]) && listed[log.length] === lastHeard.node.id,
    'the live updates list the missed events in order, right after the last one heard before the drop',
  );

  const ids = await rowIds(page);
  check(new Set(ids).size === ids.length, `no payment is listed twice (${ids.length} rows)`);
  const newestFirst = made.map((m) => m.id).reverse();
  check(
    newestFirst.every((id, i) => ids[i] === id),
    `the payments made offline are on top of the list, newest first (top rows: ${ids.slice(0, newestFirst.length)})`,
  );
  for (const id of refunded) {
    check(await row(page, id).getByTestId('status').innerText() === 'REFUNDED', `${id} is listed once, REFUNDED`);
  }
  const count = await page.getByTestId('count').innerText();
  check(
    count === `${shownBefore + made.length} of ${totalBefore + made.length}`,
    `the count includes the payments made offline (${count}; was ${shownBefore} of ${totalBefore})`,
  );
  for (const { id, reference } of made) {
    check(await row(page, id).getByTestId('reference').innerText() === reference, `the row of ${id} shows its reference`);
  }
  const fetched = seen.posts.slice(postsBefore).map((post) => operationOf(post.documentId));
  check(fetched.length === 0, `the list changed without a request (${fetched.join(', ')})`);
  check(seen.navigations === navigationsBefore, 'the page was not reloaded');

  const newest = made.at(-1);
  await row(page, newest.id).click();
  const details = page.locator(`[data-testid="details"][data-id="${newest.id}"]`);
  await details.waitFor({ timeout: WAIT });
  await checkMerchantData(details, newest.id, newest);
  await page.screenshot({ path: SCREENSHOT.replace(/\.png$/, '-reconnect.png') });
  check(seen.pageErrors.length === 0, `no script errors on the page (${seen.pageErrors.join('; ')})`);
  await page.close();
}

const browser = await launch();
let failed = false;
try {
  await pagingRefundAndFilter(browser);
  await readOnlyRefundIsRefused(browser);
  await resumesAfterADroppedSocket(browser);
  console.log(`dashboard: all ${checks} checks passed`);
} catch (error) {
  failed = true;
  console.error(error.stack ?? String(error));
  if (currentPage && !currentPage.isClosed()) {
    const failure = SCREENSHOT.replace(/\.png$/, '-failure.png');
    console.error(`the page showed:\n${await currentPage.locator('body').innerText().catch(() => '?')}`);
    await currentPage.screenshot({ path: failure }).then(() => console.error(`screenshot: ${failure}`), () => {});
  }
} finally {
  await browser.close();
}
process.exit(failed ? 1 : 0);
