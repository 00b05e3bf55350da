import type { EntityName } from '@mikro-orm/core';
import type { Ctx } from '../context';
import { resources } from '../resources';
import { toPlain } from './listing';
import type { RecordType } from './record-types';
import type { TimelineSupport } from './resource';

export { RECORD_TYPES, type RecordType } from './record-types';

type AnyRecord = { _id: string; tags: string[]; customFields: unknown; updatedAt: Date } & Record<string, unknown>;

/** What a system row of the timeline points at (the timeline module's TimelineLink): the kind's link column. */
export type RecordLink = Partial<Record<NonNullable<TimelineSupport['linkColumn']>, string>> & {
  entityType: string;
  entityId: string;
};

export interface RecordKind {
  type: RecordType;
  /** The entity schema; its `meta.className` names the table for the SQL-written queries. */
  entity: EntityName<AnyRecord> & { meta: { className: string } };
  /** Companies/people store custom fields as [{ name, value }]; leads/deals as a key → value map. */
  customFieldStorage: 'pairs' | 'map';
  serialize: (record: AnyRecord) => Record<string, unknown>;
  summary: (record: AnyRecord) => Record<string, unknown>;
  /** Activity-feed link of the record, for system rows. */
  link: (id: string) => RecordLink;
  /** Human-readable name for feed rows. */
  displayName: (record: AnyRecord) => string;
}

const kinds = new Map<RecordType, RecordKind>();

/** The record kind of a type, from the resource manifest that declares `record` (built on first use). */
export function recordKind(type: RecordType): RecordKind {
  const known = kinds.get(type);
  if (known) return known;
  const manifest = resources().find((r) => r.kind === type);
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
  kinds.set(type, kind);
  return kind;
}

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
