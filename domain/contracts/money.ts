import { newId } from '../ids';
import type { ContractLine } from './contract.entity';

/** A line as written by the API caller (decimal amounts). */
export interface LineInput { name?: string | null; description?: string | null; quantity: number; unitPrice: number; unit?: string | null; vatRate?: number }

export const DEFAULT_VAT_RATE = 25;

/** Decimal amount → integer minor units (2 decimals), rounding half away from zero. */
const roundHalfAway = (x: number): number => Math.sign(x) * Math.round(Math.abs(x) * (1 + 4 * Number.EPSILON));
export const toMinor = (amount: number): number => roundHalfAway(amount * 100);
export const fromMinor = (minor: number): number => minor / 100;

/** Prices the lines in integer minor units: per line subtotal = round(quantity × unit price), VAT = round(subtotal × rate). */
export function priceLines(lines: readonly LineInput[]): { lines: ContractLine[]; subtotalMinor: number; vatMinor: number; totalMinor: number } {
  const priced = lines.map((l): ContractLine => {
    const unitPriceMinor = toMinor(l.unitPrice);
    const vatRate = l.vatRate ?? DEFAULT_VAT_RATE;
    const subtotalMinor = roundHalfAway(unitPriceMinor * l.quantity);
    const vatMinor = roundHalfAway((subtotalMinor * vatRate) / 100);
    return {
      id: newId(), name: l.name ?? null, description: l.description ?? null, quantity: l.quantity, unit: l.unit ?? null,
      unitPriceMinor, vatRate, subtotalMinor, vatMinor, totalMinor: subtotalMinor + vatMinor,
    };
  });
  const sum = (k: 'subtotalMinor' | 'vatMinor' | 'totalMinor') => priced.reduce((acc, l) => acc + l[k], 0);
  return { lines: priced, subtotalMinor: sum('subtotalMinor'), vatMinor: sum('vatMinor'), totalMinor: sum('totalMinor') };
}

/** The API's view of a line: decimal amounts computed from the minor units. */
export const lineView = (l: ContractLine) => ({
  id: l.id, name: l.name, description: l.description, quantity: l.quantity, unit: l.unit, unitPrice: fromMinor(l.unitPriceMinor), vatRate: l.vatRate,
  subtotal: fromMinor(l.subtotalMinor), vatAmount: fromMinor(l.vatMinor), total: fromMinor(l.totalMinor),
});
