// The one money module: exact arithmetic for offers, contracts and the pricing engine. Amounts are integer
// minor units (øre, cents); quantities, prices and percentages are scaled integers (BigInt), products and
// divisions round once, half away from zero. Floats never accumulate.

/** What a workspace starts with: Danish VAT (percent) and kroner; offers, contracts and pricing default to these. */
export const DEFAULT_VAT_RATE = 25;
export const DEFAULT_CURRENCY = 'DKK';

/** Decimals an offer or contract line keeps of its quantity and unit price (exact; more → refused or rounded). */
export const LINE_DECIMALS = 6;
/** Decimals a VAT rate keeps on an offer line (percent). */
export const RATE_DECIMALS = 2;
/** The pricing engine's quantities: scaled ×10,000 (4 decimals). */
export const QTY_SCALE = 10_000n;
/** The pricing engine's percentages: scaled ×10,000 (4 decimals). */
export const PERCENT_SCALE = 10_000n;

const pow10 = (n: number): bigint => 10n ** BigInt(n);

/**
 * A number as a scaled integer (`decimals` places), read through its shortest decimal representation
 * (what the client typed: 1.005 is "1.005", not 1.00499…), rounded half away from zero.
 */
export function toScaled(value: number, decimals: number): bigint {
  if (!Number.isFinite(value)) throw new RangeError('not a finite number');
  const negative = value < 0;
  let text = String(Math.abs(value));
  if (/e/i.test(text)) text = Math.abs(value).toFixed(20);
  const [intPart = '0', fracPart = ''] = text.split('.');
  const kept = (fracPart + '0'.repeat(decimals)).slice(0, decimals);
  let scaled = BigInt(intPart + kept);
  if ((fracPart[decimals] ?? '0') >= '5') scaled += 1n;
  return negative ? -scaled : scaled;
}

/** The number as a scaled BigInt (value × 10^decimals) without rounding: null when it has more decimals. */
export function toScaledExact(value: number, decimals: number): bigint | null {
  if (!Number.isFinite(value)) return null;
  const fixed = value.toFixed(decimals);
  if (Number(fixed) !== value) return null;
  const negative = fixed.startsWith('-');
  const [int, frac = ''] = (negative ? fixed.slice(1) : fixed).split('.');
  const scaled = BigInt(int!) * pow10(decimals) + BigInt(frac.padEnd(decimals, '0') || '0');
  return negative ? -scaled : scaled;
}

/** Thrown when an amount leaves the range integers are exact in; the API answers 400. */
export class AmountRangeError extends RangeError {}

/** A BigInt result as a number, refusing values beyond 2^53 (they would lose cents). */
export function safe(value: bigint): number {
  if (value > BigInt(Number.MAX_SAFE_INTEGER) || value < -BigInt(Number.MAX_SAFE_INTEGER))
    throw new AmountRangeError('an amount exceeds the supported range (about ±90 trillion minor units)');
  return Number(value);
}

/** Decimal places a currency's minor unit has (ISO 4217; 2 unless listed). */
const ZERO_DECIMAL = new Set(['JPY', 'KRW', 'ISK', 'CLP', 'VND', 'UGX', 'XAF', 'XOF', 'PYG']);
export const minorDigits = (currency: string): number => (ZERO_DECIMAL.has(currency.toUpperCase()) ? 0 : 2);

/** Major units (e.g. 1234.5 DKK) → integer minor units (123450), 2 decimals. */
export const toMinor = (major: number): number => safe(toScaled(major, 2));
/** Integer minor units → major units for JSON (12345 → 123.45): exact to the displayed decimals. */
export const fromMinor = (minor: number | bigint, digits = 2): number => Number(minor) / 10 ** digits;

/** n / d rounded half away from zero (d > 0). */
export function roundDiv(n: bigint, d: bigint): bigint {
  const negative = n < 0n;
  const abs = negative ? -n : n;
  const q = (abs * 2n + d) / (d * 2n);
  return negative ? -q : q;
}

/** unit price (minor) × quantity (scaled ×10,000) → minor. */
export const timesQuantity = (unitMinor: number, qtyScaled: bigint): number =>
  safe(roundDiv(BigInt(unitMinor) * qtyScaled, QTY_SCALE));

/** `percent` % of an amount in minor units (percent scaled ×10,000). */
export const percentOf = (amountMinor: number, percentScaled: bigint): number =>
  safe(roundDiv(BigInt(amountMinor) * percentScaled, 100n * PERCENT_SCALE));

export const qtyOf = (quantity: number): bigint => toScaled(quantity, 4);
export const qtyNumber = (scaled: bigint): number => Number(scaled) / Number(QTY_SCALE);
export const percentScaled = (percent: number): bigint => toScaled(percent, 4);

/** Removes float noise from a computed number (0.1 + 0.2 → 0.3): rounded to `decimals` places. */
export const clean = (value: number, decimals = 6): number => Number(toScaled(value, decimals)) / 10 ** decimals;
