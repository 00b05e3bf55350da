import {
  AmountRangeError,
  fromMinor,
  percentOf,
  qtyNumber,
  qtyOf,
  QTY_SCALE,
  roundDiv,
  safe,
  timesQuantity,
  toMinor,
  toScaled,
} from '../../platform/shared/money';
import type { Action, ConditionGroup, Product, VatDisplayMode } from './pricing.schemas';

export interface TraceEffect {
  action: Action['type'];
  lineId?: string;
  description: string;
  amount?: number;
  error?: string;
}

// Lines, tiered and conditional product prices, and totals with VAT per rate. Amounts are integer
// minor units; a line's adjustments are kept as specs and computed on its final base amount.

export type LinePrice =
  | { kind: 'fixed'; unitMinor: number }
  | { kind: 'tiered'; mode: 'volume' | 'graduated'; tiers: { upTo: bigint | null; unitMinor: number }[] };
export interface LineAdjustment {
  sign: number;
  percent?: bigint;
  amountMinor?: number;
  ruleId: string;
  label: string;
  effect: TraceEffect;
}
export interface WorkLine {
  id: string;
  key: string | null;
  source: 'input' | 'rule';
  ruleId: string | null;
  productId: string | null;
  product: Product | null;
  name: string;
  unit: string | null;
  category: string | null;
  description: string | null;
  qty: bigint;
  price: LinePrice;
  priceSource: string;
  adjustments: LineAdjustment[];
  vatRate: number | null;
}
export interface OfferAdjustment {
  ruleId: string;
  label: string;
  amountMinor: number;
  vatRate: number;
}

/**
 * quantity × unit price; volume tiers price the whole quantity at its tier, graduated tiers each portion at its own.
 */
export function baseMinor(line: WorkLine): number {
  const { price, qty } = line;
  if (price.kind === 'fixed') return timesQuantity(price.unitMinor, qty);
  if (price.mode === 'volume') {
    const tier = price.tiers.find((t) => t.upTo === null || qty <= t.upTo) ?? price.tiers[price.tiers.length - 1]!;
    return timesQuantity(tier.unitMinor, qty);
  }
  let total = 0;
  let previous = 0n;
  for (const tier of price.tiers) {
    const cap = tier.upTo === null || tier.upTo > qty ? qty : tier.upTo;
    if (cap > previous) total += timesQuantity(tier.unitMinor, cap - previous);
    previous = cap > previous ? cap : previous;
    if (previous >= qty) break;
  }
  // Quantity beyond the last bounded tier is priced at the last tier.
  if (previous < qty) total += timesQuantity(price.tiers[price.tiers.length - 1]!.unitMinor, qty - previous);
  return total;
}

export function unitMinorOf(line: WorkLine): number {
  if (line.price.kind === 'fixed') return line.price.unitMinor;
  return line.qty > 0n ? Number(roundDiv(BigInt(baseMinor(line)) * QTY_SCALE, line.qty)) : 0;
}

const adjustmentMinor = (base: number, adj: LineAdjustment): number =>
  adj.sign * (adj.percent !== undefined ? percentOf(base, adj.percent) : (adj.amountMinor ?? 0));

export function lineTotalMinor(line: WorkLine): number {
  const base = baseMinor(line);
  return base + line.adjustments.reduce((sum, adj) => sum + adjustmentMinor(base, adj), 0);
}

/**
 * The price of a product line: for `advanced` products the first matching conditional price wins,
 * then tiers; otherwise (and for `fixed` products) the unit price.
 */
export function productPrice(
  product: Product,
  _qty: bigint,
  matches: (when: ConditionGroup) => boolean,
): { price: LinePrice; priceSource: string } {
  if (product.pricingType === 'advanced') {
    const conditional = product.conditionalRules?.findIndex((c) => matches(c.when)) ?? -1;
    if (conditional >= 0) {
      const c = product.conditionalRules![conditional]!;
      return {
        price: { kind: 'fixed', unitMinor: toMinor(c.unitPrice) },
        priceSource: `conditional:${c.label ?? conditional}`,
      };
    }
    if (product.tieredPricing) {
      const tiers = [...product.tieredPricing.tiers]
        .map((t) => ({
          upTo: t.upTo === null || t.upTo === undefined ? null : qtyOf(t.upTo),
          unitMinor: toMinor(t.unitPrice),
        }))
        .sort((a, b) => (a.upTo === null ? 1 : b.upTo === null ? -1 : a.upTo < b.upTo ? -1 : a.upTo > b.upTo ? 1 : 0));
      return {
        price: { kind: 'tiered', mode: product.tieredPricing.mode ?? 'volume', tiers },
        priceSource: `tiers:${product.tieredPricing.mode ?? 'volume'}`,
      };
    }
  }
  return { price: { kind: 'fixed', unitMinor: toMinor(product.unitPrice) }, priceSource: 'product' };
}

const vatOf = (baseMinorAmount: number, rate: number): number =>
  safe(roundDiv(BigInt(baseMinorAmount) * toScaled(rate, 4), 1_000_000n));

function display(mode: VatDisplayMode, unitMinor: number, totalMinor: number, rate: number) {
  const excl = { unitPrice: fromMinor(unitMinor), total: fromMinor(totalMinor) };
  const incl = {
    unitPrice: fromMinor(unitMinor + vatOf(unitMinor, rate)),
    total: fromMinor(totalMinor + vatOf(totalMinor, rate)),
  };
  if (mode === 'excl') return { mode, ...excl };
  if (mode === 'incl') return { mode, ...incl };
  return { mode, excl, incl };
}

/**
 * Final amounts. VAT is computed once per rate on the sum of that rate's lines and adjustments (no
 * per-line rounding drift); each line's own `vatAmount` is informational and may differ by a minor unit.
 */
export function applyTotals(
  lines: WorkLine[],
  adjustments: OfferAdjustment[],
  defaultVat: number,
  mode: VatDisplayMode,
) {
  const warnings: string[] = [];
  const byRate = new Map<number, number>();
  const outLines = lines.map((l) => {
    const base = baseMinor(l);
    let total = lineTotalMinor(l);
    for (const adj of l.adjustments) adj.effect.amount = fromMinor(adjustmentMinor(base, adj));
    if (base >= 0 && total < 0) {
      warnings.push(`discounts on "${l.name}" exceed its amount; the line total is 0`);
      total = 0;
    }
    const rate = l.vatRate ?? defaultVat;
    byRate.set(rate, (byRate.get(rate) ?? 0) + total);
    const unit = unitMinorOf(l);
    return {
      id: l.id,
      lineKey: l.key,
      source: l.source,
      ruleId: l.ruleId,
      productId: l.productId,
      name: l.name,
      description: l.description,
      unit: l.unit,
      category: l.category,
      quantity: qtyNumber(l.qty),
      unitPrice: fromMinor(unit),
      priceSource: l.priceSource,
      baseTotal: fromMinor(base),
      adjustments: l.adjustments.map((a) => ({
        ruleId: a.ruleId,
        label: a.label,
        ...(a.percent !== undefined ? { percent: Number(a.percent) / 10_000 } : {}),
        amount: fromMinor(adjustmentMinor(base, a)),
      })),
      total: fromMinor(total),
      totalMinor: total,
      vatRate: rate,
      vatAmount: fromMinor(vatOf(total, rate)),
      display: display(mode, unit, total, rate),
    };
  });
  for (const a of adjustments) byRate.set(a.vatRate, (byRate.get(a.vatRate) ?? 0) + a.amountMinor);
  const subtotal = [...byRate.values()].reduce((s, v) => s + v, 0);
  if (!Number.isSafeInteger(subtotal)) throw new AmountRangeError('the subtotal exceeds the supported range');
  if (subtotal < 0) warnings.push('the subtotal is negative');
  const vatBreakdown = [...byRate.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([rate, base]) => ({
      rate,
      base: fromMinor(base),
      vat: fromMinor(vatOf(base, rate)),
      vatMinor: vatOf(base, rate),
    }));
  const vatMinor = vatBreakdown.reduce((s, v) => s + v.vatMinor, 0);
  return {
    lines: outLines,
    adjustments: adjustments.map((a) => ({
      ruleId: a.ruleId,
      label: a.label,
      amount: fromMinor(a.amountMinor),
      vatRate: a.vatRate,
    })),
    subtotal: fromMinor(subtotal),
    vatAmount: fromMinor(vatMinor),
    total: fromMinor(subtotal + vatMinor),
    vatBreakdown: vatBreakdown.map(({ rate, base, vat }) => ({ rate, base, vat })),
    amountsMinor: { subtotal, vatAmount: vatMinor, total: subtotal + vatMinor },
    warnings,
  };
}
