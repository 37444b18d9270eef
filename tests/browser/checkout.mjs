// Drives the checkout example (examples/checkout) in Debian's Chromium as a shopper would, each
// time on a page freshly rendered by the merchant's server (examples/checkout/server.mjs):
//   paid          tok_visa, Pay pressed five times as fast as the browser takes it, and the
//                 page's request sent twice more from the page, with the same submit token,
//                 while it is in flight: one payment in the account, the page shows success;
//   threeDSecure  tok_threeDSecure: the page goes to the sandbox's action page on the gateway,
//                 the shopper approves, and lands on the checkout's /return page, which shows
//                 success;
//   declined      tok_chargeDeclined: the page shows the processor's decline message;
//   forgedToken   a page whose request's submit token is replaced on the way by one the
//                 merchant never minted: the gateway refuses it, the page shows the error's
//                 code, and no payment is made.
// Every page: only trusted documents sent by id, nothing loaded from a third origin, no script
// error, the merchant's secret key nowhere in it, and a submit token of its own.
//
// Started by tests/api/checkout_browser.rs, which passes in the environment:
//   CHECKOUT_URL  the merchant server's origin
//   GATEWAY_URL   the gateway's base URL
//   SECRET_KEY    the account's secret key, used by this script (never by the page) to count
//                 the account's payments and read them as the merchant would
//   MANIFEST      path of examples/checkout/persisted-documents.json
//   ARTIFACTS     directory for the screenshots (checkout-*.png)
// Prints one JSON line per scenario, {"scenario", "paymentId", "submitToken"}, on stdout; the
// checks on stderr. Exits 0 when every check passed; otherwise prints the check that failed and
// exits 1.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { launch } from './chromium.mjs';

const env = (name) => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
};
const CHECKOUT_URL = env('CHECKOUT_URL');
const GATEWAY_URL = env('GATEWAY_URL');
const SECRET_KEY = env('SECRET_KEY');
const MANIFEST = JSON.parse(readFileSync(env('MANIFEST'), 'utf8'));
const ARTIFACTS = env('ARTIFACTS');
const WAIT = 15_000;
const AMOUNT = '19.99 USD';

const documentIdOf = (operation) => Object.keys(MANIFEST).find((id) => MANIFEST[id].match(/^(?:query|mutation) (\w+)/)?.[1] === operation);
const PAY = documentIdOf('CheckoutPay');
const OUTCOME = documentIdOf('CheckoutOutcome');
if (!PAY || !OUTCOME) throw new Error('the manifest lacks CheckoutPay or CheckoutOutcome');

let checks = 0;
function check(condition, what) {
  if (!condition) throw new Error(`check failed: ${what}`);
  checks += 1;
  console.error(`ok ${checks} - ${what}`);
}

const screenshot = (page, name) => page.screenshot({ path: join(ARTIFACTS, `checkout-${name}.png`), fullPage: true });

/** Runs a GraphQL operation with the secret key, as the merchant's server would; its data. */
async function asMerchant(query, variables = {}) {
  const response = await fetch(`${GATEWAY_URL}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${SECRET_KEY}` },
    body: JSON.stringify({ query, variables }),
  });
  const body = await response.json();
  if (body.errors?.length || !body.data) throw new Error(`the gateway refused ${query.split('{')[0]}: ${JSON.stringify(body)}`);
  return body.data;
}

async function paymentsInAccount() {
  const data = await asMerchant('{ payments(first: 100) { totalCount nodes { id status } } }');
  return data.payments;
}

let currentPage = null;
const submitTokens = new Set();

/**
 * Opens a freshly rendered checkout (`path` on the merchant server) and records what the page
 * sends to the gateway, what it hears back, and anything it loads from a third origin.
 */
async function open(browser, path = '/') {
  const page = await browser.newPage({ viewport: { width: 720, height: 760 } });
  currentPage = page;
  const seen = { posts: [], answers: [], elsewhere: [], pageErrors: [] };
  page.on('pageerror', (error) => seen.pageErrors.push(String(error)));
  page.on('request', (request) => {
    const { origin } = new URL(request.url());
    if (origin !== new URL(CHECKOUT_URL).origin && origin !== new URL(GATEWAY_URL).origin) seen.elsewhere.push(request.url());
    if (request.method() === 'POST' && request.url() === `${GATEWAY_URL}/graphql`) seen.posts.push(JSON.parse(request.postData()));
  });
  page.on('response', (response) => {
    const request = response.request();
    if (request.method() !== 'POST' || request.url() !== `${GATEWAY_URL}/graphql`) return;
    const { documentId } = JSON.parse(request.postData());
    seen.answers.push(response.json().then((body) => ({ documentId, body }), () => ({ documentId, body: null })));
  });
  await page.goto(`${CHECKOUT_URL}${path}`);
  const config = JSON.parse(await page.locator('#checkout-config').textContent());
  const html = await page.content();
  check(!html.includes(SECRET_KEY), `the page rendered at ${path} does not contain the secret key`);
  check(typeof config.clientToken === 'string' && config.clientToken.startsWith('gpct_'), 'the page carries a client token');
  return { page, seen, config };
}

/** The checks every page ends with. */
function checkCleanly(seen, what) {
  check(
    seen.posts.every((post) => post.query === undefined && MANIFEST[post.documentId]),
    `${what}: every request names a trusted document by id and sends no query text`,
  );
  check(seen.elsewhere.length === 0, `${what}: nothing was loaded from a third origin (${seen.elsewhere.join(', ')})`);
  check(seen.pageErrors.length === 0, `${what}: no script errors (${seen.pageErrors.join('; ')})`);
}

async function openCheckout(browser) {
  const opened = await open(browser, '/');
  const { page, config } = opened;
  check(typeof config.submitToken === 'string' && config.submitToken.startsWith('sbt_'), 'the checkout carries a submit token');
  check(!submitTokens.has(config.submitToken), 'each render has a submit token of its own');
  submitTokens.add(config.submitToken);
  check((await page.locator('#amount').textContent()) === AMOUNT, `the checkout shows ${AMOUNT}`);
  return opened;
}

/**
 * The outcome the page shows once it has one: not 'working' or 'redirecting', nor, when the
 * page reads the payment until it settles (`settled`), 'waiting' (it reads for 15 s at most).
 */
async function outcomeOf(page, { settled = false } = {}) {
  const passing = ['working', 'redirecting', ...(settled ? ['waiting'] : [])];
  const outcome = page.locator(`#outcome${passing.map((state) => `:not([data-state="${state}"])`).join('')}`);
  await outcome.waitFor({ timeout: settled ? 2 * WAIT : WAIT });
  return {
    state: await outcome.getAttribute('data-state'),
    paymentId: await outcome.getAttribute('data-payment-id'),
    text: (await outcome.innerText()).replace(/\s+/g, ' ').trim(),
  };
}

async function paidOnceHoweverOftenPressed(browser) {
  const { page, seen, config } = await openCheckout(browser);
  check((await paymentsInAccount()).totalCount === 0, 'the account has no payment yet');
  await page.selectOption('#card', 'tok_visa');

  // While the page's own request is in flight, the same request is sent twice more from the
  // page (as a double submit that got past the button, or a replayed request, would be).
  let resent = null;
  await page.route(`${GATEWAY_URL}/graphql`, async (route, request) => {
    const body = JSON.parse(request.postData());
    if (resent || body.documentId !== PAY) return route.continue();
    resent = page.evaluate(
      ([url, token, text]) => Promise.all([1, 2].map(() => fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: text,
      }).then((response) => response.json()))),
      [request.url(), config.clientToken, request.postData()],
    );
    await route.continue();
  });

  // Five presses as fast as the browser takes them: real clicks, not waiting for the button
  // to be enabled again.
  const pay = page.locator('#pay');
  for (let press = 0; press < 5; press += 1) await pay.click({ force: true, noWaitAfter: true });
  const outcome = await outcomeOf(page);
  check(resent !== null, 'the page sent its createPayment');
  await resent;

  const payPosts = seen.posts.filter((post) => post.documentId === PAY);
  check(payPosts.length >= 3, `at least three createPayment requests reached the gateway (${payPosts.length})`);
  check(
    payPosts.every((post) => post.variables.submitToken === config.submitToken),
    'every one of them carries the rendered submit token as its idempotency key',
  );
  const payloads = (await Promise.all(seen.answers)).filter((answer) => answer.documentId === PAY).map((answer) => answer.body);
  check(payloads.length === payPosts.length, `every createPayment was answered (${payloads.length} of ${payPosts.length})`);
  const ids = new Set();
  let fresh = 0;
  for (const answer of payloads) {
    const payload = answer?.data?.createPayment;
    if (payload) {
      ids.add(payload.payment.id);
      if (!payload.replayed) fresh += 1;
    } else {
      check(answer?.errors?.[0]?.extensions?.code === 'REQUEST_IN_PROGRESS', `a refused duplicate is REQUEST_IN_PROGRESS (${JSON.stringify(answer)})`);
    }
  }
  check(ids.size === 1, `every answer names the same payment (${[...ids].join(', ')})`);
  check(fresh === 1, `exactly one answer made the payment; the others replayed it (${fresh} fresh of ${payloads.length})`);
  const [id] = ids;

  check(outcome.state === 'succeeded' && outcome.paymentId === id, `the page shows success for ${id} (${outcome.state}: ${outcome.text})`);
  check(await pay.isDisabled(), 'the Pay button stays disabled after the payment');
  check(!(await page.locator('#again').isVisible()), 'a paid checkout offers no new attempt');
  const inAccount = await paymentsInAccount();
  check(
    inAccount.totalCount === 1 && inAccount.nodes.length === 1 && inAccount.nodes[0].id === id && inAccount.nodes[0].status === 'SUCCEEDED',
    `exactly one payment exists in the account, ${id}, SUCCEEDED (${JSON.stringify(inAccount)})`,
  );
  const { idempotencyRecord } = await asMerchant(
    'query($key: String!) { idempotencyRecord(key: $key) { state payment { id } } }',
    { key: config.submitToken },
  );
  check(
    idempotencyRecord?.state === 'COMPLETED' && idempotencyRecord.payment?.id === id,
    `the submit token is recorded as used for ${id} (${JSON.stringify(idempotencyRecord)})`,
  );
  await screenshot(page, 'paid');
  checkCleanly(seen, 'paid');
  await page.close();
  return { scenario: 'paid', paymentId: id, submitToken: config.submitToken, requests: payPosts.length };
}

async function approvedOnTheActionPage(browser) {
  const { page, seen, config } = await openCheckout(browser);
  await page.selectOption('#card', 'tok_threeDSecure');
  await Promise.all([
    page.waitForURL((url) => url.origin === new URL(GATEWAY_URL).origin && url.pathname.includes('/actions/'), { timeout: WAIT }),
    page.locator('#pay').click(),
  ]);
  const action = page.url();
  // The answer's body is gone with the page it was sent from; the merchant's view says the same.
  const { payments } = await asMerchant(
    '{ payments(first: 1, filter: {status: [REQUIRES_ACTION]}) { nodes { id nextAction { type redirectUrl } } } }',
  );
  const waiting = payments.nodes[0];
  const id = waiting?.id;
  check(
    waiting?.nextAction?.type === 'REDIRECT_TO_URL' && waiting.nextAction.redirectUrl === action,
    `the page followed nextAction.redirectUrl of ${id}, which requires action, to the sandbox's page (${action})`,
  );
  check((await page.locator('#amount').textContent()) === AMOUNT, `the action page shows ${AMOUNT}`);
  await screenshot(page, 'action');
  await Promise.all([
    page.waitForURL((url) => url.origin === new URL(CHECKOUT_URL).origin && url.pathname === '/return', { timeout: WAIT }),
    page.locator('#approve').click(),
  ]);
  const landedOn = new URL(page.url());
  check(landedOn.searchParams.get('payment_id') === id, `back on the checkout's /return page with payment_id=${id}`);
  const returned = JSON.parse(await page.locator('#checkout-config').textContent());
  check(returned.page === 'return' && returned.paymentId === id, 'the return page was rendered for that payment');
  check(returned.clientToken !== config.clientToken, 'the return page has a client token of its own');
  check(!(await page.content()).includes(SECRET_KEY), 'the return page does not contain the secret key');
  const outcome = await outcomeOf(page, { settled: true });
  check(outcome.state === 'succeeded' && outcome.paymentId === id, `the return page shows success for ${id} (${outcome.state}: ${outcome.text})`);
  check(!(await page.locator('#continue').isVisible()), 'the return page offers no way back to the bank once paid');
  check(
    seen.posts.some((post) => post.documentId === OUTCOME && post.variables.id === id),
    'the return page read the payment from the gateway',
  );
  await screenshot(page, 'returned');
  checkCleanly(seen, '3-D Secure');
  await page.close();
  return { scenario: 'threeDSecure', paymentId: id, submitToken: config.submitToken };
}

async function declinedWithTheProcessorsMessage(browser) {
  const { page, seen, config } = await openCheckout(browser);
  await page.selectOption('#card', 'tok_chargeDeclined');
  await page.locator('#pay').click();
  const outcome = await outcomeOf(page);
  check(outcome.state === 'declined', `the page shows a decline (${outcome.state}: ${outcome.text})`);
  const { payment } = await asMerchant(
    'query($id: ID!) { payment(id: $id) { status failureCode failureMessage } }',
    { id: outcome.paymentId },
  );
  check(payment?.status === 'FAILED' && payment.failureCode === 'card_declined', `${outcome.paymentId} is FAILED, card_declined`);
  check(
    payment.failureMessage && outcome.text.includes(payment.failureMessage) && outcome.text.includes(payment.failureCode),
    `the page shows the decline message "${payment.failureMessage}" and its code (${outcome.text})`,
  );
  check(await page.locator('#again').isVisible(), 'the page offers a new checkout to try another card');
  await screenshot(page, 'declined');
  checkCleanly(seen, 'declined');
  await page.close();
  return { scenario: 'declined', paymentId: outcome.paymentId, submitToken: config.submitToken };
}

async function aForgedSubmitTokenIsRefused(browser) {
  const before = (await paymentsInAccount()).totalCount;
  const forged = `sbt_${'0'.repeat(40)}`;
  const { page, seen } = await open(browser);
  // The page's request is changed on its way out (a page served from elsewhere than the
  // merchant's server would lose its access to a loopback gateway in Chromium).
  let forgedSends = 0;
  await page.route(`${GATEWAY_URL}/graphql`, (route, request) => {
    const body = JSON.parse(request.postData());
    if (body.documentId !== PAY) return route.continue();
    body.variables.submitToken = forged;
    forgedSends += 1;
    return route.continue({ postData: JSON.stringify(body) });
  });
  await page.selectOption('#card', 'tok_visa');
  await page.locator('#pay').click();
  const outcome = await outcomeOf(page);
  check(
    outcome.state === 'error' && outcome.text.startsWith('INVALID_IDEMPOTENCY_KEY'),
    `the page shows the gateway's INVALID_IDEMPOTENCY_KEY (${outcome.state}: ${outcome.text})`,
  );
  check(forgedSends === 1, `the page sent its payment once, with the forged token (${forgedSends})`);
  check((await paymentsInAccount()).totalCount === before, 'no payment was made');
  await screenshot(page, 'forged-token');
  checkCleanly(seen, 'forged token');
  await page.close();
  return { scenario: 'forgedToken', paymentId: null, submitToken: forged };
}

const browser = await launch();
let failed = false;
try {
  for (const scenario of [
    paidOnceHoweverOftenPressed,
    approvedOnTheActionPage,
    declinedWithTheProcessorsMessage,
    aForgedSubmitTokenIsRefused,
  ]) {
    console.log(JSON.stringify(await scenario(browser)));
  }
  console.error(`checkout: all ${checks} checks passed`);
} catch (error) {
  failed = true;
  console.error(String(error?.stack ?? error));
  if (currentPage && !currentPage.isClosed()) {
    console.error(`the page (${currentPage.url()}) showed:\n${await currentPage.locator('body').innerText().catch(() => '?')}`);
    await screenshot(currentPage, 'failure').catch(() => {});
  }
} finally {
  await browser.close();
}
process.exit(failed ? 1 : 0);
