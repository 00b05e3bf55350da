/**
 * Zod builders with the house error wording ("is required", "must be one of …"), so the same
 * messages come out of a router's `schema.parse` and of the graph validator. Pure: zod only.
 */
import { z } from 'zod';

/** One validation problem; `path` uses `nodes[3].data.config.noteContent` notation. */
export interface ValidationIssue {
  path: string;
  error: string;
}

const EXPECTED: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  boolean: 'true or false',
  object: 'an object',
  array: 'an array',
  record: 'an object',
  null: 'null',
};

const list = (values: readonly unknown[]): string =>
  values.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join(', ');

/** The error map used by every builder below (zod 4 `error` parameter). */
export function zodMessage(iss: z.core.$ZodRawIssue): string | undefined {
  const i = iss as z.core.$ZodRawIssue & Record<string, unknown>;
  switch (i.code) {
    case 'invalid_type':
      return i.input === undefined ? 'is required' : `must be ${EXPECTED[String(i.expected)] ?? String(i.expected)}`;
    case 'too_small': {
      const min = Number(i.minimum);
      if (i.origin === 'string') return min <= 1 ? 'must not be empty' : `must be at least ${min} characters`;
      if (i.origin === 'array') return min <= 1 ? 'must not be empty' : `must have at least ${min} items`;
      return i.inclusive === false ? `must be greater than ${min}` : `must be at least ${min}`;
    }
    case 'too_big': {
      const max = Number(i.maximum);
      if (i.origin === 'string') return `must be at most ${max} characters`;
      if (i.origin === 'array') return `must have at most ${max} items`;
      return i.inclusive === false ? `must be less than ${max}` : `must be at most ${max}`;
    }
    case 'invalid_value':
      return i.input === undefined
        ? `is required (one of ${list(i.values as unknown[])})`
        : `must be one of ${list(i.values as unknown[])}`;
    case 'unrecognized_keys':
      return `unknown field(s): ${(i.keys as string[]).join(', ')}`;
    case 'invalid_format':
      return 'has an invalid format';
    case 'invalid_union':
      return 'has an invalid value';
    default:
      return undefined;
  }
}

const e = { error: zodMessage };

export const zString = () => z.string(e);
/** A trimmed, non-empty string of at most `max` characters. */
export const zRequiredText = (max: number) =>
  z.string(e).trim().min(1, 'is required').max(max, `must be at most ${max} characters`);
export const zNumber = () => z.number(e);
export const zInt = () => z.number(e).int();
export const zBoolean = () => z.boolean(e);
export const zEnum = <const T extends readonly [string, ...string[]]>(values: T) => z.enum(values, e);
export const zObject = <T extends z.core.$ZodLooseShape>(shape: T) => z.object(shape, e);
export const zStrictObject = <T extends z.core.$ZodLooseShape>(shape: T) => z.strictObject(shape, e);
export const zArray = <T extends z.core.SomeType>(item: T) => z.array(item, e);
/** Any JSON object (not an array, not null); values are not inspected. */
export const zJsonObject = () => z.record(z.string(), z.unknown(), e);

/** A string containing at least one `{{…}}` placeholder (resolved at run time). */
export const PLACEHOLDER_SNIPPET = /\{\{[^{}]+\}\}/;
export const hasPlaceholder = (v: unknown): v is string => typeof v === 'string' && PLACEHOLDER_SNIPPET.test(v);

/** `inner` (a number schema), or a string with a placeholder that must resolve to a number at run time. */
export const zNumberOrPlaceholder = (inner: z.ZodType) =>
  z.unknown().superRefine((v, ctx) => {
    if (hasPlaceholder(v)) return;
    const res = inner.safeParse(v, { error: zodMessage });
    if (res.success) return;
    for (const iss of res.error.issues) {
      const message =
        typeof v === 'string' && iss.code === 'invalid_type' ? `${iss.message} or a {{placeholder}}` : iss.message;
      ctx.addIssue({ code: 'custom', message, path: iss.path });
    }
  });

export const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** `base` + zod path → `base.key[0].sub`. */
export function joinPath(base: string, path: readonly PropertyKey[]): string {
  let out = base;
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else out += out ? `.${String(seg)}` : String(seg);
  }
  return out;
}

/** Parses with `schema` and returns issues under `base` (empty when valid). */
export function issuesOf(schema: z.ZodType, value: unknown, base: string): ValidationIssue[] {
  const res = schema.safeParse(value, { error: zodMessage });
  if (res.success) return [];
  return res.error.issues.map((iss) => ({ path: joinPath(base, iss.path), error: iss.message }));
}

/**
 * A stored value that '' or null clears: trimmed, at most `max` characters, kept in the form `normalize` gives it
 * (a 400 with `message` when it gives none).
 */
export const zClearableNormalized = (max: number, normalize: (value: string) => string | null, message: string) =>
  z
    .string()
    .trim()
    .max(max, `must be at most ${max} characters`)
    .nullable()
    .transform((value, ctx) => {
      if (value === null || value === '') return null;
      const normalized = normalize(value);
      if (!normalized) {
        ctx.addIssue({ code: 'custom', message });
        return z.NEVER;
      }
      return normalized;
    });
