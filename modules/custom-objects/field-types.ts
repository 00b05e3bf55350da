// Custom object field types and value rules (pure: no I/O; references are checked by the service).

export const FIELD_TYPES = [
  'text',
  'number',
  'currency',
  'date',
  'datetime',
  'select',
  'multi_select',
  'checkbox',
  'url',
  'email',
  'phone',
  'file',
  'record_reference',
  'json',
  'formula',
  'rollup',
] as const;
export type FieldType = (typeof FIELD_TYPES)[number];
export interface FieldOption {
  value: string;
  label: string;
  color?: string;
}

export const ROLLUP_AGGREGATES = ['count', 'sum', 'avg', 'min', 'max'] as const;
export type RollupAggregate = (typeof ROLLUP_AGGREGATES)[number];

/** A rollup field's definition (computed in rollup.ts). */
export interface RollupSpec {
  /** Slug of the custom object whose records are aggregated. */
  object: string;
  /** Slug of its record_reference field that points at this object. */
  via: string;
  aggregate: RollupAggregate;
  /** Number, currency or formula field of `object` (not for count). */
  field: string | null;
}

/** Computed by the server; a write naming them is refused. */
export const READ_ONLY_TYPES: readonly FieldType[] = ['formula', 'rollup'];
/**
 * Types whose values may be declared unique (scalar values with a stable text form): every type but the multi-valued,
 * boolean, file and JSON ones and the computed ones.
 */
export const UNIQUE_TYPES: readonly FieldType[] = FIELD_TYPES.filter(
  (t) => !(['multi_select', 'checkbox', 'file', 'json', ...READ_ONLY_TYPES] as FieldType[]).includes(t),
);

/** Keys every record has at the top level; field slugs may not take them. */
export const RESERVED_SLUGS = [
  '_id',
  'id',
  'object',
  'recordNumber',
  'data',
  'customFields',
  'avatar',
  'title',
  'workspace',
  'workspaceId',
  'createdBy',
  'updatedBy',
  'createdAt',
  'updatedAt',
];

export const MAX_TEXT = 10_000;
export const MAX_JSON_BYTES = 64 * 1024;

export interface FieldRule {
  slug: string;
  type: FieldType;
  options: FieldOption[];
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATETIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:\d{2})$/;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const OBJECT_ID = /^[0-9a-f]{24}$/;

/** Normalises one value (null clears); returns `{ error }` with a message for a bad value. */
export function normalizeValue(field: FieldRule, value: unknown): { value: unknown } | { error: string } {
  if (value === null || value === undefined || value === '') return { value: null };
  switch (field.type) {
    case 'text':
    case 'phone':
    case 'file': {
      if (typeof value !== 'string') return { error: 'must be a string' };
      if (value.length > MAX_TEXT) return { error: `must be at most ${MAX_TEXT} characters` };
      if (field.type === 'phone' && !/^[+()\d\s.-]{3,50}$/.test(value)) return { error: 'must be a phone number' };
      return { value: field.type === 'text' ? value : value.trim() };
    }
    case 'number':
    case 'currency':
      if (typeof value !== 'number' || !Number.isFinite(value)) return { error: 'must be a number' };
      return { value };
    case 'checkbox':
      if (typeof value !== 'boolean') return { error: 'must be true or false' };
      return { value };
    case 'date':
      if (typeof value !== 'string' || !DATE.test(value) || Number.isNaN(Date.parse(value)))
        return { error: 'must be a date (YYYY-MM-DD)' };
      return { value };
    case 'datetime':
      if (typeof value !== 'string' || !DATETIME.test(value) || Number.isNaN(Date.parse(value)))
        return { error: 'must be an ISO 8601 datetime with a time zone' };
      return { value: new Date(value).toISOString() };
    case 'email':
      if (typeof value !== 'string' || value.length > 320 || !EMAIL.test(value.trim()))
        return { error: 'must be an e-mail address' };
      return { value: value.trim().toLowerCase() };
    case 'url': {
      if (typeof value !== 'string' || value.length > 2048) return { error: 'must be an http(s) URL' };
      try {
        const url = new URL(value.trim());
        if (url.protocol !== 'http:' && url.protocol !== 'https:') return { error: 'must be an http(s) URL' };
      } catch {
        return { error: 'must be an http(s) URL' };
      }
      return { value: value.trim() };
    }
    case 'select':
      if (typeof value !== 'string' || !field.options.some((o) => o.value === value))
        return { error: `must be one of ${field.options.map((o) => o.value).join(', ')}` };
      return { value };
    case 'multi_select': {
      if (!Array.isArray(value)) return { error: 'must be an array of option values' };
      const bad = value.find((v) => typeof v !== 'string' || !field.options.some((o) => o.value === v));
      if (bad !== undefined)
        return { error: `${JSON.stringify(bad)} is not one of ${field.options.map((o) => o.value).join(', ')}` };
      return { value: [...new Set(value as string[])] };
    }
    case 'record_reference':
      if (typeof value !== 'string' || !OBJECT_ID.test(value)) return { error: 'must be a record id' };
      return { value };
    case 'json':
      if (JSON.stringify(value).length > MAX_JSON_BYTES)
        return { error: `must be at most ${MAX_JSON_BYTES} bytes of JSON` };
      return { value };
    case 'formula':
    case 'rollup':
      return { error: 'is computed by the server and cannot be written' };
  }
}

/** The text a unique value is compared by (case-insensitive for text-like types). */
export function uniqueKey(type: FieldType, value: unknown): string {
  if (typeof value === 'string' && ['text', 'email', 'url', 'phone', 'select'].includes(type))
    return value.trim().toLowerCase();
  return typeof value === 'string' ? value : JSON.stringify(value);
}
