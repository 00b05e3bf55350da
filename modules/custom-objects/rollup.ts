import { z } from 'zod';
import type { Ctx } from '../../platform/context';
import { validation } from '../../platform/errors';
import { emit } from '../../platform/outbox/emit';
import { CustomObject, CustomObjectField, CustomObjectRecord } from './custom-object.entity';
import { ROLLUP_AGGREGATES, type RollupSpec } from './field-types';

export type { RollupSpec } from './field-types';

/**
 * Rollup fields: an aggregate over the records of another custom object that point at this record
 * through one of their `record_reference` fields. Values are stored on the record (so lists sort
 * and filter by them) and recomputed in the transaction that writes a referencing record.
 */

export const rollupBody = z
  .strictObject({
    object: z.string().min(1).max(63).describe('slug of the custom object whose records are aggregated'),
    via: z.string().min(1).max(63).describe('its record_reference field that points at this object'),
    aggregate: z.enum(ROLLUP_AGGREGATES, { message: `aggregate must be one of ${ROLLUP_AGGREGATES.join(', ')}` }),
    field: z
      .string()
      .min(1)
      .max(63)
      .optional()
      .describe('number, currency or formula field to aggregate (not for count)'),
  })
  .describe('rollup fields: { object, via, aggregate, field }');

const NUMERIC_TYPES = ['number', 'currency', 'formula'];

/** Checks a rollup definition on `parent` and returns what is stored. */
export async function checkRollup(
  ctx: Ctx,
  parent: CustomObject,
  input: z.infer<typeof rollupBody> | undefined,
): Promise<RollupSpec> {
  const fail = (path: string, error: string) =>
    validation(`rollup.${path}: ${error}`, [{ path: `rollup.${path}`, error }]);
  if (!input)
    throw validation('rollup is required for rollup fields: { object, via, aggregate, field }', [
      { path: 'rollup', error: 'is required' },
    ]);
  const child = await ctx.em.findOne(CustomObject, { slug: input.object });
  if (!child) throw fail('object', `no custom object with slug ${input.object}`);
  const fields = await ctx.em.find(CustomObjectField, { objectId: child._id });
  const via = fields.find((f) => f.slug === input.via);
  if (
    !via ||
    via.type !== 'record_reference' ||
    via.referenceType !== 'custom' ||
    via.referenceObject !== parent.slug
  ) {
    throw fail('via', `${input.object} has no record_reference field ${input.via} pointing at ${parent.slug}`);
  }
  if (input.aggregate === 'count') {
    if (input.field) throw fail('field', 'count takes no field');
    return { object: child.slug, via: via.slug, aggregate: 'count', field: null };
  }
  const field = fields.find((f) => f.slug === input.field);
  if (!input.field) throw fail('field', `is required for ${input.aggregate}`);
  if (!field || !NUMERIC_TYPES.includes(field.type))
    throw fail('field', `${input.object} has no number, currency or formula field ${input.field}`);
  return { object: child.slug, via: via.slug, aggregate: input.aggregate, field: field.slug };
}

function aggregateSql(spec: RollupSpec): { sql: string; params: unknown[] } {
  const value = '(c.data->>?)::numeric';
  switch (spec.aggregate) {
    case 'count':
      return { sql: 'count(*)', params: [] };
    case 'sum':
      return { sql: `coalesce(sum(${value}), 0)`, params: [spec.field] };
    case 'avg':
      return { sql: `round(avg(${value}), 10)`, params: [spec.field] };
    case 'min':
      return { sql: `min(${value})`, params: [spec.field] };
    case 'max':
      return { sql: `max(${value})`, params: [spec.field] };
  }
}

/**
 * Recomputes one rollup field on the given parent records (all of them when `parentIds` is
 * undefined); returns the records whose value changed, with old and new value.
 */
export async function recomputeRollup(
  ctx: Ctx,
  field: CustomObjectField,
  parentIds?: string[],
): Promise<{ id: string; from: unknown; to: unknown }[]> {
  const spec = field.rollup;
  if (!spec || (parentIds && !parentIds.length)) return [];
  const ws = ctx.actor.workspaceId;
  const child = await ctx.em.findOne(CustomObject, { slug: spec.object });
  if (!child) return [];
  const agg = aggregateSql(spec);
  const only = parentIds ? ` and p2.id in (${parentIds.map(() => '?').join(', ')})` : '';
  const rows = await ctx.em.execute<{ id: string; before: unknown; after: unknown }[]>(
    `with a as (
       select p2.id, p2.data->? as before,
              (select ${agg.sql} from custom_object_record c where c.workspace_id = ? and c.object_id = ? and c.data->>? = p2.id) as v
         from custom_object_record p2 where p2.workspace_id = ? and p2.object_id = ?${only}
     )
     update custom_object_record p
        set data = case when a.v is null then p.data - ? else jsonb_set(p.data, array[?]::text[], to_jsonb(a.v)) end
       from a
      where p.id = a.id and p.workspace_id = ? and a.before is distinct from to_jsonb(a.v)
     returning p.id, a.before, p.data->? as after`,
    [
      field.slug,
      ...agg.params,
      ws,
      child._id,
      spec.via,
      ws,
      field.objectId,
      ...(parentIds ?? []),
      field.slug,
      field.slug,
      ws,
      field.slug,
    ],
    'all',
  );
  return rows.map((r) => ({ id: r.id, from: r.before ?? null, to: r.after ?? null }));
}

/**
 * After records of `childObject` were written: recomputes the rollups that aggregate them on the
 * parents they point (or pointed) at, and announces each changed parent. Same transaction as the write.
 */
export async function refreshRollupsFor(
  ctx: Ctx,
  childObject: CustomObject,
  datas: Record<string, unknown>[],
): Promise<void> {
  const rollups = await ctx.em.find(CustomObjectField, { type: 'rollup' });
  const relevant = rollups.filter((f) => f.rollup?.object === childObject.slug);
  for (const field of relevant) {
    const ids = [...new Set(datas.map((d) => d[field.rollup!.via]).filter((v): v is string => typeof v === 'string'))];
    const changed = await recomputeRollup(ctx, field, ids);
    if (!changed.length) continue;
    const parent = await ctx.em.findOne(CustomObject, { _id: field.objectId });
    if (!parent) continue;
    for (const row of changed) {
      // The identity map may hold the parent from earlier in this transaction: refresh it.
      const record = await ctx.em.findOne(CustomObjectRecord, { _id: row.id }, { refresh: true });
      if (!record) continue;
      emit(ctx, {
        type: 'custom_object_updated',
        entityType: 'custom_object_record',
        entityId: record._id,
        payload: {
          customObjectId: parent._id,
          customObjectSlug: parent.slug,
          record: { _id: record._id, object: parent.slug, recordNumber: record.recordNumber, ...record.data },
          changes: { [field.slug]: { from: row.from, to: row.to } },
        },
      });
    }
  }
}

/** A new record has nothing pointing at it yet: count and sum start at 0, the others stay empty. */
export function initialRollups(fields: CustomObjectField[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const f of fields)
    if (f.type === 'rollup' && (f.rollup?.aggregate === 'count' || f.rollup?.aggregate === 'sum')) out[f.slug] = 0;
  return out;
}
