import { newId } from '../../platform/ids';
import { validation } from '../../platform/errors';
import {
  AmountRangeError,
  DEFAULT_VAT_RATE,
  fromMinor,
  LINE_DECIMALS,
  percentOf,
  percentScaled,
  roundDiv,
  safe,
  toMinor,
  toScaled,
} from '../../platform/shared/money';
import type { ContractLine } from './contract.entity';

/** A line as written by the API caller (decimal amounts). */
export interface LineInput {
  name?: string | null;
  description?: string | null;
  quantity: number;
  unitPrice: number;
  unit?: string | null;
  vatRate?: number;
}

export { DEFAULT_VAT_RATE, fromMinor, toMinor };

const LINE_SCALE = 10n ** BigInt(LINE_DECIMALS);

/**
 * Prices the lines in integer minor units with the pricing engine's exact BigInt arithmetic: the unit
 * price is rounded to the minor unit, subtotal = round(unit price × quantity), VAT = round(subtotal ×
 * rate / 100), each half away from zero; totals are exact sums. Amounts beyond 2^53 minor units → 400.
 */
export function priceLines(lines: readonly LineInput[]): {
  lines: ContractLine[];
  subtotalMinor: number;
  vatMinor: number;
  totalMinor: number;
} {
  let subtotal = 0n;
  let vat = 0n;
  try {
    const priced = lines.map((l): ContractLine => {
      const unitPriceMinor = toMinor(l.unitPrice);
      const vatRate = l.vatRate ?? DEFAULT_VAT_RATE;
      // Quantities keep 6 decimals (as offers do); the engine's timesQuantity keeps 4.
      const subtotalMinor = safe(roundDiv(BigInt(unitPriceMinor) * toScaled(l.quantity, LINE_DECIMALS), LINE_SCALE));
      const vatMinor = percentOf(subtotalMinor, percentScaled(vatRate));
      const totalMinor = safe(BigInt(subtotalMinor) + BigInt(vatMinor));
      subtotal += BigInt(subtotalMinor);
      vat += BigInt(vatMinor);
      return {
        id: newId(),
        name: l.name ?? null,
        description: l.description ?? null,
        quantity: l.quantity,
        unit: l.unit ?? null,
        unitPriceMinor,
        vatRate,
        subtotalMinor,
        vatMinor,
        totalMinor,
      };
    });
    return { lines: priced, subtotalMinor: safe(subtotal), vatMinor: safe(vat), totalMinor: safe(subtotal + vat) };
  } catch (err) {
    if (err instanceof AmountRangeError) {
      throw validation(`lineItems: ${err.message}; use smaller prices or quantities`, [
        { path: 'lineItems', error: err.message },
      ]);
    }
    throw err;
  }
}

/** The API's view of a line: decimal amounts computed from the minor units. */
export const lineView = (l: ContractLine) => ({
  id: l.id,
  name: l.name,
  description: l.description,
  quantity: l.quantity,
  unit: l.unit,
  unitPrice: fromMinor(l.unitPriceMinor),
  vatRate: l.vatRate,
  subtotal: fromMinor(l.subtotalMinor),
  vatAmount: fromMinor(l.vatMinor),
  total: fromMinor(l.totalMinor),
});
