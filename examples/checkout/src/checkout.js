// The checkout: the order's total, a sandbox test card to pay with, and a Pay button. One
// rendered page pays at most once: every request it sends carries the merchant's submit token
// as the idempotency key, so a second press, a resend after a lost answer or a replayed
// request gets the same payment back, never a new one.
import { PAY } from './documents.js';
import { GatewayError, run } from './gateway.js';
import { formatMoney } from './money.js';
import { describe, show, showError } from './outcome.js';
import { element, sleep } from './dom.js';

/** The sandbox processor's test cards (see the gateway's README), by source token. */
const CARDS = [
  ['tok_visa', 'Visa — approved'],
  ['tok_mastercard', 'Mastercard — approved'],
  ['tok_threeDSecure', 'Visa — asks for 3-D Secure'],
  ['tok_chargeDeclined', 'Visa — declined'],
  ['tok_insufficientFunds', 'Visa — insufficient funds'],
];

/** Errors after which the same page may press Pay again: the submit token is still good. */
const RETRY_ON_PAGE = new Set(['NETWORK_ERROR', 'PROCESSOR_UNAVAILABLE', 'REQUEST_IN_PROGRESS', 'THROTTLED', 'INTERNAL']);
/** Errors the page waits out by itself before sending the very same request again. */
const WAIT_AND_RESEND = new Set(['REQUEST_IN_PROGRESS', 'THROTTLED']);
const RESENDS = 20;

export function renderCheckout(app, config) {
  const total = formatMoney(config.amount, config.currency);
  const card = element('select', { id: 'card', name: 'card' },
    CARDS.map(([value, label]) => element('option', { value }, label)));
  const pay = element('button', { id: 'pay', type: 'button' }, `Pay ${total}`);
  const again = element('a', { id: 'again', href: '/', hidden: true }, 'Start a new checkout');
  app.replaceChildren(
    element('h1', {}, 'Checkout'),
    element('p', { className: 'order' }, config.description ?? 'Your order'),
    element('p', { className: 'total' }, 'Total ', element('strong', { id: 'amount' }, total)),
    element('label', { htmlFor: 'card' }, 'Test card (sandbox)'),
    card,
    pay,
    element('div', { id: 'outcome', role: 'status', 'aria-live': 'polite', hidden: true }),
    again,
  );

  let busy = false;
  pay.addEventListener('click', async () => {
    // The button is disabled while a request is in flight; the submit token is what makes a
    // press that gets through anyway harmless.
    if (busy) return;
    busy = true;
    pay.disabled = true;
    card.disabled = true;
    show({ state: 'working', title: 'Paying…', detail: 'Please keep this page open.' });
    try {
      const payment = await createPayment(config, card.value);
      const redirect = payment.status === 'REQUIRES_ACTION' && httpUrl(payment.nextAction?.redirectUrl);
      if (redirect) {
        show({ state: 'redirecting', title: 'Confirm with your bank', detail: 'Taking you to your bank’s page…' }, payment.id);
        window.location.assign(redirect);
        return;
      }
      const outcome = describe(payment);
      show(outcome, payment.id);
      // A declined payment used this page's submit token: another card needs a new page.
      if (outcome.state === 'declined') again.textContent = 'Try another card';
      again.hidden = outcome.state === 'succeeded';
    } catch (error) {
      const shown = error instanceof GatewayError ? error : new GatewayError('INTERNAL', String(error?.message ?? error));
      showError(shown);
      if (RETRY_ON_PAGE.has(shown.code)) {
        // Sending again is safe: the same submit token, the same request.
        busy = false;
        pay.disabled = false;
        pay.textContent = `Try again: pay ${total}`;
      } else {
        again.hidden = false;
      }
    }
  });
}

/** Sends createPayment, waiting out a concurrent first use of the submit token. */
async function createPayment(config, source) {
  const input = {
    amount: config.amount,
    currency: config.currency,
    source,
    returnUrl: config.returnUrl,
    ...(config.description ? { description: config.description } : {}),
  };
  const variables = { input, submitToken: config.submitToken };
  for (let sent = 1; ; sent += 1) {
    try {
      const { createPayment: payload } = await run(config, PAY, variables);
      if (!payload?.payment) throw new GatewayError('INTERNAL', 'The payment service did not return the payment.');
      return payload.payment;
    } catch (error) {
      if (!(error instanceof GatewayError) || !WAIT_AND_RESEND.has(error.code) || sent >= RESENDS) throw error;
      const seconds = Number(error.extensions.retryAfterSeconds);
      await sleep(Number.isFinite(seconds) && seconds > 0 ? Math.min(seconds, 5) * 1000 : 300);
    }
  }
}

/** `url` when it is an http(s) URL, the only kind the page navigates to; else null. */
function httpUrl(url) {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? parsed.href : null;
  } catch {
    return null;
  }
}
