import { SUBJECTS } from './conditions';
import { EXPRESSION_VOCABULARY } from './expressions';
import type { RuleReferenceView } from './pricing.views';
import {
  ACTION_TYPES,
  DEFAULT_PRICING,
  FIELD_TYPES,
  OPERATOR_ALIASES,
  OPERATORS,
  PHASES,
  VAT_DISPLAY_MODES,
  type ActionType,
  type Operator,
  type Phase,
} from './pricing.schemas';

// The vocabulary of pricing rules as data: served by GET /offer-types/rule-reference and the docs.

const OPERATOR_HELP: Record<Operator, string> = {
  equals: 'same value (strings trimmed, case-insensitive; numbers numerically; booleans as true/false)',
  not_equals: 'not the same value',
  greater_than: 'number > value',
  greater_than_or_equal: 'number ≥ value',
  less_than: 'number < value',
  less_than_or_equal: 'number ≤ value',
  between: 'value [min, max], inclusive',
  in: 'equals one of the array value',
  not_in: 'equals none of the array value',
  contains: 'text contains the value (or a list holds it)',
  not_contains: 'does not contain',
  starts_with: 'text starts with the value',
  is_empty: 'no value (missing, null, "" or [])',
  is_not_empty: 'has a value',
  is_true: 'true (or "true", 1)',
  is_false: 'false or empty',
};

const ACTION_HELP: Record<ActionType, { params: string; description: string }> = {
  add_line: {
    params:
      'name, quantity | quantityExpression (default 1), unitPrice | unitPriceExpression, unit?, vatRate?, category?, description?, lineKey?',
    description: 'adds a line (quantity 0 adds nothing)',
  },
  add_product: {
    params: 'productId, quantity | quantityExpression (default 1), name?, lineKey?',
    description: 'adds a product line priced by the product (conditional price, tiers, unit price)',
  },
  set_price: {
    params: 'unitPrice | expression, target?',
    description: 'sets the unit price of the current line (line rules) or the target lines',
  },
  set_quantity: { params: 'quantity | expression, target?', description: 'sets the quantity' },
  multiply_quantity: {
    params: 'factor | expression, target?',
    description: 'multiplies the quantity (e.g. waste factor 1.1)',
  },
  percent_discount: {
    params: 'percent (0-100) | expression, target?, label?',
    description:
      'percentage off each affected line (offer rules: every line or the target); percentages of one line add up, they do not compound',
  },
  percent_surcharge: {
    params: 'percent (0-1000) | expression, target?, label?',
    description: 'percentage on top of each affected line',
  },
  fixed_discount: {
    params: 'amount | expression, target?, label?',
    description:
      'amount off: per affected line, or (offer rule without target) one offer adjustment taxed at the offer VAT rate',
  },
  fixed_surcharge: {
    params: 'amount | expression, target?, label?',
    description: 'amount on top, like fixed_discount',
  },
  minimum_total: {
    params: 'amount, label?',
    description: 'adds an adjustment that lifts the subtotal to the amount (minimum charge)',
  },
  set_vat: {
    params: 'rate, target?',
    description:
      'VAT rate of the current/target lines; an offer rule without target sets it for the whole offer (e.g. 0 for export)',
  },
  set_field: {
    params: 'field, value | expression',
    description: 'sets a field value that later rules read (field.<id> and expressions)',
  },
  warn: { params: 'message', description: 'adds a warning; the offer can still be made' },
  block: {
    params: 'message',
    description: 'adds a block: the offer must not be made from this calculation (blocked: true)',
  },
};

const PHASE_HELP: Record<Phase, string> = {
  inputs:
    'computed fields are evaluated first (in dependency order), then these rules (set_field); computed fields are evaluated again after them',
  lines: 'lines are added and priced (add_line, add_product, set_price, quantities, VAT)',
  adjustments: 'discounts and surcharges',
  totals: 'minimum totals, warnings and blocks that look at the final amounts',
};

export function ruleReference(): RuleReferenceView {
  return {
    ruleShape: {
      id: 'optional; filled as rule-<n>',
      name: 'required',
      description: 'optional',
      phase: `optional (${PHASES.join(' → ')}); filled from the first action`,
      order: 'optional integer; filled as (position + 1) × 10; lower runs first within a phase',
      enabled: 'default true',
      scope: 'offer | line; inferred: a rule whose conditions read line. or product. runs once per line',
      stopProcessing: 'when the rule matched, the remaining rules of its phase are skipped',
      when: '{ all: [conditions], any: [conditions] }: every all and at least one any; groups nest (≤ 3 deep); omitted = always',
      condition: '{ subject, operator, value } or { expression }',
      then: 'array of 1-20 actions { type, …params }',
    },
    phases: PHASES.map((phase) => ({ phase, description: PHASE_HELP[phase] })),
    subjects: SUBJECTS,
    operators: OPERATORS.map((operator) => ({
      operator,
      description: OPERATOR_HELP[operator],
      aliases: Object.entries(OPERATOR_ALIASES)
        .filter(([, v]) => v === operator)
        .map(([k]) => k),
    })),
    actionTypes: ACTION_TYPES.map((type) => ({ type, ...ACTION_HELP[type] })),
    targets:
      '"all" or { productId?, category?, lineKey?, source?: input|rule } (offer rules; line rules act on their line)',
    fieldTypes: [...FIELD_TYPES],
    expressions: EXPRESSION_VOCABULARY,
    products: {
      shape:
        'pricingRules.products[] or products[] of a simulation: { id, name, unitPrice, unit?, vatRate?, category?, pricingType: fixed|advanced, tieredPricing?: { mode: volume|graduated, tiers: [{ upTo (null = no limit), unitPrice }] }, conditionalRules?: [{ when, unitPrice, label? }], attributes? }',
      pricingTypes: {
        fixed: 'unitPrice only',
        advanced: 'first matching conditional price, else tiers, else unitPrice',
      },
      tierModes: {
        volume: 'the whole quantity at the price of the tier it falls in',
        graduated: 'each portion of the quantity at its own tier price',
      },
    },
    vat: {
      displayModes: {
        excl: 'line prices shown excl. VAT, VAT added on the total',
        incl: 'line prices shown incl. VAT',
        both: 'each line shows excl and incl',
      },
      default: DEFAULT_PRICING,
      rule: "rates are percentages; VAT is computed once per rate on that rate's subtotal; prices in rules and products are always excl. VAT",
    },
    money:
      'amounts in major units (e.g. 1234.5) in and out; computed exactly in integer minor units, rounded half away from zero; amountsMinor carries the integers',
    vatDisplayModes: [...VAT_DISPLAY_MODES],
  };
}
