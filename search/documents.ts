import type { EntityManager } from '@mikro-orm/postgresql';
import { forkForWorkspace } from '../platform/orm/tenant';
import { definitionOf } from './registry';
import type { AnyDefinition, IndexedRow, ReferenceNames, SearchDocument } from './types/definition';

type Row = IndexedRow & Record<string, unknown>;

// The snippet markers (search/snippet.ts) can never come from record text.
const strip = (v: unknown): string =>
  String(v ?? '')
    .replace(/[\u{F0001}\u{F0002}]/gu, '')
    .trim();

function clean(value: string | string[] | null | undefined): string | string[] | null {
  if (Array.isArray(value)) {
    const kept = value.map(strip).filter(Boolean);
    return kept.length ? kept : null;
  }
  const text = strip(value);
  return text ? text : null;
}

/** Titles of the records `rows` reference, per reference (loaded through the same workspace-bound EM). */
async function referenceNames(
  em: EntityManager,
  def: AnyDefinition,
  rows: Row[],
): Promise<Map<string, Map<string, string>>> {
  const out = new Map<string, Map<string, string>>();
  for (const ref of def.references ?? []) {
    const ids = [
      ...new Set(rows.map((r) => r[ref.property]).filter((v): v is string => typeof v === 'string' && v.length > 0)),
    ];
    const titles = new Map<string, string>();
    if (ids.length) {
      const target = definitionOf(ref.type);
      const found = (await em.find(target.entity, { _id: { $in: ids } } as never)) as Row[];
      for (const r of found) titles.set(r._id, target.title(r));
    }
    out.set(ref.nameAttribute, titles);
  }
  return out;
}

/**
 * Builds the documents of `rows` (one workspace, `em` bound to it): the only document builder,
 * used by the outbox subscriber, `search reindex` and the benchmark alike.
 */
export async function buildDocuments(em: EntityManager, def: AnyDefinition, rows: Row[]): Promise<SearchDocument[]> {
  const names = await referenceNames(em, def, rows);
  const prepared = def.prepare ? await def.prepare(em, rows) : undefined;
  return rows.map((row) => {
    const rowNames: ReferenceNames = {};
    const doc: SearchDocument = {
      id: row._id,
      workspaceId: row.workspaceId,
      title: strip(def.title(row, prepared)),
      subtitle: null,
      updatedAt: row.updatedAt.getTime(),
    };
    for (const ref of def.references ?? []) {
      const refId = (row[ref.property] as string | null | undefined) || null;
      rowNames[ref.nameAttribute] = refId ? (names.get(ref.nameAttribute)?.get(refId) ?? null) : null;
      doc[ref.idAttribute] = refId;
    }
    for (const parent of def.parents ?? [])
      doc[parent.idAttribute] = (row[parent.property] as string | null | undefined) || null;
    doc.subtitle = strip(def.subtitle(row, rowNames, prepared)) || null;
    for (const field of def.fields)
      if (field.attribute !== 'title') doc[field.attribute] = clean(field.value(row, rowNames, prepared));
    return doc;
  });
}

/** Current documents of `ids` (present rows) and the ids whose rows are gone (to delete). */
export async function loadDocuments(
  em: EntityManager,
  def: AnyDefinition,
  ids: readonly string[],
): Promise<{ docs: SearchDocument[]; missing: string[] }> {
  const rows = ids.length ? ((await em.find(def.entity, { _id: { $in: [...ids] } } as never)) as Row[]) : [];
  const found = new Set(rows.map((r) => r._id));
  return { docs: await buildDocuments(em, def, rows), missing: ids.filter((id) => !found.has(id)) };
}

/** Ids of `def` rows that reference `refId` through `property` (Postgres side of the dependents lookup). */
export async function referencingIds(
  em: EntityManager,
  def: AnyDefinition,
  property: string,
  refId: string,
): Promise<string[]> {
  const rows = (await em.find(def.entity, { [property]: refId } as never, { fields: ['_id'] as never })) as Row[];
  return rows.map((r) => r._id);
}

/** All documents of one workspace in id order, `size` at a time, each chunk from a fresh fork. */
export async function* documentChunks(
  root: EntityManager,
  def: AnyDefinition,
  workspaceId: string,
  size = 1000,
): AsyncGenerator<SearchDocument[]> {
  let after = '';
  for (;;) {
    const em = forkForWorkspace(root, workspaceId);
    const rows = (await em.find(def.entity, (after ? { _id: { $gt: after } } : {}) as never, {
      orderBy: { _id: 'asc' } as never,
      limit: size,
    })) as Row[];
    if (rows.length === 0) return;
    yield await buildDocuments(em, def, rows);
    if (rows.length < size) return;
    after = rows[rows.length - 1]._id;
  }
}
