import type { Scalar } from './expressions';
import { compileExpression, evaluateCompiled } from './expressions';
import type { Condition, ConditionGroup, ConditionNode, Operator, Product } from './pricing.schemas';

// Subjects and operators of `when` conditions. Pure: the engine hands in a view of the evaluation
// state (fields, customer, offer, the current line) and gets a boolean back.

export const CUSTOMER_SUBJECTS = ['industry', 'country', 'postalCode', 'isExisting'] as const;
export const LINE_SUBJECTS = [
  'quantity',
  'unitPrice',
  'total',
  'name',
  'productId',
  'category',
  'unit',
  'source',
  'lineKey',
] as const;
export const PRODUCT_SUBJECTS = ['id', 'name', 'category', 'unit', 'unitPrice'] as const;

export const SUBJECTS = [
  {
    subject: 'field.<fieldId>',
    description: 'an input or computed field value (set_field changes it for later rules)',
  },
  ...CUSTOMER_SUBJECTS.map((k) => ({
    subject: `customer.${k}`,
    description: k === 'isExisting' ? 'true for an existing customer' : `the customer's ${k}`,
  })),
  { subject: 'offer.manualDiscountPercent', description: 'the manual discount (0-100) entered on the offer' },
  {
    subject: 'subtotal',
    description: 'current subtotal excl. VAT in major units (lines and adjustments so far); alias totals.subtotal',
  },
  { subject: 'totals.lineCount', description: 'number of lines so far' },
  ...LINE_SUBJECTS.map((k) => ({
    subject: `line.${k}`,
    description: `the current line's ${k} (makes the rule line-scoped: it runs once per line)`,
  })),
  ...PRODUCT_SUBJECTS.map((k) => ({
    subject: `product.${k}`,
    description: `the current line's product ${k} (line-scoped)`,
  })),
  { subject: 'product.<attribute>', description: "an entry of the product's attributes (line-scoped)" },
];

export interface LineView {
  id: string;
  lineKey: string | null;
  source: 'input' | 'rule';
  name: string;
  productId: string | null;
  category: string | null;
  unit: string | null;
  quantity: number;
  unitPrice: number;
  total: number;
  product: Product | null;
}

export interface ConditionEnv {
  fields: Record<string, Scalar | null>;
  customer: { industry?: string; country?: string; postalCode?: string; isExisting?: boolean };
  offer: { manualDiscountPercent?: number };
  subtotal: () => number;
  lineCount: () => number;
  line: LineView | null;
  /** Variables of `{ expression }` conditions. */
  scope: () => Record<string, Scalar | null>;
}

export const isLineSubject = (subject: string): boolean =>
  subject.startsWith('line.') || subject.startsWith('product.');

export function resolveSubject(subject: string, env: ConditionEnv): unknown {
  const dot = subject.indexOf('.');
  const head = dot < 0 ? subject : subject.slice(0, dot);
  const rest = dot < 0 ? '' : subject.slice(dot + 1);
  switch (head) {
    case 'field':
      return Object.hasOwn(env.fields, rest) ? env.fields[rest] : undefined;
    case 'customer':
      return (CUSTOMER_SUBJECTS as readonly string[]).includes(rest)
        ? env.customer[rest as keyof ConditionEnv['customer']]
        : undefined;
    case 'offer':
      return rest === 'manualDiscountPercent' ? (env.offer.manualDiscountPercent ?? 0) : undefined;
    case 'subtotal':
      return env.subtotal();
    case 'totals':
      return rest === 'subtotal' ? env.subtotal() : rest === 'lineCount' ? env.lineCount() : undefined;
    case 'line':
      return env.line && (LINE_SUBJECTS as readonly string[]).includes(rest)
        ? env.line[rest as keyof LineView]
        : undefined;
    case 'product': {
      const product = env.line?.product;
      if (!product) return undefined;
      if ((PRODUCT_SUBJECTS as readonly string[]).includes(rest)) return product[rest as keyof Product];
      return product.attributes && Object.hasOwn(product.attributes, rest) ? product.attributes[rest] : undefined;
    }
    default:
      return undefined;
  }
}

const isEmpty = (v: unknown): boolean =>
  v === undefined || v === null || (typeof v === 'string' && v.trim() === '') || (Array.isArray(v) && v.length === 0);
export const toNumber = (v: unknown): number | null => {
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
  return null;
};
const toBool = (v: unknown): boolean | null => {
  if (typeof v === 'boolean') return v;
  if (v === 'true' || v === 1 || v === '1') return true;
  if (v === 'false' || v === 0 || v === '0') return false;
  return null;
};
const norm = (v: unknown): string => String(v).trim().toLowerCase();

function looseEquals(a: unknown, b: unknown): boolean {
  if (isEmpty(a) || isEmpty(b)) return isEmpty(a) && isEmpty(b);
  if (typeof a === 'boolean' || typeof b === 'boolean') return toBool(a) !== null && toBool(a) === toBool(b);
  const na = toNumber(a);
  const nb = toNumber(b);
  if (na !== null && nb !== null && (typeof a === 'number' || typeof b === 'number')) return na === nb;
  return norm(a) === norm(b);
}

function compare(a: unknown, b: unknown, test: (x: number, y: number) => boolean): boolean {
  const x = toNumber(a);
  const y = toNumber(b);
  return x !== null && y !== null && test(x, y);
}

/** Operator semantics: strings compare trimmed and case-insensitively; numeric operators need numbers on both sides. */
export function applyOperator(operator: Operator, actual: unknown, expected: unknown): boolean {
  const list = Array.isArray(expected) ? expected : [expected];
  switch (operator) {
    case 'equals':
      return looseEquals(actual, expected);
    case 'not_equals':
      return !looseEquals(actual, expected);
    case 'greater_than':
      return compare(actual, expected, (x, y) => x > y);
    case 'greater_than_or_equal':
      return compare(actual, expected, (x, y) => x >= y);
    case 'less_than':
      return compare(actual, expected, (x, y) => x < y);
    case 'less_than_or_equal':
      return compare(actual, expected, (x, y) => x <= y);
    case 'between':
      return (
        Array.isArray(expected) &&
        expected.length === 2 &&
        compare(actual, expected[0], (x, y) => x >= y) &&
        compare(actual, expected[1], (x, y) => x <= y)
      );
    case 'in':
      return list.some((v) => looseEquals(actual, v));
    case 'not_in':
      return !list.some((v) => looseEquals(actual, v));
    case 'contains':
      return Array.isArray(actual)
        ? actual.some((v) => looseEquals(v, expected))
        : !isEmpty(actual) && !isEmpty(expected) && norm(actual).includes(norm(expected));
    case 'not_contains':
      return !applyOperator('contains', actual, expected);
    case 'starts_with':
      return !isEmpty(actual) && !isEmpty(expected) && norm(actual).startsWith(norm(expected));
    case 'is_empty':
      return isEmpty(actual);
    case 'is_not_empty':
      return !isEmpty(actual);
    case 'is_true':
      return toBool(actual) === true;
    case 'is_false':
      return toBool(actual) === false || isEmpty(actual);
  }
}

export const isGroup = (node: ConditionNode): node is ConditionGroup => 'all' in node || 'any' in node;

function evalCondition(c: Condition, env: ConditionEnv): boolean {
  if (c.expression !== undefined) {
    const scope = env.scope();
    const compiled = compileExpression(c.expression, Object.keys(scope));
    if (!compiled.ok) return false;
    const result = evaluateCompiled(compiled.compiled, scope);
    return result.ok && (result.value === true || (typeof result.value === 'number' && result.value !== 0));
  }
  if (!c.subject || !c.operator) return false;
  return applyOperator(c.operator, resolveSubject(c.subject, env), c.value);
}

/** `all` must all hold and at least one of `any` (when given); an empty or missing `when` always holds. */
export function evalWhen(group: ConditionGroup | undefined, env: ConditionEnv): boolean {
  if (!group) return true;
  const test = (node: ConditionNode): boolean => (isGroup(node) ? evalWhen(node, env) : evalCondition(node, env));
  if (group.all && !group.all.every(test)) return false;
  if (group.any && group.any.length > 0 && !group.any.some(test)) return false;
  return true;
}

/** Every leaf condition of a `when`, depth-first (validation, scope inference, summaries). */
export function leafConditions(
  group: ConditionGroup | undefined,
  depth = 0,
  out: { condition: Condition; path: string; depth: number }[] = [],
  path = 'when',
): typeof out {
  if (!group) return out;
  for (const key of ['all', 'any'] as const) {
    group[key]?.forEach((node, i) => {
      if (isGroup(node)) leafConditions(node, depth + 1, out, `${path}.${key}.${i}`);
      else out.push({ condition: node, path: `${path}.${key}.${i}`, depth });
    });
  }
  return out;
}
