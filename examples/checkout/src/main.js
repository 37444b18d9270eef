// Reads what the merchant's server put into the page (#checkout-config) and shows the
// checkout or, on /return, the outcome of the payment the shopper comes back from.
import './style.css';
import { renderCheckout } from './checkout.js';
import { renderReturn } from './return.js';
import { element } from './dom.js';

function readConfig() {
  const block = document.getElementById('checkout-config');
  let config;
  try {
    config = JSON.parse(block?.textContent ?? '');
  } catch {
    return null;
  }
  const common = typeof config?.gateway === 'string' && typeof config.clientToken === 'string';
  if (config?.page === 'checkout') {
    const ok = common && typeof config.submitToken === 'string' && Number.isInteger(config.amount)
      && typeof config.currency === 'string' && typeof config.returnUrl === 'string';
    return ok ? config : null;
  }
  if (config?.page === 'return') return common ? config : null;
  return null;
}

const app = document.getElementById('app');
const config = readConfig();
if (!config) {
  app.replaceChildren(
    element('h1', {}, 'Checkout unavailable'),
    element('p', { id: 'outcome', 'data-state': 'error' }, 'This page must be rendered by the merchant’s server (examples/checkout/server.mjs).'),
  );
} else if (config.page === 'return') {
  renderReturn(app, config);
} else {
  renderCheckout(app, config);
}
