// Drives the built dashboard (examples/dashboard/dist) in Debian's Chromium against a running
// gateway, and checks what a merchant would see: every payment exactly once and in order while
// paging with "Load more"; a refund's new status arriving over the subscription, not by a
// reload; and a read-only token's refund refused with FORBIDDEN on the page.
//
// Started by tests/api/dashboard_browser.rs, which passes everything in the environment:
//   DASHBOARD_URL    where the built dashboard is served (another origin than the gateway)
//   GATEWAY_URL      the gateway's base URL
//   CLIENT_TOKEN     a PAYMENTS_READ + REFUNDS_WRITE client token
//   READ_ONLY_TOKEN  a PAYMENTS_READ client token
//   SECRET_KEY       the account's secret key, used by this script (never by the page) to make
//                    probe payments until the page is seen to hear changes
//   EXPECTED_IDS     JSON array of every payment id, newest first
//   MANIFEST         path of the dashboard's persisted-documents.json
//   SCREENSHOT       where to save the screenshot (.png); a second one gets a -forbidden suffix
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

let currentPage = null;

/** Opens the dashboard with `token` and records what the page sends and hears. */
async function openDashboard(browser, token) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  currentPage = page;
  const seen = { posts: [], sent: [], received: [], navigations: 0, pageErrors: [] };
  page.on('pageerror', (error) => seen.pageErrors.push(String(error)));
  page.on('framenavigated', (frame) => {
    if (frame === page.mainFrame()) seen.navigations += 1;
  });
  page.on('request', (request) => {
    if (request.method() === 'POST' && request.url() === `${GATEWAY_URL}/graphql`) {
      seen.posts.push(JSON.parse(request.postData()));
    }
  });
  page.on('websocket', (socket) => {
    socket.on('framesent', ({ payload }) => seen.sent.push(JSON.parse(payload)));
    socket.on('framereceived', ({ payload }) => seen.received.push(JSON.parse(payload)));
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
    const response = await fetch(`${GATEWAY_URL}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${env('SECRET_KEY')}` },
      body: JSON.stringify({
        query: `mutation Probe($key: String!) {
          createPayment(input: {amount: 1, currency: "USD", source: "tok_visa", confirm: false, description: "probe"},
                        idempotencyKey: $key) { payment { id } } }`,
        variables: { key: `probe-${attempt}-${Date.now()}` },
      }),
    });
    const body = await response.json();
    const probe = body.data?.createPayment?.payment?.id;
    if (!probe) throw new Error(`probe payment refused: ${JSON.stringify(body)}`);
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
  check(probes >= 1, `the page hears changes over its subscription (after ${probes} probe payment(s))`);

  // Refund a payment from the middle of the list.
  const target = EXPECTED_IDS[Math.floor(EXPECTED_IDS.length / 2)];
  await row(page, target).click();
  const details = page.locator(`[data-testid="details"][data-id="${target}"]`);
  await details.waitFor({ timeout: WAIT });
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
  const frames = seen.received.filter((frame) => frame.type === 'next' && frame.payload?.data?.paymentUpdated?.id === target);
  check(
    frames.some((frame) => frame.payload.data.paymentUpdated.status === 'REFUNDED'),
    `the WebSocket brought ${target} as REFUNDED (statuses heard: ${frames.map((f) => f.payload.data.paymentUpdated.status).join(', ')})`,
  );
  check(seen.navigations === navigationsBefore, 'the page was not reloaded');
  await details.getByText(/REFUNDING → REFUNDED/).waitFor({ timeout: WAIT });
  check(await details.getByTestId('refunds').innerText().then((text) => /SUCCEEDED/.test(text)), 'the details show the refund, succeeded');
  check(
    await page.locator(`[data-testid="live-update"][data-id="${target}"][data-status="REFUNDED"]`).count() === 1,
    'the live updates list the refund',
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

const browser = await launch();
let failed = false;
try {
  await pagingRefundAndFilter(browser);
  await readOnlyRefundIsRefused(browser);
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
