import { z, type ZodError } from 'zod';
import { ID_RE } from '../ids';
import { pageParams } from './list-query';

/** A 24-hex object id; path params that fail it answer 404 like an unknown id (the pattern is in the docs). */
export const objectId = z.string().regex(ID_RE, { message: 'must be a 24-character hex id' });
export const idParams = z.object({ id: objectId });

/** Optional text that may be cleared with null or "" (stored as null). */
export const clearableText = (max: number) =>
  z
    .string()
    .trim()
    .max(max, `must be at most ${max} characters`)
    .nullable()
    .transform((v) => (v === '' || v === null ? null : v));

export const requiredText = (max: number) =>
  z.string().trim().min(1, 'is required').max(max, `must be at most ${max} characters`);

export const clearableEmail = z
  .union([
    z.literal(''),
    z.null(),
    z.email({ message: 'must be a valid e-mail address' }).max(320, 'must be at most 320 characters'),
  ])
  .transform((v) => (v ? v.toLowerCase() : null));

export const MAX_TAGS = 100;
export const tagsField = z
  .array(z.string().trim().min(1, 'tags must not be empty').max(100, 'each tag must be at most 100 characters'))
  .max(MAX_TAGS, `at most ${MAX_TAGS} tags`);

export const MAX_CUSTOM_FIELDS = 200;
export const customFieldValue = z.union([
  z.string().max(10_000),
  z.number(),
  z.boolean(),
  z.null(),
  z.array(z.union([z.string().max(1000), z.number()])).max(100),
]);

/** Companies/people: array of { name, value } on create (an object map is accepted and converted). */
export const nameValueCustomFields = z.union([
  z
    .array(z.object({ name: requiredText(100), value: customFieldValue }))
    .max(MAX_CUSTOM_FIELDS, `at most ${MAX_CUSTOM_FIELDS} custom fields`),
  z
    .record(z.string().min(1).max(100), customFieldValue)
    .refine((o) => Object.keys(o).length <= MAX_CUSTOM_FIELDS, `at most ${MAX_CUSTOM_FIELDS} custom fields`),
]);

/** Image fields: https URL, data:image/…;base64 URL (≤ 2 MB decoded, checked by the image service) or "" to clear. */
export const imageField = z
  .string()
  .max(3_000_000, 'image data URL too large (the image limit is 2 MB)')
  .refine((v) => v === '' || v.startsWith('https://') || v.startsWith('data:image/'), {
    message: 'must be an https image URL, a data:image/…;base64 URL, or "" to clear',
  });

export const pageQuery = (max = 100) => z.object(pageParams(max));

/**
 * Leads, deals, tasks: stored as a key → value map; name/value pairs are accepted and converted (spec: Conventions).
 */
export const mapCustomFields = nameValueCustomFields.transform((v): Record<string, unknown> =>
  Array.isArray(v) ? Object.fromEntries(v.map((pair) => [pair.name, pair.value])) : v,
);

/** A zod failure as the API's `{ message, details[] }` pair; `where` names the input (request, row, …). */
export function formatZodError(
  err: ZodError,
  where: string,
): { message: string; details: { path: string; error: string }[] } {
  const details = err.issues.map((issue) => ({
    path: issue.path.map(String).join('.') || where,
    error: issue.message,
  }));
  const first = details[0];
  const message = first
    ? `${where}: ${first.path === where ? '' : first.path + ': '}${first.error}`
    : `invalid ${where}`;
  return { message, details };
}
