// Where the shopper lands after confirming with their bank (3-D Secure): the gateway sends the
// browser to the checkout's returnUrl with `payment_id` added. The bank's answer reaches the
// gateway on its own (a signed processor webhook), so the page reads the payment until it has
// an outcome, for a while, then says it is still waiting.
import { OUTCOME } from './documents.js';
import { GatewayError, run } from './gateway.js';
import { describe, show, showError } from './outcome.js';
import { element, sleep } from './dom.js';

const READS = 20;
const BETWEEN_READS_MS = 750;

export function renderReturn(app, config) {
  const check = element('button', { id: 'check', type: 'button', hidden: true }, 'Check again');
  const resume = element('a', { id: 'continue', hidden: true }, 'Continue with your bank');
  const back = element('a', { id: 'again', href: '/' }, 'Back to the shop');
  app.replaceChildren(
    element('h1', {}, 'Your payment'),
    element('div', { id: 'outcome', role: 'status', 'aria-live': 'polite', hidden: true }),
    check,
    resume,
    back,
  );
  if (!config.paymentId) {
    show({ state: 'error', title: 'NO_PAYMENT', detail: 'This page was opened without a payment. Start again from the shop.' });
    return;
  }
  check.addEventListener('click', () => follow(config, check, resume));
  follow(config, check, resume);
}

/** Reads the payment until it has an outcome or READS reads have passed. */
async function follow(config, check, resume) {
  check.hidden = true;
  resume.hidden = true;
  show({ state: 'working', title: 'Checking your payment…', detail: 'One moment.' }, config.paymentId);
  for (let read = 1; read <= READS; read += 1) {
    let payment;
    try {
      ({ payment } = await run(config, OUTCOME, { id: config.paymentId }));
    } catch (error) {
      showError(error instanceof GatewayError ? error : new GatewayError('INTERNAL', String(error?.message ?? error)));
      check.hidden = false;
      return;
    }
    if (!payment) {
      show({ state: 'error', title: 'NOT_FOUND', detail: 'This shop has no such payment.' });
      return;
    }
    const outcome = describe(payment);
    if (outcome.state !== 'waiting') {
      show(outcome, payment.id);
      return;
    }
    if (read === READS) {
      const title = payment.status === 'REQUIRES_ACTION' ? 'Not confirmed yet' : 'Still in progress';
      show({ ...outcome, title }, payment.id);
      check.hidden = false;
      const url = payment.status === 'REQUIRES_ACTION' && payment.nextAction?.redirectUrl;
      if (url && /^https?:\/\//.test(url)) {
        resume.href = url;
        resume.hidden = false;
      }
      return;
    }
    await sleep(BETWEEN_READS_MS);
  }
}
