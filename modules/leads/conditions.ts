/**
 * Pure lead conditions shared by scoring and routing rules: which fields exist, which operators
 * fit each field, how a rule's value is checked, and how a condition is evaluated. No I/O.
 */
import { COMPARISON_OPERATORS, type Scalar } from '../../platform/shared/operators';

export const CONDITION_OPERATORS = [...COMPARISON_OPERATORS, 'not_in'] as const;
export type ConditionOperator = (typeof CONDITION_OPERATORS)[number];

export type ConditionValue = Scalar | Scalar[] | null;

export interface Condition {
  field: string;
  operator: ConditionOperator;
  value?: ConditionValue;
}

type FieldKind = 'boolean' | 'number' | 'string' | 'list' | 'any';

const LEAD_FIELDS: Record<string, FieldKind> = {
  hasEmail: 'boolean',
  hasPhone: 'boolean',
  hasValue: 'boolean',
  source: 'string',
  status: 'string',
  contactType: 'string',
  value: 'number',
  tags: 'list',
};
export const CONTACT_FIELDS: Record<string, FieldKind> = {
  firstName: 'string',
  lastName: 'string',
  title: 'string',
  email: 'list',
  phone: 'list',
};
export const CONTACT_TYPES = ['person', 'company', 'none'] as const;
/** Routing runs after scoring, so its conditions may also test the fresh score. */
export const ROUTING_EXTRA_FIELDS: Record<string, FieldKind> = { score: 'number' };

export const MAX_IN_VALUES = 100;
const CUSTOM_KEY_RE = /^customFields\.(.{1,100})$/;

const ALLOWED: Record<FieldKind, readonly ConditionOperator[]> = {
  // exists / not_exists read as "is true" / "is false" (spec: `hasEmail` + `exists` = has an e-mail).
  boolean: ['equals', 'not_equals', 'exists', 'not_exists'],
  number: ['equals', 'not_equals', 'greater_than', 'less_than', 'exists', 'not_exists', 'in', 'not_in'],
  string: ['equals', 'not_equals', 'contains', 'exists', 'not_exists', 'in', 'not_in'],
  list: ['equals', 'not_equals', 'contains', 'exists', 'not_exists', 'in', 'not_in'],
  any: CONDITION_OPERATORS,
};

export function fieldKind(field: string, extra: Record<string, FieldKind> = {}): FieldKind | null {
  if (Object.hasOwn(LEAD_FIELDS, field)) return LEAD_FIELDS[field]!;
  if (Object.hasOwn(extra, field)) return extra[field]!;
  if (CUSTOM_KEY_RE.test(field)) return 'any';
  if (field.startsWith('contact.')) {
    const sub = field.slice('contact.'.length);
    return Object.hasOwn(CONTACT_FIELDS, sub) ? CONTACT_FIELDS[sub]! : null;
  }
  return null;
}

export function describeFields(extra: Record<string, FieldKind> = {}): string {
  return [
    ...Object.keys(LEAD_FIELDS),
    ...Object.keys(extra),
    'customFields.<key>',
    ...Object.keys(CONTACT_FIELDS).map((f) => `contact.${f}`),
  ].join(', ');
}

const isScalar = (v: unknown): v is Scalar =>
  typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v));

function scalarError(kind: FieldKind, field: string, v: unknown): string | null {
  if (kind === 'boolean') return typeof v === 'boolean' ? null : 'must be true or false';
  if (kind === 'number') return typeof v === 'number' && Number.isFinite(v) ? null : 'must be a number';
  if (kind === 'string' || kind === 'list') {
    if (typeof v !== 'string' || !v.trim()) return 'must be a non-empty string';
    if (field === 'contactType' && !(CONTACT_TYPES as readonly string[]).includes(v))
      return `must be one of ${CONTACT_TYPES.join(', ')}`;
    return null;
  }
  return isScalar(v) ? null : 'must be a string, number or boolean';
}

/**
 * Why (field, operator, value) is not a valid condition, as "<key>: <reason>", or null.
 * exists/not_exists take no value; in/not_in take an array; greater_than/less_than a number.
 */
export function conditionError(
  cond: { field: string; operator: ConditionOperator; value?: unknown },
  extra: Record<string, FieldKind> = {},
): string | null {
  const kind = fieldKind(cond.field, extra);
  if (!kind) return `field: unknown field "${cond.field}"; allowed: ${describeFields(extra)}`;
  if (!ALLOWED[kind].includes(cond.operator)) {
    return `condition: "${cond.operator}" does not apply to ${cond.field}; use one of ${ALLOWED[kind].join(', ')}`;
  }
  const { value } = cond;
  switch (cond.operator) {
    case 'exists':
    case 'not_exists':
      return value === undefined || value === null ? null : `value: must be omitted for ${cond.operator}`;
    case 'in':
    case 'not_in': {
      if (!Array.isArray(value) || value.length === 0) return `value: must be a non-empty array for ${cond.operator}`;
      if (value.length > MAX_IN_VALUES) return `value: at most ${MAX_IN_VALUES} items for ${cond.operator}`;
      const bad = value.map((v) => scalarError(kind, cond.field, v)).find(Boolean);
      return bad ? `value: each item ${bad}` : null;
    }
    case 'greater_than':
    case 'less_than':
      return typeof value === 'number' && Number.isFinite(value)
        ? null
        : `value: must be a number for ${cond.operator}`;
    case 'contains':
      return typeof value === 'string' && value.trim() ? null : 'value: must be a non-empty string for contains';
    default: {
      if (value === undefined || value === null) return `value: is required for ${cond.operator}`;
      const bad = scalarError(kind, cond.field, value);
      return bad ? `value: ${bad}` : null;
    }
  }
}

/** What conditions look at: the lead and its linked person (the "contact"). */
export interface LeadFacts {
  email?: string | null;
  phone?: string | null;
  value?: number | null;
  source?: string | null;
  status?: string | null;
  tags?: readonly string[];
  customFields?: Record<string, unknown>;
  companyRef?: string | null;
  personRef?: string | null;
  score?: number;
}
export interface ContactFacts {
  firstName?: string | null;
  lastName?: string | null;
  title?: string | null;
  emails: readonly string[];
  phones: readonly string[];
}
export interface Subject {
  lead: LeadFacts;
  contact: ContactFacts | null;
}

const present = (v: unknown): boolean =>
  v !== null && v !== undefined && v !== '' && !(Array.isArray(v) && v.length === 0);
const normPhone = (s: string): string => s.replace(/[\s().-]/g, '');

/** The value a condition field has for this subject (arrays for list fields). */
export function fieldValue(subject: Subject, field: string): unknown {
  const { lead, contact } = subject;
  switch (field) {
    case 'hasEmail':
      return present(lead.email) || Boolean(contact?.emails.some(present));
    case 'hasPhone':
      return present(lead.phone) || Boolean(contact?.phones.some(present));
    case 'hasValue':
      return typeof lead.value === 'number' && lead.value > 0;
    case 'contactType':
      return lead.personRef ? 'person' : lead.companyRef ? 'company' : 'none';
    case 'source':
    case 'status':
    case 'value':
    case 'score':
      return lead[field] ?? null;
    case 'tags':
      return lead.tags ?? [];
    default:
      break;
  }
  const custom = CUSTOM_KEY_RE.exec(field);
  if (custom) return lead.customFields?.[custom[1]!] ?? null;
  if (!contact) return null;
  switch (field.slice('contact.'.length)) {
    case 'email':
      return contact.emails;
    case 'phone':
      return contact.phones.map(normPhone);
    case 'firstName':
      return contact.firstName ?? null;
    case 'lastName':
      return contact.lastName ?? null;
    case 'title':
      return contact.title ?? null;
    default:
      return null;
  }
}

function toNumber(v: unknown): number | null {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
  return null;
}

// Strings compare trimmed and case-insensitively; a number rule value also matches a numeric string.
function same(actual: unknown, expected: Scalar, phone: boolean): boolean {
  if (typeof expected === 'number') return toNumber(actual) === expected;
  if (typeof expected === 'boolean') return actual === expected;
  if (typeof actual !== 'string' && typeof actual !== 'number') return false;
  const a = String(actual).trim().toLowerCase();
  const e = expected.trim().toLowerCase();
  return phone ? normPhone(a) === normPhone(e) : a === e;
}

function holds(actual: unknown, cond: Condition, phone: boolean): boolean {
  const { value } = cond;
  switch (cond.operator) {
    case 'equals':
      return same(actual, value as Scalar, phone);
    case 'contains':
      return (
        (typeof actual === 'string' || typeof actual === 'number') &&
        String(actual).toLowerCase().includes(String(value).trim().toLowerCase())
      );
    case 'greater_than': {
      const n = toNumber(actual);
      return n !== null && n > (value as number);
    }
    case 'less_than': {
      const n = toNumber(actual);
      return n !== null && n < (value as number);
    }
    case 'in':
      return (value as Scalar[]).some((v) => same(actual, v, phone));
    default:
      return false;
  }
}

const NEGATED: Partial<Record<ConditionOperator, ConditionOperator>> = {
  not_equals: 'equals',
  not_in: 'in',
  not_exists: 'exists',
};

/**
 * Evaluates one condition. On list fields (tags, contact.email, contact.phone, array custom fields)
 * a positive operator holds when it holds for any element; not_equals/not_in/not_exists are the
 * exact negation of equals/in/exists. A missing value satisfies only the negative operators.
 */
export function matches(subject: Subject, cond: Condition): boolean {
  const positive = NEGATED[cond.operator];
  if (positive) return !matches(subject, { ...cond, operator: positive });
  const actual = fieldValue(subject, cond.field);
  if (cond.operator === 'exists')
    return typeof actual === 'boolean' && fieldKind(cond.field, ROUTING_EXTRA_FIELDS) === 'boolean'
      ? actual
      : present(actual);
  const phone = cond.field === 'contact.phone';
  if (Array.isArray(actual)) return actual.some((item) => holds(item, cond, phone));
  return holds(actual, cond, phone);
}

export const matchesAll = (subject: Subject, conditions: readonly Condition[]): boolean =>
  conditions.every((c) => matches(subject, c));
