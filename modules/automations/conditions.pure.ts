/**
 * Condition evaluation for condition nodes (and lookup filters evaluated in memory). Pure: the
 * current time is an argument (`now`), never the clock, so workflow replays give the same branch.
 */
import type { ConditionDataType, ConditionOperator } from './definition.schemas';
import { stringify, toNumber } from '../../platform/shared/format.pure';
import { resolveValue, type PlaceholderOptions } from '../../platform/shared/placeholders.pure';
import { compileSafeRegex, parseRegexValue, type SafeRegex } from './safe-regex.pure';
import { dayOfInput, parseDateInput } from '../../platform/shared/zoned-time.pure';

export interface Condition {
  id?: string;
  /** A context path (`lead.score`), with or without `{{ }}`. */
  field: string;
  operator: ConditionOperator;
  /** May contain placeholders; `between` takes [min, max] or "min,max". */
  value?: unknown;
  /** Inferred from the field's value (and the operator) when absent. */
  dataType?: ConditionDataType;
}

export interface ConditionOptions extends PlaceholderOptions {
  /** Required by date_within_days and date_in_exactly_days (the workflow's current time). */
  now?: Date | number | string;
}

export interface ConditionCheck {
  id?: string;
  field: string;
  operator: ConditionOperator;
  actual: unknown;
  expected: unknown;
  passed: boolean;
}

const DEFAULT_TZ = 'Europe/Copenhagen';

/** A field without braces is read as one placeholder: `lead.score` ≡ `{{lead.score}}`. */
export function resolveField(field: string, context: Record<string, unknown>, opts: PlaceholderOptions = {}): unknown {
  const f = field.trim();
  return resolveValue(f.includes('{{') ? f : `{{${f}}}`, context, opts);
}

const resolveExpected = (value: unknown, context: Record<string, unknown>, opts: PlaceholderOptions): unknown =>
  Array.isArray(value) ? value.map((v) => resolveValue(v, context, opts)) : resolveValue(value, context, opts);

const TRUE_WORDS = new Set(['true', 'yes', 'y', '1', 'on', 'ja']);
const FALSE_WORDS = new Set(['false', 'no', 'n', '0', 'off', 'nej', '']);

/** true / false, or null when the value is not boolean-like. Missing counts as false. */
export function toBoolean(v: unknown): boolean | null {
  if (v === undefined || v === null) return false;
  if (typeof v === 'boolean') return v;
  if (typeof v === 'number') return v === 1 ? true : v === 0 ? false : null;
  if (typeof v === 'string') {
    const s = v.trim().toLowerCase();
    return TRUE_WORDS.has(s) ? true : FALSE_WORDS.has(s) ? false : null;
  }
  return null;
}

/** Arrays as they are; a JSON array string or "a, b" list parsed; missing → []; a scalar → [it]. */
export function toArray(v: unknown): unknown[] {
  if (Array.isArray(v)) return v;
  if (v === undefined || v === null || v === '') return [];
  if (typeof v === 'string') {
    const s = v.trim();
    if (s.startsWith('[')) {
      try {
        const parsed: unknown = JSON.parse(s);
        if (Array.isArray(parsed)) return parsed;
      } catch {
        // not JSON: fall through to the comma list
      }
    }
    return s
      .split(',')
      .map((x) => x.trim())
      .filter((x) => x.length > 0);
  }
  return [v];
}

const norm = (v: unknown): string => stringify(v).trim().toLowerCase();

/** Loose scalar equality: numerically when both are numbers, else case-insensitive text. */
function looseEquals(a: unknown, b: unknown): boolean {
  const na = toNumber(a);
  const nb = toNumber(b);
  if (na !== null && nb !== null && (typeof a === 'number' || typeof b === 'number')) return na === nb;
  if (typeof a === 'boolean' || typeof b === 'boolean') return toBoolean(a) === toBoolean(b) && toBoolean(a) !== null;
  return norm(a) === norm(b);
}

function inferType(actual: unknown): ConditionDataType {
  if (Array.isArray(actual)) return 'array';
  if (typeof actual === 'number') return 'number';
  if (typeof actual === 'boolean') return 'boolean';
  if (actual instanceof Date) return 'date';
  return 'string';
}

const isEmptyValue = (v: unknown): boolean =>
  v === undefined ||
  v === null ||
  (typeof v === 'string' && v.trim() === '') ||
  (Array.isArray(v) && v.length === 0) ||
  (typeof v === 'object' && !(v instanceof Date) && !Array.isArray(v) && Object.keys(v as object).length === 0);

/** -1/0/1, or null when either side is not a date. Date-only values compare as calendar days. */
function compareDates(a: unknown, b: unknown, tz: string): number | null {
  const da = parseDateInput(a, tz);
  const db = parseDateInput(b, tz);
  if (!da || !db) return null;
  const [x, y] =
    da.day !== undefined || db.day !== undefined ? [dayOfInput(da, tz), dayOfInput(db, tz)] : [da.ms, db.ms];
  return Math.sign(x - y);
}

/** Numbers, or dates (as instants) with dataType date. */
function compareOrdered(a: unknown, b: unknown, type: ConditionDataType | undefined, tz: string): number | null {
  if (type === 'date') return compareDates(a, b, tz);
  const na = toNumber(a);
  const nb = toNumber(b);
  return na === null || nb === null ? null : Math.sign(na - nb);
}

function bounds(expected: unknown): [unknown, unknown] | null {
  if (Array.isArray(expected) && expected.length === 2) return [expected[0], expected[1]];
  if (typeof expected === 'string') {
    const parts = expected.split(',').map((p) => p.trim());
    if (parts.length === 2 && parts[0] !== '' && parts[1] !== '') return [parts[0], parts[1]];
  }
  if (typeof expected === 'object' && expected !== null && 'min' in expected && 'max' in expected) {
    const o = expected as { min: unknown; max: unknown };
    return [o.min, o.max];
  }
  return null;
}

const regexCache = new Map<string, SafeRegex | null>();
function safeRegex(pattern: string): SafeRegex | null {
  let cached = regexCache.get(pattern);
  if (cached === undefined) {
    const { source, flags } = parseRegexValue(pattern);
    const res = compileSafeRegex(source, flags);
    cached = res.ok ? res.regex : null;
    if (regexCache.size > 200) regexCache.clear();
    regexCache.set(pattern, cached);
  }
  return cached;
}

function dayDiffFromNow(actual: unknown, opts: ConditionOptions, tz: string): number | null {
  if (opts.now === undefined)
    throw new Error('date_within_days and date_in_exactly_days need options.now (the workflow time)');
  const now = parseDateInput(opts.now, tz);
  const d = parseDateInput(actual, tz);
  if (!now || !d) return null;
  return dayOfInput(d, tz) - dayOfInput({ ms: now.ms }, tz);
}

/** Applies one operator to an already resolved actual and expected value. */
export function applyOperator(
  operator: ConditionOperator,
  actual: unknown,
  expected: unknown,
  dataType: ConditionDataType | undefined,
  opts: ConditionOptions = {},
): boolean {
  const tz = opts.timezone ?? DEFAULT_TZ;
  const type = dataType ?? inferType(actual);
  const text = (v: unknown): string | null => (v === undefined || v === null ? null : norm(v));
  switch (operator) {
    case 'equals':
      if (actual === undefined || actual === null) return isEmptyValue(expected);
      if (type === 'number') return toNumber(actual) !== null && toNumber(actual) === toNumber(expected);
      if (type === 'boolean') return toBoolean(actual) !== null && toBoolean(actual) === toBoolean(expected);
      if (type === 'date') return compareDates(actual, expected, tz) === 0;
      // A list equals a single value when it holds it (tags equals "vip").
      if (type === 'array')
        return Array.isArray(expected)
          ? norm(actual) === norm(expected)
          : toArray(actual).some((x) => looseEquals(x, expected));
      return norm(actual) === norm(expected);
    case 'not_equals':
      return !applyOperator('equals', actual, expected, dataType, opts);
    case 'contains': {
      if (type === 'array') return toArray(actual).some((x) => looseEquals(x, expected));
      const a = text(actual);
      return a !== null && a.includes(norm(expected));
    }
    case 'not_contains':
      return !applyOperator('contains', actual, expected, dataType, opts);
    case 'starts_with': {
      const a = text(actual);
      return a !== null && a.startsWith(norm(expected));
    }
    case 'ends_with': {
      const a = text(actual);
      return a !== null && a.endsWith(norm(expected));
    }
    case 'matches_regex': {
      if (actual === undefined || actual === null || typeof expected !== 'string') return false;
      const re = safeRegex(expected);
      return re !== null && re.test(stringify(actual));
    }
    case 'greater_than':
    case 'less_than':
    case 'greater_than_or_equal':
    case 'less_than_or_equal': {
      const cmp = compareOrdered(actual, expected, dataType, tz);
      if (cmp === null) return false;
      return operator === 'greater_than'
        ? cmp > 0
        : operator === 'less_than'
          ? cmp < 0
          : operator === 'greater_than_or_equal'
            ? cmp >= 0
            : cmp <= 0;
    }
    case 'between': {
      const b = bounds(expected);
      if (!b) return false;
      let [lo, hi] = b;
      if ((compareOrdered(lo, hi, dataType, tz) ?? 0) > 0) [lo, hi] = [hi, lo];
      const c1 = compareOrdered(actual, lo, dataType, tz);
      const c2 = compareOrdered(actual, hi, dataType, tz);
      return c1 !== null && c2 !== null && c1 >= 0 && c2 <= 0;
    }
    case 'is_empty':
      return isEmptyValue(actual);
    case 'is_not_empty':
      return !isEmptyValue(actual);
    case 'exists':
      return actual !== undefined && actual !== null;
    case 'not_exists':
      return actual === undefined || actual === null;
    case 'is_true':
      return toBoolean(actual) === true;
    case 'is_false':
      return toBoolean(actual) === false;
    case 'array_contains': {
      const list = toArray(actual);
      const wanted = Array.isArray(expected) ? expected : [expected];
      return wanted.length > 0 && wanted.every((w) => list.some((x) => looseEquals(x, w)));
    }
    case 'array_length_equals':
    case 'array_length_greater': {
      const n = toNumber(expected);
      if (n === null) return false;
      const len = toArray(actual).length;
      return operator === 'array_length_equals' ? len === n : len > n;
    }
    case 'date_before':
    case 'date_after':
    case 'date_equals': {
      if (operator === 'date_equals') {
        const a = parseDateInput(actual, tz);
        const e = parseDateInput(expected, tz);
        return a !== null && e !== null && dayOfInput(a, tz) === dayOfInput(e, tz);
      }
      const cmp = compareDates(actual, expected, tz);
      return cmp !== null && (operator === 'date_before' ? cmp < 0 : cmp > 0);
    }
    case 'date_within_days':
    case 'date_in_exactly_days': {
      const n = toNumber(expected);
      const diff = dayDiffFromNow(actual, opts, tz);
      if (n === null || diff === null) return false;
      const days = Math.trunc(n);
      if (operator === 'date_in_exactly_days') return diff === days;
      // Positive N: today … N days ahead; negative N: N days ago … today.
      return days >= 0 ? diff >= 0 && diff <= days : diff >= days && diff <= 0;
    }
  }
}

export function checkCondition(
  cond: Condition,
  context: Record<string, unknown>,
  opts: ConditionOptions = {},
): ConditionCheck {
  const actual = resolveField(cond.field, context, opts);
  const expected = resolveExpected(cond.value, context, opts);
  const passed = applyOperator(cond.operator, actual, expected, cond.dataType, opts);
  return {
    ...(cond.id !== undefined ? { id: cond.id } : {}),
    field: cond.field,
    operator: cond.operator,
    actual,
    expected,
    passed,
  };
}

export function evaluateCondition(
  cond: Condition,
  context: Record<string, unknown>,
  opts: ConditionOptions = {},
): boolean {
  return checkCondition(cond, context, opts).passed;
}

/** `and`: every condition holds; `or`: at least one. Also returns each check for the step log. */
export function explainConditions(
  conditions: readonly Condition[],
  logic: 'and' | 'or',
  context: Record<string, unknown>,
  opts: ConditionOptions = {},
): { result: boolean; checks: ConditionCheck[] } {
  const checks = conditions.map((c) => checkCondition(c, context, opts));
  const result = logic === 'or' ? checks.some((c) => c.passed) : checks.every((c) => c.passed);
  return { result, checks };
}

export function evaluateConditions(
  conditions: readonly Condition[],
  logic: 'and' | 'or',
  context: Record<string, unknown>,
  opts: ConditionOptions = {},
): boolean {
  return explainConditions(conditions, logic, context, opts).result;
}
