import { evalWhen, isLineSubject, leafConditions, type ConditionEnv, type LineView } from './conditions';
import { compileExpression, evaluateCompiled, type Scalar } from './expressions';
import {
  applyTotals,
  lineTotalMinor,
  productPrice,
  unitMinorOf,
  type OfferAdjustment,
  type TraceEffect,
  type WorkLine,
} from './lines';
import { clean, fromMinor, qtyNumber, qtyOf, toMinor } from '../../platform/shared/money';
import {
  PHASES,
  type Action,
  type InputField,
  type InputLine,
  type PricingRules,
  type Product,
  type Rule,
  type Target,
} from './pricing.schemas';
import { coerceFields, computeFields } from './fields';
import { applyAction, type ActionEnv, type Message } from './actions';

// The pricing-rule engine: pure and deterministic (no clock, no randomness, no I/O, no eval). Rules
// run phase by phase (inputs → lines → adjustments → totals), by `order` within a phase; each rule
// either runs once (offer scope) or once per line (line scope: its conditions read line./product.).
// Money is integer minor units throughout; every rule leaves a trace entry.

export interface EvaluateInput {
  inputFields: InputField[];
  pricing: PricingRules;
  fields?: Record<string, Scalar | null>;
  lines?: InputLine[];
  customer?: ConditionEnv['customer'];
  offer?: ConditionEnv['offer'];
  /** Products beyond the offer type's own price list (e.g. sent with a simulation). */
  products?: Product[];
}

export type { TraceEffect };
export interface TraceEntry {
  ruleId: string;
  ruleName: string;
  phase: string;
  order: number;
  scope: 'offer' | 'line';
  matched: boolean;
  matchedLines?: string[];
  skipped?: 'disabled' | 'stopped';
  effects: TraceEffect[];
}
export type { Message };

export const EXPRESSION_BUILTINS = ['subtotal', 'manualDiscountPercent', 'quantity', 'unitPrice', 'lineTotal'] as const;

export const ruleScope = (rule: Rule): 'offer' | 'line' =>
  rule.scope ??
  (leafConditions(rule.when).some(({ condition }) => condition.subject && isLineSubject(condition.subject))
    ? 'line'
    : 'offer');

/** Execution order: phase, then order, then position in the list (stable). */
export function sortRules(rules: Rule[]): Rule[] {
  return rules
    .map((rule, i) => ({ rule, i }))
    .sort(
      (a, b) => PHASES.indexOf(a.rule.phase) - PHASES.indexOf(b.rule.phase) || a.rule.order - b.rule.order || a.i - b.i,
    )
    .map((x) => x.rule);
}

export function evaluatePricing(input: EvaluateInput) {
  const { pricing } = input;
  const warnings: Message[] = [];
  const blocks: Message[] = [];
  const trace: TraceEntry[] = [];
  const catalog = new Map<string, Product>();
  for (const p of [...pricing.products, ...(input.products ?? [])]) catalog.set(p.id, p);

  const coerced = coerceFields(input.inputFields, input.fields ?? {});
  const fields = coerced.values;
  for (const id of coerced.missing)
    warnings.push({ ruleId: null, ruleName: null, message: `required field "${id}" has no value` });
  // Fields only rules set exist (without a value) from the start, so formulas may name them.
  for (const rule of pricing.rules)
    for (const a of rule.then) if (a.type === 'set_field' && !Object.hasOwn(fields, a.field)) fields[a.field] = null;
  let computed = computeFields(input.inputFields, fields);
  const setByRules = new Set<string>();

  let defaultVat = pricing.vatRate;
  const lines: WorkLine[] = [];
  const adjustments: OfferAdjustment[] = [];
  const lineCounters = new Map<string, number>();
  const subtotalMinor = () =>
    lines.reduce((sum, l) => sum + lineTotalMinor(l), 0) + adjustments.reduce((s, a) => s + a.amountMinor, 0);
  const view = (l: WorkLine): LineView => ({
    id: l.id,
    lineKey: l.key,
    source: l.source,
    name: l.name,
    productId: l.productId,
    category: l.category,
    unit: l.unit,
    product: l.product,
    quantity: qtyNumber(l.qty),
    unitPrice: fromMinor(unitMinorOf(l)),
    total: fromMinor(lineTotalMinor(l)),
  });
  const env = (line: WorkLine | null): ConditionEnv => ({
    fields,
    customer: input.customer ?? {},
    offer: input.offer ?? {},
    subtotal: () => fromMinor(subtotalMinor()),
    lineCount: () => lines.length,
    line: line ? view(line) : null,
    scope: () => scope(line),
  });
  const scope = (line: WorkLine | null): Record<string, Scalar | null> => ({
    ...fields,
    subtotal: fromMinor(subtotalMinor()),
    manualDiscountPercent: input.offer?.manualDiscountPercent ?? 0,
    ...(line
      ? {
          quantity: qtyNumber(line.qty),
          unitPrice: fromMinor(unitMinorOf(line)),
          lineTotal: fromMinor(lineTotalMinor(line)),
        }
      : {}),
  });
  const numberOf = (
    literal: number | undefined,
    expression: string | undefined,
    line: WorkLine | null,
    fallback?: number,
  ): number | { error: string } => {
    if (literal !== undefined) return literal;
    if (expression !== undefined) {
      const vars = scope(line);
      const compiled = compileExpression(expression, Object.keys(vars));
      if (!compiled.ok) return { error: compiled.error };
      const result = evaluateCompiled(compiled.compiled, vars);
      if (!result.ok) return { error: result.error };
      if (typeof result.value !== 'number') return { error: 'the expression must give a number' };
      return clean(result.value);
    }
    return fallback ?? { error: 'no value and no expression' };
  };

  const newLine = (
    base: Omit<WorkLine, 'id' | 'adjustments' | 'vatRate'> & { vatRate?: number | null; id?: string },
  ): WorkLine => {
    const prefix = base.ruleId ?? 'line';
    const n = (lineCounters.get(prefix) ?? 0) + 1;
    lineCounters.set(prefix, n);
    const line: WorkLine = { ...base, id: base.id ?? `${prefix}-${n}`, adjustments: [], vatRate: base.vatRate ?? null };
    lines.push(line);
    return line;
  };
  const priceFromProduct = (product: Product, qty: bigint, line: WorkLine | null) =>
    productPrice(product, qty, (when) => evalWhen(when, env(line)));

  for (const [i, l] of (input.lines ?? []).entries()) {
    const product = l.productId ? (catalog.get(l.productId) ?? null) : null;
    if (l.productId && !product && l.unitPrice === undefined) {
      warnings.push({
        ruleId: null,
        ruleName: null,
        message: `lines.${i}: unknown product "${l.productId}"; the line was left out`,
      });
      continue;
    }
    const qty = qtyOf(l.quantity ?? 1);
    const priced =
      l.unitPrice !== undefined
        ? { price: { kind: 'fixed' as const, unitMinor: toMinor(l.unitPrice) }, priceSource: 'input' }
        : priceFromProduct(product!, qty, null);
    newLine({
      id: l.id ?? `line-${i + 1}`,
      key: l.lineKey ?? null,
      source: 'input',
      ruleId: null,
      productId: l.productId ?? null,
      product,
      name: l.name ?? product?.name ?? '',
      unit: l.unit ?? product?.unit ?? null,
      category: l.category ?? product?.category ?? null,
      description: l.description ?? null,
      qty,
      ...priced,
      vatRate: l.vatRate ?? product?.vatRate ?? null,
    });
  }

  const targets = (target: Target | undefined, line: WorkLine | null): WorkLine[] => {
    if (line) return [line];
    if (!target || target === 'all') return [...lines];
    return lines.filter(
      (l) =>
        (target.productId === undefined || l.productId === target.productId) &&
        (target.category === undefined || (l.category ?? '').toLowerCase() === target.category.toLowerCase()) &&
        (target.lineKey === undefined || l.key === target.lineKey) &&
        (target.source === undefined || l.source === target.source),
    );
  };

  const actionEnv: ActionEnv = {
    warnings,
    blocks,
    catalog,
    lines,
    adjustments,
    fields,
    setByRules,
    get defaultVat() {
      return defaultVat;
    },
    set defaultVat(rate: number) {
      defaultVat = rate;
    },
    subtotalMinor,
    scope,
    numberOf,
    newLine,
    priceFromProduct,
    targets,
  };
  const apply = (rule: Rule, action: Action, line: WorkLine | null): TraceEffect[] =>
    applyAction(actionEnv, rule, action, line);

  const ordered = sortRules(pricing.rules);
  for (const phase of PHASES) {
    let stopped = false;
    for (const rule of ordered.filter((r) => r.phase === phase)) {
      const scope = ruleScope(rule);
      const entry: TraceEntry = {
        ruleId: rule.id,
        ruleName: rule.name,
        phase,
        order: rule.order,
        scope,
        matched: false,
        effects: [],
      };
      trace.push(entry);
      if (rule.enabled === false) {
        entry.skipped = 'disabled';
        continue;
      }
      if (stopped) {
        entry.skipped = 'stopped';
        continue;
      }
      if (scope === 'offer') {
        entry.matched = evalWhen(rule.when, env(null));
        if (entry.matched) for (const action of rule.then) entry.effects.push(...apply(rule, action, null));
      } else {
        entry.matchedLines = [];
        for (const line of [...lines]) {
          if (!evalWhen(rule.when, env(line))) continue;
          entry.matchedLines.push(line.id);
          for (const action of rule.then) entry.effects.push(...apply(rule, action, line));
        }
        entry.matched = entry.matchedLines.length > 0;
      }
      if (entry.matched && rule.stopProcessing) stopped = true;
    }
    // Computed fields follow the values the inputs phase set (a field a rule set itself stays).
    if (phase === 'inputs') {
      if (setByRules.size) computed = computeFields(input.inputFields, fields, setByRules);
      for (const w of computed.warnings) warnings.push({ ruleId: null, ruleName: null, message: w });
    }
  }

  const totals = applyTotals(lines, adjustments, defaultVat, pricing.vatDisplayMode);
  for (const w of totals.warnings) warnings.push({ ruleId: null, ruleName: null, message: w });
  return {
    currency: pricing.currency,
    vatDisplayMode: pricing.vatDisplayMode,
    fields: { ...fields },
    computedFields: computed.values,
    lines: totals.lines,
    adjustments: totals.adjustments,
    subtotal: totals.subtotal,
    vatAmount: totals.vatAmount,
    total: totals.total,
    vatBreakdown: totals.vatBreakdown,
    amountsMinor: totals.amountsMinor,
    warnings,
    blocks,
    blocked: blocks.length > 0,
    trace,
    inputErrors: coerced.errors,
    missingFields: coerced.missing,
  };
}
export type Evaluation = ReturnType<typeof evaluatePricing>;
