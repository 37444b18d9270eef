// Amounts arrive in minor units and times in RFC 3339 UTC; they are formatted only here.

export function formatAmount(minorUnits, currency) {
  const format = new Intl.NumberFormat(undefined, { style: 'currency', currency });
  const digits = format.resolvedOptions().maximumFractionDigits;
  return format.format(minorUnits / 10 ** digits);
}

export function formatTime(rfc3339) {
  return new Date(rfc3339).toLocaleString();
}
