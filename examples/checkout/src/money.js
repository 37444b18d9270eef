// Amounts arrive in minor units (cents for USD, yen for JPY); shown as the shopper reads them.

/** `1999, "USD"` → `19.99 USD`; `1200, "JPY"` → `1200 JPY`. */
export function formatMoney(minor, currency) {
  let digits = 2;
  try {
    digits = new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits;
  } catch {
    // An unknown code: show two decimals, as most currencies have.
  }
  const negative = minor < 0;
  const units = String(Math.abs(minor)).padStart(digits + 1, '0');
  const whole = digits ? units.slice(0, -digits) : units;
  const fraction = digits ? `.${units.slice(-digits)}` : '';
  return `${negative ? '-' : ''}${whole}${fraction} ${currency}`;
}
