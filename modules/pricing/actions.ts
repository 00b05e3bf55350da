import { compileExpression, evaluateCompiled, type Scalar } from './expressions';
import { baseMinor, type OfferAdjustment, type TraceEffect, type WorkLine } from './lines';
import {
  clean,
  fromMinor,
  percentScaled,
  qtyNumber,
  qtyOf,
  roundDiv,
  QTY_SCALE,
  toMinor,
} from '../../platform/shared/money';
import type { Action, Product, Rule, Target } from './pricing.schemas';

// What each pricing-rule action does to the evaluation (engine.ts runs the rules; this applies one action).

/** A message of a rule (or of the engine: ruleId null). */
export interface Message {
  ruleId: string | null;
  ruleName: string | null;
  message: string;
}

/** The evaluation an action reads and changes (owned by evaluatePricing). */
export interface ActionEnv {
  warnings: Message[];
  blocks: Message[];
  catalog: Map<string, Product>;
  lines: WorkLine[];
  adjustments: OfferAdjustment[];
  fields: Record<string, Scalar | null>;
  setByRules: Set<string>;
  defaultVat: number;
  subtotalMinor: () => number;
  scope: (line: WorkLine | null) => Record<string, Scalar | null>;
  numberOf: (
    literal: number | undefined,
    expression: string | undefined,
    line: WorkLine | null,
    fallback?: number,
  ) => number | { error: string };
  newLine: (
    base: Omit<WorkLine, 'id' | 'adjustments' | 'vatRate'> & { vatRate?: number | null; id?: string },
  ) => WorkLine;
  priceFromProduct: (product: Product, qty: bigint, line: WorkLine | null) => Pick<WorkLine, 'price' | 'priceSource'>;
  targets: (target: Target | undefined, line: WorkLine | null) => WorkLine[];
}

export function applyAction(env: ActionEnv, rule: Rule, action: Action, line: WorkLine | null): TraceEffect[] {
  const fail = (error: string): TraceEffect[] => {
    env.warnings.push({ ruleId: rule.id, ruleName: rule.name, message: `${action.type}: ${error}` });
    return [{ action: action.type, ...(line ? { lineId: line.id } : {}), description: 'not applied', error }];
  };
  switch (action.type) {
    case 'add_line':
    case 'add_product': {
      const quantity = env.numberOf(action.quantity, action.quantityExpression, line, 1);
      if (typeof quantity !== 'number') return fail(quantity.error);
      if (quantity < 0) return fail('the quantity is negative');
      if (quantity === 0) return [{ action: action.type, description: 'quantity 0: no line added' }];
      const qty = qtyOf(quantity);
      if (action.type === 'add_product') {
        const product = env.catalog.get(action.productId);
        if (!product) return fail(`unknown product "${action.productId}"`);
        const added = env.newLine({
          key: action.lineKey ?? null,
          source: 'rule',
          ruleId: rule.id,
          productId: product.id,
          product,
          name: action.name ?? product.name,
          unit: product.unit ?? null,
          category: product.category ?? null,
          description: null,
          qty,
          ...env.priceFromProduct(product, qty, line),
          vatRate: product.vatRate ?? null,
        });
        return [
          {
            action: action.type,
            lineId: added.id,
            description: `added ${quantity} × ${product.name} (price: ${added.priceSource})`,
            amount: fromMinor(baseMinor(added)),
          },
        ];
      }
      const unitPrice = env.numberOf(action.unitPrice, action.unitPriceExpression, line);
      if (typeof unitPrice !== 'number') return fail(unitPrice.error);
      const added = env.newLine({
        key: action.lineKey ?? null,
        source: 'rule',
        ruleId: rule.id,
        productId: null,
        product: null,
        name: action.name,
        unit: action.unit ?? null,
        category: action.category ?? null,
        description: action.description ?? null,
        qty,
        price: { kind: 'fixed', unitMinor: toMinor(unitPrice) },
        priceSource: `rule:${rule.id}`,
        vatRate: action.vatRate ?? null,
      });
      return [
        {
          action: action.type,
          lineId: added.id,
          description: `added ${quantity} × ${action.name} at ${fromMinor(toMinor(unitPrice))}`,
          amount: fromMinor(baseMinor(added)),
        },
      ];
    }
    case 'set_price':
    case 'set_quantity':
    case 'multiply_quantity': {
      const picked = env.targets(action.target, line);
      const literal =
        action.type === 'set_price'
          ? action.unitPrice
          : action.type === 'set_quantity'
            ? action.quantity
            : action.factor;
      const effects: TraceEffect[] = [];
      for (const l of picked) {
        const value = env.numberOf(literal, action.expression, l);
        if (typeof value !== 'number') return fail(value.error);
        if (action.type === 'set_price') {
          l.price = { kind: 'fixed', unitMinor: toMinor(value) };
          l.priceSource = `rule:${rule.id}`;
          effects.push({
            action: action.type,
            lineId: l.id,
            description: `unit price set to ${fromMinor(toMinor(value))}`,
          });
        } else {
          if (value < 0) return fail('the quantity is negative');
          l.qty = action.type === 'set_quantity' ? qtyOf(value) : roundDiv(l.qty * qtyOf(value), QTY_SCALE);
          effects.push({ action: action.type, lineId: l.id, description: `quantity now ${qtyNumber(l.qty)}` });
        }
      }
      return effects.length ? effects : [{ action: action.type, description: 'no line matched the target' }];
    }
    case 'percent_discount':
    case 'percent_surcharge':
    case 'fixed_discount':
    case 'fixed_surcharge': {
      const isPercent = action.type.startsWith('percent');
      const sign = action.type.endsWith('discount') ? -1 : 1;
      const label = action.label ?? rule.name;
      const value = env.numberOf(
        isPercent ? (action as { percent?: number }).percent : (action as { amount?: number }).amount,
        action.expression,
        line,
      );
      if (typeof value !== 'number') return fail(value.error);
      if (value < 0) return fail('the value is negative');
      if (isPercent && sign < 0 && value > 100) return fail('a discount cannot exceed 100%');
      if (!isPercent && !line && !action.target) {
        env.adjustments.push({ ruleId: rule.id, label, amountMinor: sign * toMinor(value), vatRate: env.defaultVat });
        return [
          {
            action: action.type,
            description: `${sign < 0 ? 'discount' : 'surcharge'} of ${fromMinor(toMinor(value))} on the offer`,
            amount: fromMinor(sign * toMinor(value)),
          },
        ];
      }
      const effects: TraceEffect[] = [];
      for (const l of env.targets(action.target, line)) {
        const effect: TraceEffect = {
          action: action.type,
          lineId: l.id,
          description: isPercent
            ? `${sign < 0 ? '-' : '+'}${value}% on ${l.name}`
            : `${sign < 0 ? '-' : '+'}${fromMinor(toMinor(value))} on ${l.name}`,
        };
        l.adjustments.push(
          isPercent
            ? { sign, percent: percentScaled(value), ruleId: rule.id, label, effect }
            : { sign, amountMinor: toMinor(value), ruleId: rule.id, label, effect },
        );
        effects.push(effect);
      }
      return effects.length ? effects : [{ action: action.type, description: 'no line matched the target' }];
    }
    case 'minimum_total': {
      const current = env.subtotalMinor();
      const minimum = toMinor(action.amount);
      if (current >= minimum)
        return [
          {
            action: action.type,
            description: `subtotal ${fromMinor(current)} already reaches ${fromMinor(minimum)}`,
          },
        ];
      env.adjustments.push({
        ruleId: rule.id,
        label: action.label ?? rule.name,
        amountMinor: minimum - current,
        vatRate: env.defaultVat,
      });
      return [
        {
          action: action.type,
          description: `raised the subtotal to ${fromMinor(minimum)}`,
          amount: fromMinor(minimum - current),
        },
      ];
    }
    case 'set_vat': {
      if (!line && !action.target) {
        env.defaultVat = action.rate;
        for (const l of env.lines) l.vatRate = action.rate;
        for (const a of env.adjustments) a.vatRate = action.rate;
        return [{ action: action.type, description: `VAT ${action.rate}% on the whole offer` }];
      }
      const picked = env.targets(action.target, line);
      for (const l of picked) l.vatRate = action.rate;
      return picked.map((l) => ({
        action: action.type,
        lineId: l.id,
        description: `VAT ${action.rate}% on ${l.name}`,
      }));
    }
    case 'set_field': {
      let value: Scalar;
      if (action.value !== undefined) value = action.value;
      else {
        const vars = env.scope(line);
        const compiled = compileExpression(action.expression ?? '', Object.keys(vars));
        if (!compiled.ok) return fail(compiled.error);
        const result = evaluateCompiled(compiled.compiled, vars);
        if (!result.ok) return fail(result.error);
        value = typeof result.value === 'number' ? clean(result.value) : result.value;
      }
      env.fields[action.field] = value;
      env.setByRules.add(action.field);
      return [{ action: action.type, description: `${action.field} = ${JSON.stringify(value)}` }];
    }
    case 'warn':
    case 'block':
      (action.type === 'warn' ? env.warnings : env.blocks).push({
        ruleId: rule.id,
        ruleName: rule.name,
        message: action.message,
      });
      return [{ action: action.type, description: action.message }];
  }
}
