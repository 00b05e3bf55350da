// Exact money arithmetic for the pricing engine: amounts are integer minor units (øre, cents),
// quantities and percentages are scaled integers (×10,000), products and divisions use BigInt with
// one rounding step (half away from zero). Floats never accumulate.

export const QTY_SCALE = 10_000n;
export const PERCENT_SCALE = 10_000n;

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

/** Thrown when an amount leaves the range integers are exact in; the API answers 400. */
export class AmountRangeError extends RangeError {}

/** A BigInt result as a number, refusing values beyond 2^53 (they would lose cents). */
export function safe(value: bigint): number {
  if (value > BigInt(Number.MAX_SAFE_INTEGER) || value < -BigInt(Number.MAX_SAFE_INTEGER))
    throw new AmountRangeError('an amount exceeds the supported range (about ±90 trillion minor units)');
  return Number(value);
}

/** Major units (e.g. 1234.5 DKK) → integer minor units (123450). */
export const toMinor = (major: number): number => safe(toScaled(major, 2));
/** Integer minor units → major units for JSON (exact to the cent in its decimal form). */
export const fromMinor = (minor: number | bigint): number => Number(minor) / 100;

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
