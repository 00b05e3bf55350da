import { newId } from '../../platform/ids';
import {
  fromMinor,
  LINE_DECIMALS,
  minorDigits,
  RATE_DECIMALS,
  roundDiv,
  toScaledExact,
} from '../../platform/shared/money';
import type { OfferLineView } from './offer-line.views';

/**
 * Offer lines in exact integers (pure, no I/O; arithmetic from shared/money). Inputs are decimals with at most
 * 6 places (quantity, unitPrice) and 2 places (vatRate, percent); each is scaled to a BigInt, so no binary
 * float ever enters a sum. Money results are integer minor units (øre, cents).
 *
 * Rounding (documented in the API): each line's net = quantity × unitPrice rounded to the minor
 * unit, half away from zero; each line's VAT = net × vatRate / 100 rounded the same way;
 * subtotal, vatAmount and total are exact sums of the rounded lines (total = subtotal + vatAmount).
 */

export const MAX_LINE_ITEMS = 500;
export const MAX_UNIT_PRICE = 1_000_000_000;
export const MAX_QUANTITY = 1_000_000;

export interface LineInput {
  id?: string;
  name?: string;
  description?: string;
  quantity?: number;
  unitPrice: number;
  unit?: string;
  vatRate?: number;
  productId?: string;
}

export interface StoredLine {
  id: string;
  name: string | null;
  description: string | null;
  quantity: number;
  unitPrice: number;
  unit: string | null;
  vatRate: number;
  productId: string | null;
  netMinor: number;
  vatMinor: number;
  totalMinor: number;
}

export interface Totals {
  subtotalMinor: number;
  vatMinor: number;
  totalMinor: number;
}

/** Largest minor-unit amount kept (Postgres bigint and JSON numbers stay exact below 2^53). */
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

export class MoneyError extends Error {
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(message);
  }
}

/** One line's amounts in minor units (pure). */
export function lineAmounts(
  quantity: number,
  unitPrice: number,
  vatRate: number,
  digits: number,
  path = 'lineItems',
): { netMinor: bigint; vatMinor: bigint } {
  const q = toScaledExact(quantity, LINE_DECIMALS);
  if (q === null) throw new MoneyError(`${path}.quantity`, 'must have at most 6 decimals');
  const p = toScaledExact(unitPrice, LINE_DECIMALS);
  if (p === null) throw new MoneyError(`${path}.unitPrice`, 'must have at most 6 decimals');
  const r = toScaledExact(vatRate, RATE_DECIMALS);
  if (r === null) throw new MoneyError(`${path}.vatRate`, 'must have at most 2 decimals');
  // q·p carries 12 decimals; the minor unit keeps `digits` of them.
  const netMinor = roundDiv(q * p, 10n ** BigInt(2 * LINE_DECIMALS - digits));
  // rate is percent with 2 decimals: net × r / (100 × 100).
  const vatMinor = roundDiv(netMinor * r, 10_000n);
  return { netMinor, vatMinor };
}

/**
 * Server-side lines: ids generated (kept when a well-formed one is given, so a client can
 * update a line in place), amounts computed, and the offer's totals.
 */
export function computeLines(
  items: readonly LineInput[],
  opts: { defaultVatRate: number; currency: string },
): { lines: StoredLine[]; totals: Totals } {
  const digits = minorDigits(opts.currency);
  let subtotal = 0n;
  let vat = 0n;
  const seen = new Set<string>();
  const lines = items.map((item, i): StoredLine => {
    const quantity = item.quantity ?? 1;
    const vatRate = item.vatRate ?? opts.defaultVatRate;
    const { netMinor, vatMinor } = lineAmounts(quantity, item.unitPrice, vatRate, digits, `lineItems.${i}`);
    subtotal += netMinor;
    vat += vatMinor;
    const id = item.id && /^[0-9a-f]{24}$/.test(item.id) && !seen.has(item.id) ? item.id : newId();
    seen.add(id);
    return {
      id,
      name: item.name ?? null,
      description: item.description ?? null,
      quantity,
      unitPrice: item.unitPrice,
      unit: item.unit ?? null,
      vatRate,
      productId: item.productId ?? null,
      netMinor: Number(netMinor),
      vatMinor: Number(vatMinor),
      totalMinor: Number(netMinor + vatMinor),
    };
  });
  const total = subtotal + vat;
  for (const [name, v] of [
    ['subtotal', subtotal],
    ['total', total],
  ] as const) {
    if (v > MAX_SAFE || v < -MAX_SAFE) throw new MoneyError('lineItems', `the offer ${name} is too large`);
  }
  return { lines, totals: { subtotalMinor: Number(subtotal), vatMinor: Number(vat), totalMinor: Number(total) } };
}

/** A stored line as the API shows it (major units beside the exact minor ones). */
export function lineView(line: StoredLine, digits: number): OfferLineView {
  return {
    id: line.id,
    name: line.name,
    description: line.description,
    quantity: line.quantity,
    unitPrice: line.unitPrice,
    unit: line.unit,
    vatRate: line.vatRate,
    productId: line.productId,
    net: fromMinor(line.netMinor, digits),
    vatAmount: fromMinor(line.vatMinor, digits),
    total: fromMinor(line.totalMinor, digits),
    netMinor: line.netMinor,
    vatMinor: line.vatMinor,
    totalMinor: line.totalMinor,
  };
}
