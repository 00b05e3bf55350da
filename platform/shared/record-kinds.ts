import type { EntityName } from '@mikro-orm/core';
import type { Ctx } from '../context';
import { RESOURCES } from '../resources';
import type { TimelineLink } from '../../modules/timeline';
import { toPlain } from './listing';
import { RECORD_TYPES, type RecordType } from './record-types';

export { RECORD_TYPES, type RecordType } from './record-types';

type AnyRecord = { _id: string; tags: string[]; customFields: unknown; updatedAt: Date } & Record<string, unknown>;

export interface RecordKind {
  type: RecordType;
  /** The entity schema; its `meta.className` names the table for the SQL-written queries. */
  entity: EntityName<AnyRecord> & { meta: { className: string } };
  /** Companies/people store custom fields as [{ name, value }]; leads/deals as a key → value map. */
  customFieldStorage: 'pairs' | 'map';
  serialize: (record: AnyRecord) => Record<string, unknown>;
  summary: (record: AnyRecord) => Record<string, unknown>;
  /** Activity-feed link of the record, for system rows. */
  link: (id: string) => TimelineLink;
  /** Human-readable name for feed rows. */
  displayName: (record: AnyRecord) => string;
}

/** The record kinds, from the resource manifests that declare `record` (one per RECORD_TYPES entry). */
export const RECORD_KINDS = Object.fromEntries(
  RECORD_TYPES.map((type) => {
    const manifest = RESOURCES.find((r) => r.kind === type);
    const { record, timeline, view } = manifest ?? {};
    if (!record || !view || !timeline?.linkColumn)
      throw new Error(`record type ${type}: its resource manifest lacks record, view or timeline link`);
    const column = timeline.linkColumn;
    const kind: RecordKind = {
      type,
      entity: manifest!.entity as unknown as RecordKind['entity'],
      customFieldStorage: record.customFieldStorage,
      serialize: (r) => view.call(manifest, r),
      summary: (r) => toPlain(r, ['_id', ...record.summaryFields]),
      link: (id) => ({ [column]: id, entityType: type, entityId: id }),
      displayName: (r) => record.displayName(r),
    };
    return [type, kind];
  }),
) as Record<RecordType, RecordKind>;

/** Table and column names of a record type, for the few queries written in SQL. */
export function tableOf(ctx: Ctx, kind: RecordKind): { table: string; column: (prop: string) => string } {
  const meta = ctx.em.getMetadata().get(kind.entity.meta.className);
  return { table: meta.tableName, column: (prop) => meta.properties[prop]!.fieldNames[0]! };
}

/** Loads records of one type by id (workspace-filtered); `missing` lists ids that are not there. */
export async function loadRecords(
  ctx: Ctx,
  kind: RecordKind,
  ids: readonly string[],
): Promise<{ records: AnyRecord[]; missing: string[] }> {
  const records = (await ctx.em.find(kind.entity, { _id: { $in: [...ids] } } as never)) as AnyRecord[];
  const found = new Set(records.map((r) => r._id));
  return { records, missing: ids.filter((id) => !found.has(id)) };
}

export type { AnyRecord };
