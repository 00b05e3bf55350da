import { z } from 'zod';
import { DEFAULT_CURRENCY, DEFAULT_VAT_RATE } from '../../platform/shared/money';
import { MAX_EXPRESSION_LENGTH } from './expressions';

// The pricing-rule vocabulary as zod schemas: offer-type input fields, rules (when → then), pricing
// settings and products. Structural checks only; references, expressions and cycles are checked by
// validate.ts against the whole offer type.

export const FIELD_TYPES = ['number', 'text', 'select', 'checkbox', 'radio', 'slider', 'computed'] as const;
export type FieldType = (typeof FIELD_TYPES)[number];
export const PHASES = ['inputs', 'lines', 'adjustments', 'totals'] as const;
export type Phase = (typeof PHASES)[number];
export const VAT_DISPLAY_MODES = ['excl', 'incl', 'both'] as const;
export type VatDisplayMode = (typeof VAT_DISPLAY_MODES)[number];
export const OPERATORS = [
  'equals',
  'not_equals',
  'greater_than',
  'greater_than_or_equal',
  'less_than',
  'less_than_or_equal',
  'between',
  'in',
  'not_in',
  'contains',
  'not_contains',
  'starts_with',
  'is_empty',
  'is_not_empty',
  'is_true',
  'is_false',
] as const;
export type Operator = (typeof OPERATORS)[number];
/** Short spellings accepted on write and stored as the canonical name. */
export const OPERATOR_ALIASES: Record<string, Operator> = {
  eq: 'equals',
  '=': 'equals',
  '==': 'equals',
  ne: 'not_equals',
  neq: 'not_equals',
  '!=': 'not_equals',
  gt: 'greater_than',
  '>': 'greater_than',
  gte: 'greater_than_or_equal',
  '>=': 'greater_than_or_equal',
  lt: 'less_than',
  '<': 'less_than',
  lte: 'less_than_or_equal',
  '<=': 'less_than_or_equal',
  exists: 'is_not_empty',
  not_exists: 'is_empty',
};
export const ACTION_TYPES = [
  'add_line',
  'add_product',
  'set_price',
  'set_quantity',
  'multiply_quantity',
  'percent_discount',
  'percent_surcharge',
  'fixed_discount',
  'fixed_surcharge',
  'minimum_total',
  'set_vat',
  'set_field',
  'warn',
  'block',
] as const;
export type ActionType = (typeof ACTION_TYPES)[number];

export const MAX_RULES = 200;
export const MAX_FIELDS = 100;
export const MAX_PRODUCTS = 500;
export const MAX_MONEY = 10_000_000_000;

const text = (max: number) =>
  z.string({ message: 'must be a string' }).trim().max(max, `must be at most ${max} characters`);
const money = z
  .number({ message: 'must be a number' })
  .min(-MAX_MONEY, `must be at least -${MAX_MONEY}`)
  .max(MAX_MONEY, `must be at most ${MAX_MONEY}`);
const nonNegativeMoney = money.min(0, 'must be at least 0');
const quantity = z
  .number({ message: 'must be a number' })
  .min(0, 'must be at least 0')
  .max(1_000_000_000, 'must be at most 1000000000');
const percent = (max: number) =>
  z.number({ message: 'must be a number' }).min(0, 'must be at least 0').max(max, `must be at most ${max}`);
const expression = z
  .string({ message: 'must be a string' })
  .trim()
  .min(1, 'must not be empty')
  .max(MAX_EXPRESSION_LENGTH, `must be at most ${MAX_EXPRESSION_LENGTH} characters`);
const vatRate = percent(100);
export const fieldIdSchema = z
  .string({ message: 'must be a string' })
  .regex(
    /^[A-Za-z_][A-Za-z0-9_]{0,63}$/,
    'must start with a letter or _ and hold only letters, digits and _ (at most 64)',
  );
const scalar = z.union([z.string().max(1000), z.number(), z.boolean()], {
  message: 'must be a string, number or boolean',
});

const option = z.union(
  [
    text(200),
    z.number(),
    z.object({
      value: z.union([text(200), z.number()], { message: 'must be a string or number' }),
      label: text(200).optional(),
    }),
  ],
  {
    message: 'must be a string, a number or { value, label }',
  },
);

export const inputFieldSchema = z.object({
  fieldId: fieldIdSchema,
  label: text(200).min(1, 'is required'),
  type: z.enum(FIELD_TYPES, { message: `must be one of ${FIELD_TYPES.join(', ')}` }),
  unit: text(40).optional(),
  options: z.array(option).max(100, 'at most 100 options').optional(),
  required: z.boolean({ message: 'must be a boolean' }).optional(),
  expression: expression.optional(),
  min: z.number({ message: 'must be a number' }).optional(),
  max: z.number({ message: 'must be a number' }).optional(),
  step: z.number({ message: 'must be a number' }).gt(0, 'must be greater than 0').optional(),
  defaultValue: scalar.optional(),
  helpText: text(1000).optional(),
});
export type InputField = z.infer<typeof inputFieldSchema>;

export const conditionSchema = z.strictObject({
  id: text(64).optional(),
  subject: text(120).min(1, 'must not be empty').optional(),
  operator: z
    .string({ message: 'must be a string' })
    .transform((op) => OPERATOR_ALIASES[op] ?? op)
    .pipe(z.enum(OPERATORS, { message: `must be one of ${OPERATORS.join(', ')}` }))
    .optional(),
  value: z
    .union([scalar, z.null(), z.array(scalar).max(200, 'at most 200 values')], {
      message: 'must be a string, number, boolean, null or an array of them',
    })
    .optional(),
  expression: expression.optional(),
});
export type Condition = z.infer<typeof conditionSchema>;

export interface ConditionGroup {
  all?: ConditionNode[];
  any?: ConditionNode[];
}
export type ConditionNode = Condition | ConditionGroup;
// A node with `all`/`any` is a group, anything else a condition: parsed by exactly one schema so
// errors name the real problem (a union would report the other branch's complaints).
const conditionNode: z.ZodType<ConditionNode> = z.unknown().transform((value, ctx) => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    ctx.addIssue({
      code: 'custom',
      message: 'must be a condition { subject, operator, value } or { expression }, or a group { all, any }',
    });
    return z.NEVER;
  }
  const schema: z.ZodType<ConditionNode> = 'all' in value || 'any' in value ? whenSchema : conditionSchema;
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  for (const issue of result.error.issues) ctx.addIssue({ code: 'custom', message: issue.message, path: issue.path });
  return z.NEVER;
}) as unknown as z.ZodType<ConditionNode>;
export const whenSchema: z.ZodType<ConditionGroup> = z.strictObject({
  all: z.array(conditionNode).max(50, 'at most 50 conditions').optional(),
  any: z.array(conditionNode).max(50, 'at most 50 conditions').optional(),
});

/** Which lines an offer-level action touches; line-scoped rules act on the matching line instead. */
export const targetSchema = z.union(
  [
    z.literal('all'),
    z.object({
      productId: text(64).optional(),
      category: text(100).optional(),
      lineKey: text(64).optional(),
      source: z.enum(['input', 'rule']).optional(),
    }),
  ],
  { message: 'must be "all" or { productId, category, lineKey, source }' },
);
export type Target = z.infer<typeof targetSchema>;

const lineFields = {
  unit: text(40).optional(),
  vatRate: vatRate.optional(),
  category: text(100).optional(),
  description: text(2000).optional(),
  lineKey: text(64).optional(),
};

/** An action on the targeted lines (default all): a value, or an expression instead of it. */
const onTargets = <T extends string, V extends z.ZodRawShape>(type: T, value: V) =>
  z.object({ type: z.literal(type), ...value, expression: expression.optional(), target: targetSchema.optional() });
/** A discount or surcharge: onTargets with the label its line shows. */
const adjustment = <T extends string, V extends z.ZodRawShape>(type: T, value: V) =>
  onTargets(type, value).extend({ label: text(200).optional() });

export const actionSchema = z.discriminatedUnion(
  'type',
  [
    z.object({
      type: z.literal('add_line'),
      name: text(300).min(1, 'is required'),
      quantity: quantity.optional(),
      quantityExpression: expression.optional(),
      unitPrice: money.optional(),
      unitPriceExpression: expression.optional(),
      ...lineFields,
    }),
    z.object({
      type: z.literal('add_product'),
      productId: text(64).min(1, 'is required'),
      name: text(300).optional(),
      quantity: quantity.optional(),
      quantityExpression: expression.optional(),
      lineKey: text(64).optional(),
    }),
    onTargets('set_price', { unitPrice: money.optional() }),
    onTargets('set_quantity', { quantity: quantity.optional() }),
    onTargets('multiply_quantity', { factor: quantity.optional() }),
    adjustment('percent_discount', { percent: percent(100).optional() }),
    adjustment('percent_surcharge', { percent: percent(1000).optional() }),
    adjustment('fixed_discount', { amount: nonNegativeMoney.optional() }),
    adjustment('fixed_surcharge', { amount: nonNegativeMoney.optional() }),
    z.object({ type: z.literal('minimum_total'), amount: nonNegativeMoney, label: text(200).optional() }),
    z.object({ type: z.literal('set_vat'), rate: vatRate, target: targetSchema.optional() }),
    z.object({
      type: z.literal('set_field'),
      field: fieldIdSchema,
      value: scalar.optional(),
      expression: expression.optional(),
    }),
    z.object({ type: z.literal('warn'), message: text(500).min(1, 'is required') }),
    z.object({ type: z.literal('block'), message: text(500).min(1, 'is required') }),
  ],
  { message: `type must be one of ${ACTION_TYPES.join(', ')}` },
);
export type Action = z.infer<typeof actionSchema>;

export const ruleSchema = z.object({
  id: z
    .string({ message: 'must be a string' })
    .regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1-64 letters, digits, _ or -')
    .optional(),
  name: text(200).min(1, 'is required'),
  description: text(2000).optional(),
  phase: z.enum(PHASES, { message: `must be one of ${PHASES.join(', ')}` }).optional(),
  order: z
    .number({ message: 'must be a number' })
    .int('must be an integer')
    .min(0, 'must be at least 0')
    .max(1_000_000, 'must be at most 1000000')
    .optional(),
  enabled: z.boolean({ message: 'must be a boolean' }).optional(),
  scope: z.enum(['offer', 'line'], { message: 'must be offer or line' }).optional(),
  stopProcessing: z.boolean({ message: 'must be a boolean' }).optional(),
  when: whenSchema.optional(),
  then: z
    .array(actionSchema, { message: 'must be an array of actions' })
    .min(1, 'needs at least one action')
    .max(20, 'at most 20 actions'),
});
export type RuleInput = z.infer<typeof ruleSchema>;
/** A stored rule: id, order and phase always present. */
export type Rule = RuleInput & { id: string; order: number; phase: Phase };

export const tierSchema = z.object({ upTo: quantity.nullable().optional(), unitPrice: money });
export const productSchema = z.object({
  id: text(64).min(1, 'is required'),
  name: text(300).min(1, 'is required'),
  unitPrice: money,
  unit: text(40).optional(),
  vatRate: vatRate.optional(),
  category: text(100).optional(),
  pricingType: z.enum(['fixed', 'advanced'], { message: 'must be fixed or advanced' }).optional(),
  tieredPricing: z
    .object({
      mode: z.enum(['volume', 'graduated'], { message: 'must be volume or graduated' }).optional(),
      tiers: z.array(tierSchema).min(1, 'needs at least one tier').max(50, 'at most 50 tiers'),
    })
    .optional(),
  conditionalRules: z
    .array(z.object({ when: whenSchema, unitPrice: money, label: text(200).optional() }))
    .max(50, 'at most 50 conditional prices')
    .optional(),
  attributes: z.record(fieldIdSchema, scalar).optional(),
});
export type Product = z.infer<typeof productSchema>;

export const pricingRulesSchema = z.object({
  rules: z
    .array(ruleSchema, { message: 'must be an array of rules' })
    .max(MAX_RULES, `at most ${MAX_RULES} rules`)
    .optional(),
  vatRate: vatRate.optional(),
  currency: z
    .string({ message: 'must be a string' })
    .regex(/^[A-Z]{3}$/, 'must be a 3-letter ISO 4217 code such as DKK')
    .optional(),
  vatDisplayMode: z.enum(VAT_DISPLAY_MODES, { message: `must be one of ${VAT_DISPLAY_MODES.join(', ')}` }).optional(),
  products: z.array(productSchema).max(MAX_PRODUCTS, `at most ${MAX_PRODUCTS} products`).optional(),
});
export type PricingRulesInput = z.infer<typeof pricingRulesSchema>;

export const DEFAULT_PRICING = {
  vatRate: DEFAULT_VAT_RATE,
  currency: DEFAULT_CURRENCY,
  vatDisplayMode: 'excl' as VatDisplayMode,
};
export interface PricingRules {
  rules: Rule[];
  vatRate: number;
  currency: string;
  vatDisplayMode: VatDisplayMode;
  products: Product[];
}

export const inputFieldsSchema = z
  .array(inputFieldSchema, { message: 'must be an array of fields' })
  .max(MAX_FIELDS, `at most ${MAX_FIELDS} fields`);

// What an evaluation is run against (simulate, calculate).
export const customerSchema = z.object({
  industry: text(200).optional(),
  country: text(100).optional(),
  postalCode: text(20).optional(),
  isExisting: z.boolean({ message: 'must be a boolean' }).optional(),
});
export const offerContextSchema = z.object({ manualDiscountPercent: percent(100).optional() });
export const inputLineSchema = z
  .object({
    id: text(64).optional(),
    productId: text(64).optional(),
    name: text(300).optional(),
    quantity: quantity.optional(),
    unitPrice: money.optional(),
    ...lineFields,
  })
  .refine((l) => l.productId || (l.name && l.unitPrice !== undefined), {
    message: 'needs productId, or name and unitPrice',
  });
export type InputLine = z.infer<typeof inputLineSchema>;
export const fieldValuesSchema = z
  .record(z.string().max(64), z.union([scalar, z.null()], { message: 'must be a string, number, boolean or null' }))
  .refine((o) => Object.keys(o).length <= 200, 'at most 200 fields');
