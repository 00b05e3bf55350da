import { z } from 'zod';
import { FIELD_TYPES, MAX_JSON_BYTES, RESERVED_SLUGS } from './field-types';
import { rollupBody } from './rollup';
import { RECORD_TYPES } from '../../platform/shared/record-types';

export const MAX_FAVORITE_FIELDS = 5;
export const MAX_FIELDS_PER_OBJECT = 200;
export const MAX_BULK_IDS = 500;

const text = (max: number) => z.string().trim().max(max, `must be at most ${max} characters`);
const clearable = (max: number) =>
  text(max)
    .nullable()
    .transform((v) => (v === '' || v === null ? null : v));
const required = (max: number) => text(max).min(1, 'is required');

export const OBJECT_SLUG = /^[a-z][a-z0-9_-]{0,62}$/;
export const FIELD_SLUG = /^[a-zA-Z][a-zA-Z0-9_]{0,62}$/;
const objectSlug = z
  .string()
  .regex(OBJECT_SLUG, 'slug must be URL-safe: a lowercase letter, then up to 62 lowercase letters, digits, - or _')
  .refine((s) => s !== 'search', 'slug "search" is reserved');
const fieldSlug = z
  .string()
  .regex(FIELD_SLUG, 'slug must start with a letter and contain only letters, digits and _ (max 63)')
  .refine((s) => !RESERVED_SLUGS.includes(s), { message: `slug may not be one of ${RESERVED_SLUGS.join(', ')}` });
const color = z
  .string()
  .regex(/^#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/, 'color must be a hex colour such as #3366ff')
  .transform((c) => c.toLowerCase())
  .nullable();
const slugList = (max: number) => z.array(z.string().min(1).max(63)).max(max, `at most ${max} entries`);
const boundedJson = z
  .unknown()
  .refine((v) => JSON.stringify(v ?? null).length <= MAX_JSON_BYTES, `must be at most ${MAX_JSON_BYTES} bytes of JSON`);

const definitionFields = {
  singular: required(100),
  plural: required(100),
  description: clearable(5000),
  icon: clearable(100),
  color,
  useAccentNavIcon: z.boolean(),
  searchable: z.boolean(),
  showInSidebar: z.boolean(),
};

export const createObjectBody = z
  .object({ slug: objectSlug, singular: required(100), plural: required(100) })
  .extend(z.object(definitionFields).omit({ singular: true, plural: true }).partial().shape);
export type CreateObjectInput = z.infer<typeof createObjectBody>;

export const updateObjectBody = z
  .object({
    ...definitionFields,
    slug: z.string().optional(),
    titleField: z.string().max(63).nullable(),
    favoriteFieldKeys: slugList(MAX_FAVORITE_FIELDS).refine(
      (a) => a.length <= MAX_FAVORITE_FIELDS,
      `at most ${MAX_FAVORITE_FIELDS} favourite fields`,
    ),
    searchableFields: slugList(MAX_FIELDS_PER_OBJECT),
    views: boundedJson,
    piiFields: slugList(MAX_FIELDS_PER_OBJECT),
  })
  .partial();
export type UpdateObjectInput = z.infer<typeof updateObjectBody>;

const option = z.object({ value: required(200), label: required(200), color: z.string().max(20).optional() });
const optionList = z
  .array(option)
  .min(1, 'options must not be empty')
  .max(500, 'at most 500 options')
  .refine((o) => new Set(o.map((x) => x.value)).size === o.length, 'option values must be unique');

export const createFieldBody = z.object({
  slug: fieldSlug,
  label: required(200),
  type: z.enum(FIELD_TYPES, { message: `type must be one of ${FIELD_TYPES.join(', ')}` }),
  isRequired: z.boolean().optional(),
  isUnique: z.boolean().optional(),
  options: optionList.optional(),
  referenceType: z.enum(['custom', 'native'], { message: 'referenceType must be custom or native' }).optional(),
  referenceObject: z.string().max(63).optional(),
  nativeEntity: z.enum(RECORD_TYPES, { message: 'nativeEntity must be company, person, deal or lead' }).optional(),
  order: z.number().int().min(0).max(10_000).optional(),
  expression: z
    .string({ message: 'expression must be a string' })
    .max(500, 'expression must be at most 500 characters')
    .optional()
    .describe('formula fields: arithmetic over number/currency field slugs with + - * / and parentheses'),
  rollup: rollupBody.optional(),
});
export type CreateFieldInput = z.infer<typeof createFieldBody>;

export const updateFieldBody = z
  .object({
    label: required(200),
    isRequired: z.boolean(),
    isUnique: z.boolean(),
    options: optionList,
    order: z.number().int().min(0).max(10_000),
    type: z.string(),
    slug: z.string(),
    expression: z
      .string({ message: 'expression must be a string' })
      .max(500, 'expression must be at most 500 characters'),
  })
  .partial();
export type UpdateFieldInput = z.infer<typeof updateFieldBody>;

export const objectParams = z.object({ slug: z.string().min(1).max(63) });
export const fieldParams = z.object({ slug: z.string().min(1).max(63), fieldSlug: z.string().min(1).max(63) });
export const recordParams = z.object({
  slug: z.string().min(1).max(63),
  id: z.string().regex(/^[0-9a-f]{24}$/, 'must be a 24-character hex id'),
});

export const listRecordsQuery = z.object({
  page: z.coerce.number().int('page must be an integer').min(1, 'page must be at least 1').default(1),
  limit: z.coerce
    .number()
    .int('limit must be an integer')
    .min(1, 'limit must be at least 1')
    .max(100, 'limit must be at most 100')
    .default(20),
  q: z.string().trim().max(200).optional(),
  search: z.string().trim().max(200).optional().describe('alias of q'),
  cursor: z
    .string()
    .regex(/^[0-9a-f]{24}$/, 'cursor must be the _id of the last record of the previous page')
    .optional(),
  sort: z.string().max(63).optional(),
  dir: z.enum(['asc', 'desc'], { message: 'dir must be asc or desc' }).optional(),
});
export type ListRecordsQuery = z.infer<typeof listRecordsQuery>;

/**
 * Record bodies: a slug → value map, optionally wrapped in `{ data }` or `{ customFields }`; `avatar` at the top level.
 */
export const recordBody = z
  .record(z.string().max(200), z.unknown())
  .refine((o) => Object.keys(o).length <= MAX_FIELDS_PER_OBJECT + 3, 'too many keys');

export const bulkBody = z.object({
  ids: z
    .array(z.string().regex(/^[0-9a-f]{24}$/, 'each id must be a 24-character hex id'))
    .min(1, 'ids must not be empty')
    .max(MAX_BULK_IDS, `at most ${MAX_BULK_IDS} ids`),
  patch: z.record(z.string().max(200), z.unknown()),
});
