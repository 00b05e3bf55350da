import type { Ctx } from '../../platform/context';
import { validation } from '../../platform/errors';
import type { EventPayload } from '../../platform/outbox/catalog';
import { emit } from '../../platform/outbox/emit';
import { recordSystemActivity } from '../timeline';
import { emitTagChanges, normalizeTags } from '../../platform/shared/changes';
import { rescoreChangedLeads, type Lead } from '../leads';
import { loadRecords, recordKind, RECORD_TYPES, tableOf, type RecordType } from '../../platform/shared/record-kinds';
import { inTransaction } from '../../platform/shared/tx';
import type { BulkTagsResultView, TagCountView } from './tags.schemas';

type UpdatedPayload = EventPayload<`${RecordType}_updated`>;

export const MAX_TAGS_PER_RECORD = 100;

/**
 * Unique tags with how many records carry each, sorted by tag (case-insensitive), one page of
 * them plus the number of unique tags; all four types when no type is given.
 */
export async function listTags(
  ctx: Ctx,
  query: { entityType?: RecordType; page: number; limit: number },
): Promise<{ items: TagCountView[]; total: number }> {
  const types = query.entityType ? [query.entityType] : RECORD_TYPES;
  const parts = types.map((type) => {
    const { table, column } = tableOf(ctx, recordKind(type));
    return `select unnest(${column('tags')}) as tag from "${table}" where ${column('workspaceId')} = ?`;
  });
  const tags = `select tag, count(*) as count from (${parts.join(' union all ')}) t group by tag`;
  const params = types.map(() => ctx.actor.workspaceId);
  const conn = ctx.em.getConnection();
  const [rows, [counted]] = await Promise.all([
    conn.execute<{ tag: string; count: string }[]>(`${tags} order by lower(tag), tag limit ? offset ?`, [
      ...params,
      query.limit,
      (query.page - 1) * query.limit,
    ]),
    conn.execute<{ total: string }[]>(`select count(*) as total from (${tags}) g`, params),
  ]);
  return { items: rows.map((r) => ({ tag: r.tag, count: Number(r.count) })), total: Number(counted?.total ?? 0) };
}

export interface BulkTagInput {
  entityType: RecordType;
  entityIds: string[];
  add: string[];
  remove: string[];
}

/**
 * Adds and removes tags on many records of one type in one transaction. Every id must exist in
 * the workspace, else nothing changes. Events and feed rows only for records whose tags changed.
 */
export async function bulkTags(ctx: Ctx, input: BulkTagInput): Promise<BulkTagsResultView> {
  const kind = recordKind(input.entityType);
  const add = normalizeTags(input.add) ?? [];
  const remove = normalizeTags(input.remove) ?? [];
  const both = add.filter((t) => remove.includes(t));
  if (both.length) throw validation(`tags ${both.join(', ')} are in both add and remove`);
  const ids = [...new Set(input.entityIds)];
  const { records, missing } = await loadRecords(ctx, kind, ids);
  if (missing.length) throw validation(`entityIds: no ${input.entityType} with id ${missing.join(', ')}`, { missing });

  const changes = records.map((record) => {
    const before = [...record.tags];
    const after = [...new Set([...before.filter((t) => !remove.includes(t)), ...add])];
    return { record, before, after };
  });
  const overfull = changes.filter((c) => c.after.length > MAX_TAGS_PER_RECORD).map((c) => c.record._id);
  if (overfull.length)
    throw validation(`tags: at most ${MAX_TAGS_PER_RECORD} tags per record; exceeded for ${overfull.join(', ')}`, {
      ids: overfull,
    });

  const touched = changes.filter(
    ({ before, after }) => before.length !== after.length || !before.every((t) => after.includes(t)),
  );
  for (const { record, after } of touched) record.tags = after;
  const scores =
    input.entityType === 'lead'
      ? await rescoreChangedLeads(
          ctx,
          touched.map((c) => c.record as unknown as Lead),
        )
      : new Map();
  await inTransaction(ctx, async () => {
    for (const { record, before, after } of touched) {
      record.updatedAt = new Date();
      const score = scores.get(record._id);
      const diff = { tags: { from: before, to: after }, ...(score ? { score } : {}) };
      emit(ctx, {
        type: `${input.entityType}_updated`,
        entityType: input.entityType,
        entityId: record._id,
        // `{ <record type>: view, changes }`: TS types the computed key as an index signature, and the
        // kinds' serialize() as a plain record, so the declared payload is asserted here.
        payload: { [input.entityType]: kind.serialize(record), changes: diff } as unknown as UpdatedPayload,
      });
      emitTagChanges(ctx, input.entityType, record._id, before, after);
      recordSystemActivity(
        ctx,
        kind.link(record._id),
        'record_updated',
        `Tags of ${kind.displayName(record)} updated`,
        { changes: diff },
      );
    }
  });
  return { updated: touched.length, unchanged: records.length - touched.length };
}
