import { CUSTOMER_SUBJECTS, LINE_SUBJECTS, PRODUCT_SUBJECTS, isLineSubject, leafConditions } from './conditions';
import { EXPRESSION_BUILTINS, ruleScope } from './engine';
import { compileExpression, isReservedName, type CompiledExpression } from './expressions';
import { computedOrder, type FieldError } from './fields';
import {
  DEFAULT_PRICING,
  PHASES,
  type Action,
  type ActionType,
  type Condition,
  type InputField,
  type Phase,
  type PricingRules,
  type PricingRulesInput,
  type Rule,
  type RuleInput,
} from './pricing.schemas';

// Checks an offer type as a whole (what zod cannot see): field and product references, expressions,
// computed-field cycles, duplicate ids, actions that cannot work in their scope. Errors make a write
// 400; warnings are advice. Also fills rule id, order and phase, and writes one-line rule summaries.

/** The phase an action belongs to when its rule names none: the first action decides. */
const ACTION_PHASE: Record<ActionType, Phase> = {
  set_field: 'inputs',
  add_line: 'lines',
  add_product: 'lines',
  set_price: 'lines',
  set_quantity: 'lines',
  multiply_quantity: 'lines',
  set_vat: 'lines',
  percent_discount: 'adjustments',
  percent_surcharge: 'adjustments',
  fixed_discount: 'adjustments',
  fixed_surcharge: 'adjustments',
  minimum_total: 'totals',
  warn: 'totals',
  block: 'totals',
};

/** Fills `id` (rule-<n>, unique), `order` ((position + 1) × 10) and `phase` (from the first action) when omitted. */
export function normalizeRules(rules: RuleInput[]): Rule[] {
  const taken = new Set(rules.map((r) => r.id).filter(Boolean) as string[]);
  let n = 0;
  return rules.map((rule, i) => {
    let id = rule.id;
    while (!id) {
      n += 1;
      if (!taken.has(`rule-${n}`)) id = `rule-${n}`;
    }
    taken.add(id);
    return { ...rule, id, order: rule.order ?? (i + 1) * 10, phase: rule.phase ?? ACTION_PHASE[rule.then[0]!.type] };
  });
}

export function normalizePricing(input: PricingRulesInput | undefined, base?: PricingRules): PricingRules {
  return {
    rules: input?.rules ? normalizeRules(input.rules) : (base?.rules ?? []),
    vatRate: input?.vatRate ?? base?.vatRate ?? DEFAULT_PRICING.vatRate,
    currency: input?.currency ?? base?.currency ?? DEFAULT_PRICING.currency,
    vatDisplayMode: input?.vatDisplayMode ?? base?.vatDisplayMode ?? DEFAULT_PRICING.vatDisplayMode,
    products: input?.products ?? base?.products ?? [],
  };
}

const EXPRESSION_KEYS = ['expression', 'quantityExpression', 'unitPriceExpression'] as const;
const NEEDS_VALUE: Partial<Record<ActionType, [literal: string, expr: string]>> = {
  add_line: ['unitPrice', 'unitPriceExpression'],
  set_price: ['unitPrice', 'expression'],
  set_quantity: ['quantity', 'expression'],
  multiply_quantity: ['factor', 'expression'],
  percent_discount: ['percent', 'expression'],
  percent_surcharge: ['percent', 'expression'],
  fixed_discount: ['amount', 'expression'],
  fixed_surcharge: ['amount', 'expression'],
  set_field: ['value', 'expression'],
};

export interface ValidationReport {
  errors: FieldError[];
  warnings: FieldError[];
  ruleSummaries: RuleSummary[];
}
export interface RuleSummary {
  id: string;
  name: string;
  phase: Phase;
  order: number;
  scope: 'offer' | 'line';
  enabled: boolean;
  summary: string;
}

export function validateOfferType(
  fields: InputField[],
  pricing: PricingRules,
  paths = { fields: 'requiredInputFields', rules: 'pricingRules.rules', products: 'pricingRules.products' },
): ValidationReport {
  const errors: FieldError[] = [];
  const warnings: FieldError[] = [];
  const fieldIds = new Set<string>();
  fields.forEach((f, i) => {
    const path = `${paths.fields}.${i}`;
    if (fieldIds.has(f.fieldId)) errors.push({ path: `${path}.fieldId`, error: `duplicate fieldId "${f.fieldId}"` });
    fieldIds.add(f.fieldId);
    if ((EXPRESSION_BUILTINS as readonly string[]).includes(f.fieldId) || isReservedName(f.fieldId))
      errors.push({ path: `${path}.fieldId`, error: `"${f.fieldId}" is reserved` });
    if (f.type === 'computed' && !f.expression)
      errors.push({ path: `${path}.expression`, error: 'a computed field needs an expression' });
    if (f.type !== 'computed' && f.expression)
      errors.push({ path: `${path}.expression`, error: 'only computed fields take an expression' });
    if ((f.type === 'select' || f.type === 'radio') && !f.options?.length)
      errors.push({ path: `${path}.options`, error: `a ${f.type} field needs options` });
    if (f.min !== undefined && f.max !== undefined && f.min > f.max)
      errors.push({ path: `${path}.min`, error: 'must not be greater than max' });
  });
  // Fields a rule may set become readable by later rules.
  const setFields = new Set(
    pricing.rules.flatMap((r) =>
      r.then.filter((a): a is Extract<Action, { type: 'set_field' }> => a.type === 'set_field').map((a) => a.field),
    ),
  );
  const variables = new Set([...fieldIds, ...setFields]);
  const compiled = new Map<string, CompiledExpression>();
  fields.forEach((f, i) => {
    if (f.type !== 'computed' || !f.expression) return;
    const result = compileExpression(f.expression, variables);
    if (result.ok) compiled.set(f.fieldId, result.compiled);
    else errors.push({ path: `${paths.fields}.${i}.expression`, error: result.error });
  });
  const { cycle } = computedOrder(fields, compiled);
  if (cycle)
    errors.push({ path: paths.fields, error: `computed fields depend on each other in a cycle: ${cycle.join(' → ')}` });

  const productIds = new Set<string>();
  pricing.products.forEach((p, i) => {
    const path = `${paths.products}.${i}`;
    if (productIds.has(p.id)) errors.push({ path: `${path}.id`, error: `duplicate product id "${p.id}"` });
    productIds.add(p.id);
    const tiers = p.tieredPricing?.tiers ?? [];
    tiers.forEach((t, j) => {
      const bounded = t.upTo !== null && t.upTo !== undefined;
      if (!bounded && j < tiers.length - 1)
        errors.push({ path: `${path}.tieredPricing.tiers.${j}.upTo`, error: 'only the last tier may be open-ended' });
      const prev = tiers[j - 1]?.upTo;
      if (bounded && prev !== null && prev !== undefined && t.upTo! <= prev)
        errors.push({ path: `${path}.tieredPricing.tiers.${j}.upTo`, error: 'tiers must be in ascending upTo order' });
    });
    if (p.pricingType !== 'advanced' && (p.tieredPricing || p.conditionalRules?.length))
      warnings.push({
        path: `${path}.pricingType`,
        error: 'tiers and conditional prices apply only with pricingType "advanced"',
      });
    p.conditionalRules?.forEach((c, j) =>
      checkConditions(c.when, `${path}.conditionalRules.${j}`, variables, errors, warnings, false),
    );
  });

  const ruleIds = new Set<string>();
  pricing.rules.forEach((rule, i) => {
    const path = `${paths.rules}.${i}`;
    if (ruleIds.has(rule.id)) errors.push({ path: `${path}.id`, error: `duplicate rule id "${rule.id}"` });
    ruleIds.add(rule.id);
    const scope = ruleScope(rule);
    const lineScoped = scope === 'line';
    checkConditions(rule.when, path, variables, errors, warnings, lineScoped);
    if (
      rule.scope === 'offer' &&
      leafConditions(rule.when).some(({ condition }) => condition.subject && isLineSubject(condition.subject))
    ) {
      errors.push({ path: `${path}.scope`, error: 'an offer-scoped rule cannot read line. or product. subjects' });
    }
    if (!leafConditions(rule.when).length)
      warnings.push({ path: `${path}.when`, error: 'no conditions: the rule always applies' });
    const exprVars = new Set([
      ...variables,
      'subtotal',
      'manualDiscountPercent',
      ...(lineScoped ? ['quantity', 'unitPrice', 'lineTotal'] : []),
    ]);
    rule.then.forEach((action, j) => {
      const apath = `${path}.then.${j}`;
      const a = action as Record<string, unknown>;
      for (const key of EXPRESSION_KEYS) {
        if (typeof a[key] !== 'string') continue;
        const result = compileExpression(a[key] as string, exprVars);
        if (!result.ok) errors.push({ path: `${apath}.${key}`, error: result.error });
      }
      const need = NEEDS_VALUE[action.type];
      if (need && a[need[0]] === undefined && a[need[1]] === undefined)
        errors.push({ path: `${apath}.${need[0]}`, error: `${action.type} needs ${need[0]} or ${need[1]}` });
      if (need && a[need[0]] !== undefined && a[need[1]] !== undefined)
        warnings.push({ path: `${apath}.${need[1]}`, error: `${need[0]} wins over ${need[1]}` });
      if (action.type === 'add_product' && !productIds.has(action.productId))
        warnings.push({
          path: `${apath}.productId`,
          error: `product "${action.productId}" is not in pricingRules.products; it must come with the evaluation`,
        });
      if (['set_price', 'set_quantity', 'multiply_quantity'].includes(action.type) && !lineScoped && !a.target) {
        warnings.push({
          path: apath,
          error: `${action.type} without a target changes every line; use line. conditions or a target`,
        });
      }
      if (
        PHASES.indexOf(ACTION_PHASE[action.type]) < PHASES.indexOf(rule.phase) &&
        ACTION_PHASE[action.type] === 'lines' &&
        action.type.startsWith('add_')
      ) {
        warnings.push({
          path: apath,
          error: `lines added in the ${rule.phase} phase miss the adjustments of earlier phases`,
        });
      }
    });
  });
  return { errors, warnings, ruleSummaries: pricing.rules.map(summarizeRule) };
}

function checkConditions(
  when: Rule['when'],
  path: string,
  variables: Set<string>,
  errors: FieldError[],
  warnings: FieldError[],
  lineScoped: boolean,
): void {
  for (const { condition, path: cpath, depth } of leafConditions(when, 0, [], `${path}.when`)) {
    if (depth > 3) errors.push({ path: cpath, error: 'conditions nest at most 3 groups deep' });
    if (condition.expression !== undefined) {
      const result = compileExpression(condition.expression, [
        ...variables,
        'subtotal',
        'manualDiscountPercent',
        ...(lineScoped ? ['quantity', 'unitPrice', 'lineTotal'] : []),
      ]);
      if (!result.ok) errors.push({ path: `${cpath}.expression`, error: result.error });
      continue;
    }
    if (!condition.subject) {
      errors.push({ path: `${cpath}.subject`, error: 'a condition needs a subject (or an expression)' });
      continue;
    }
    if (!condition.operator) {
      errors.push({ path: `${cpath}.operator`, error: 'is required' });
      continue;
    }
    const problem = subjectProblem(condition.subject, variables);
    if (problem?.error) errors.push({ path: `${cpath}.subject`, error: problem.error });
    if (problem?.warning) warnings.push({ path: `${cpath}.subject`, error: problem.warning });
    checkValue(condition, cpath, errors);
  }
}

function subjectProblem(subject: string, variables: Set<string>): { error?: string; warning?: string } | null {
  const [head, ...restParts] = subject.split('.');
  const rest = restParts.join('.');
  switch (head) {
    case 'field':
      return variables.has(rest)
        ? null
        : { warning: `"${rest}" is not a declared input field (it is empty unless given)` };
    case 'customer':
      return (CUSTOMER_SUBJECTS as readonly string[]).includes(rest)
        ? null
        : { error: `unknown customer subject; use ${CUSTOMER_SUBJECTS.map((s) => `customer.${s}`).join(', ')}` };
    case 'offer':
      return rest === 'manualDiscountPercent'
        ? null
        : { error: 'unknown offer subject; use offer.manualDiscountPercent' };
    case 'subtotal':
      return rest ? { error: 'unknown subject' } : null;
    case 'totals':
      return rest === 'subtotal' || rest === 'lineCount'
        ? null
        : { error: 'unknown totals subject; use totals.subtotal or totals.lineCount' };
    case 'line':
      return (LINE_SUBJECTS as readonly string[]).includes(rest)
        ? null
        : { error: `unknown line subject; use ${LINE_SUBJECTS.map((s) => `line.${s}`).join(', ')}` };
    case 'product':
      return rest && !isReservedName(rest)
        ? null
        : {
            error: `unknown product subject; use ${PRODUCT_SUBJECTS.map((s) => `product.${s}`).join(', ')} or product.<attribute>`,
          };
    default:
      return { error: 'unknown subject; see GET /api/v1/offer-types/rule-reference' };
  }
}

function checkValue(c: Condition, path: string, errors: FieldError[]): void {
  const needsNone = ['is_empty', 'is_not_empty', 'is_true', 'is_false'];
  if (c.operator && !needsNone.includes(c.operator) && c.value === undefined)
    errors.push({ path: `${path}.value`, error: `operator ${c.operator} needs a value` });
  if (c.operator === 'between' && (!Array.isArray(c.value) || c.value.length !== 2))
    errors.push({ path: `${path}.value`, error: 'between needs [min, max]' });
  if ((c.operator === 'in' || c.operator === 'not_in') && !Array.isArray(c.value))
    errors.push({ path: `${path}.value`, error: `${c.operator} needs an array` });
}

const describeCondition = (c: Condition): string =>
  c.expression !== undefined
    ? `(${c.expression})`
    : `${c.subject} ${c.operator?.replaceAll('_', ' ')}${c.value === undefined ? '' : ` ${JSON.stringify(c.value)}`}`;

function describeWhen(when: Rule['when']): string {
  if (!when) return 'always';
  const parts: string[] = [];
  const node = (n: NonNullable<typeof when.all>[number]): string =>
    'all' in n || 'any' in n ? `(${describeWhen(n as Rule['when'])})` : describeCondition(n as Condition);
  if (when.all?.length) parts.push(when.all.map(node).join(' and '));
  if (when.any?.length) parts.push(`${when.all?.length ? 'and ' : ''}any of [${when.any.map(node).join(', ')}]`);
  return parts.join(' ') || 'always';
}

function describeAction(a: Action): string {
  const value = (literal: unknown, expr: unknown) => (literal !== undefined ? String(literal) : `(${String(expr)})`);
  switch (a.type) {
    case 'add_line':
      return `add line "${a.name}" ${value(a.quantity ?? (a.quantityExpression ? undefined : 1), a.quantityExpression)} × ${value(a.unitPrice, a.unitPriceExpression)}`;
    case 'add_product':
      return `add product ${a.productId} × ${value(a.quantity ?? (a.quantityExpression ? undefined : 1), a.quantityExpression)}`;
    case 'set_price':
      return `set unit price to ${value(a.unitPrice, a.expression)}`;
    case 'set_quantity':
      return `set quantity to ${value(a.quantity, a.expression)}`;
    case 'multiply_quantity':
      return `multiply quantity by ${value(a.factor, a.expression)}`;
    case 'percent_discount':
      return `${value(a.percent, a.expression)}% discount`;
    case 'percent_surcharge':
      return `${value(a.percent, a.expression)}% surcharge`;
    case 'fixed_discount':
      return `discount of ${value(a.amount, a.expression)}`;
    case 'fixed_surcharge':
      return `surcharge of ${value(a.amount, a.expression)}`;
    case 'minimum_total':
      return `subtotal at least ${a.amount}`;
    case 'set_vat':
      return `VAT ${a.rate}%`;
    case 'set_field':
      return `set ${a.field} to ${a.value !== undefined ? JSON.stringify(a.value) : `(${a.expression})`}`;
    case 'warn':
      return `warn "${a.message}"`;
    case 'block':
      return `block "${a.message}"`;
  }
}

export function summarizeRule(rule: Rule): RuleSummary {
  const scope = ruleScope(rule);
  const summary = `${rule.phase} #${rule.order}${scope === 'line' ? ' (per line)' : ''}: when ${describeWhen(rule.when)} → ${rule.then.map(describeAction).join('; ')}${rule.stopProcessing ? '; then stop the phase' : ''}${rule.enabled === false ? ' [disabled]' : ''}`;
  return {
    id: rule.id,
    name: rule.name,
    phase: rule.phase,
    order: rule.order,
    scope,
    enabled: rule.enabled !== false,
    summary,
  };
}
