// Drives the sandbox's customer-action page (3-D Secure) in Debian's Chromium, as a shopper
// sent there by a checkout would use it: the page shows the amount and two buttons and loads
// nothing from elsewhere; pressing one sends the browser back to the shop's return URL with
// the payment's id; the page then says there is nothing left to confirm.
//
// Started by tests/api/customer_action_browser.rs, which passes in the environment:
//   ACTIONS     JSON array of {paymentId, url, button, amount}: the action page of each payment,
//               the button to press ("approve" or "decline"), and the amount the page must show
//   SHOP_ORIGIN the origin of the shop's return URL
//   SCREENSHOT  where to save a screenshot of the first action page (.png)
// Prints one JSON line per action, {"paymentId", "landedOn", "shopSaid"}, then a closing line.
// Exits 0 when every check passed; otherwise prints the check that failed and exits 1.

import { launch } from './chromium.mjs';

const env = (name) => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
};
const ACTIONS = JSON.parse(env('ACTIONS'));
const SHOP_ORIGIN = env('SHOP_ORIGIN');
const SCREENSHOT = env('SCREENSHOT');
const WAIT = 15_000;

let checks = 0;
function check(condition, what) {
  if (!condition) throw new Error(`check failed: ${what}`);
  checks += 1;
  console.error(`ok ${checks} - ${what}`);
}

async function act(browser, action, first) {
  const page = await browser.newPage({ viewport: { width: 800, height: 700 } });
  const elsewhere = [];
  const pageOrigin = new URL(action.url).origin;
  page.on('request', (request) => {
    const origin = new URL(request.url()).origin;
    if (origin !== pageOrigin && origin !== SHOP_ORIGIN) elsewhere.push(request.url());
  });
  await page.goto(action.url);
  await page.locator('#amount').waitFor({ timeout: WAIT });
  check((await page.locator('#amount').textContent()) === action.amount, `the page shows ${action.amount}`);
  check((await page.locator('script').count()) === 0, 'the page runs no script');
  if (first) await page.screenshot({ path: SCREENSHOT, fullPage: true });
  await Promise.all([
    page.waitForURL((url) => url.origin === SHOP_ORIGIN, { timeout: WAIT }),
    page.locator(`#${action.button}`).click(),
  ]);
  const landedOn = page.url();
  check(new URL(landedOn).searchParams.get('payment_id') === action.paymentId,
    `back at the shop with payment_id=${action.paymentId}`);
  const shopSaid = (await page.locator('#shop').textContent()).trim();
  // Back to the action page: it has nothing left to confirm.
  await page.goto(action.url);
  check((await page.locator('#approve').count()) === 0, 'a second visit offers no button');
  check(elsewhere.length === 0, `nothing was loaded from elsewhere: ${elsewhere.join(', ')}`);
  await page.close();
  console.log(JSON.stringify({ paymentId: action.paymentId, landedOn, shopSaid }));
}

const browser = await launch();
let failed = false;
try {
  for (const [i, action] of ACTIONS.entries()) await act(browser, action, i === 0);
  console.error(`customer action: all ${checks} checks passed`);
} catch (error) {
  failed = true;
  console.error(String(error?.stack ?? error));
} finally {
  await browser.close();
}
process.exit(failed ? 1 : 0);
