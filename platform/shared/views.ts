import { z } from 'zod';

/**
 * Building blocks of response views (the zod schemas the OpenAPI document shows and the test-time
 * contract check enforces). A feature's views live in its own `*.schemas.ts`; serializers are
 * typed by them (`(x: X): XView`), so code and document cannot drift apart unnoticed.
 */
export const idView = z.string().describe('24-hex object id');
export const dateTimeView = z.iso.datetime().describe('ISO 8601 date-time (UTC)');
/** A `YYYY-MM-DD` calendar date. */
export const dateView = z.iso.date();
export const customFieldsView = z
  .record(z.string(), z.unknown())
  .describe('custom field values by key (open: keys are defined per workspace)');
/** An open JSON object whose keys the spec does not fix. */
export const openObjectView = z.record(z.string(), z.unknown());

/** `_id`, `createdAt`, `updatedAt` of every record view. */
export const recordViewFields = {
  _id: idView,
  createdAt: dateTimeView,
  updatedAt: dateTimeView,
};

/**
 * A record as GET/list answer it: the full view, or (`fields=` / `view=summary`) a projection, `_id` plus the chosen
 * fields.
 */
export const readViewOf = <S extends { _id: z.ZodType }>(
  view: z.ZodObject<S>,
  projection = 'projection (fields= or view=summary): _id plus the chosen fields',
) =>
  z.union([
    view,
    view
      .partial()
      // S has _id, which the generic mask type cannot see.
      .required({ _id: true } as { _id: true } & Record<Exclude<'_id', keyof S>, never>)
      .describe(projection),
  ]);

/** What `plainOf` makes of a property: dates become ISO strings, undefined becomes null. */
export type Plain<T> = T extends Date ? string : T extends undefined ? null : T;

/**
 * The listed properties of an entity as the API shows them (dates as ISO strings, missing as null),
 * typed per key so that `(x: X): XView => plainOf(x, KEYS)` fails to compile when the view and the
 * entity disagree.
 */
export function plainOf<E extends object, K extends keyof E & string>(
  entity: E,
  keys: readonly K[],
): { [P in K]: Plain<E[P]> } {
  const out: Record<string, unknown> = {};
  for (const key of keys) {
    const value = entity[key];
    out[key] = value instanceof Date ? value.toISOString() : (value ?? null);
  }
  return out as { [P in K]: Plain<E[P]> };
}
