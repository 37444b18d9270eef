// What a payment's state means to the shopper, and the one place it is shown (#outcome,
// whose data-state says which: working, succeeded, declined, waiting, canceled, error).
import { formatMoney } from './money.js';

/** The shopper-facing reading of a payment as the gateway returned it. */
export function describe(payment) {
  const amount = formatMoney(payment.amount, payment.currency);
  switch (payment.status) {
    case 'SUCCEEDED':
      return { state: 'succeeded', title: 'Payment succeeded', detail: `${amount} paid. Thank you!` };
    case 'REQUIRES_CAPTURE':
      return { state: 'succeeded', title: 'Payment authorized', detail: `${amount} authorized; you are charged when the order ships.` };
    case 'PARTIALLY_REFUNDED':
    case 'REFUNDED':
    case 'REFUNDING':
      return { state: 'succeeded', title: 'Payment succeeded', detail: `${amount} paid, and since refunded in part or in full.` };
    case 'FAILED': {
      const reason = payment.failureMessage || 'The card was declined.';
      const code = payment.failureCode ? ` (${payment.failureCode})` : '';
      return { state: 'declined', title: 'Payment declined', detail: `${reason}${code}` };
    }
    case 'REQUIRES_ACTION':
      return { state: 'waiting', title: 'Waiting for your bank', detail: 'Your bank asks you to confirm this payment.' };
    case 'PENDING':
    case 'PROCESSING':
      return { state: 'waiting', title: 'Payment in progress', detail: `${amount} is being processed; this can take a moment.` };
    case 'CANCELED':
      return { state: 'canceled', title: 'Payment canceled', detail: 'Nothing was charged.' };
    default:
      // A status added to the API after this page was written.
      return { state: 'waiting', title: 'Payment received', detail: `Its status is ${payment.status}.` };
  }
}

/** Shows `{ state, title, detail }` in #outcome, with the payment's id when there is one. */
export function show(outcome, paymentId) {
  const box = document.getElementById('outcome');
  box.dataset.state = outcome.state;
  if (paymentId) box.dataset.paymentId = paymentId;
  else delete box.dataset.paymentId;
  const title = document.createElement('strong');
  title.className = 'outcome-title';
  title.textContent = outcome.title;
  const detail = document.createElement('p');
  detail.className = 'outcome-detail';
  detail.textContent = outcome.detail;
  const parts = [title, detail];
  if (paymentId) {
    const reference = document.createElement('p');
    reference.className = 'outcome-reference';
    reference.textContent = `Payment ${paymentId}`;
    parts.push(reference);
  }
  box.replaceChildren(...parts);
  box.hidden = false;
}

/** Shows a GatewayError: its code and message. */
export function showError(error) {
  show({ state: 'error', title: error.code ?? 'ERROR', detail: error.message });
}
