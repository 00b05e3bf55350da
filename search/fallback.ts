import { raw } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { likePattern } from '../platform/shared/listing';
import { buildDocuments } from './documents';
import type { SearchHit, SearchRequest, SearchResults, TypeResults } from './query';
import { definitionOf } from './registry';
import { MAX_TOTAL_HITS } from './settings';
import { markedToHtml, snippetAround } from './snippet';
import type { AnyDefinition, IndexedRow, SearchDocument } from './types/definition';

/** Referenced ids considered per reference in degraded mode (keeps the IN list bounded). */
const MAX_REFERENCED = 1000;

type Condition = Record<string, unknown>;

function columnOf(em: EntityManager, def: AnyDefinition): (property: string) => string {
  const meta = em.getMetadata().get(def.entity.meta.className);
  return (property) => {
    const column = meta.properties[property]?.fieldNames?.[0];
    if (!column) throw new Error(`search type ${def.type}: unknown property ${property}`);
    return column;
  };
}

/** ILIKE conditions over a type's own columns (json and array columns as text). */
function ownConditions(em: EntityManager, def: AnyDefinition, like: string, only?: string): Condition[] {
  const column = columnOf(em, def);
  const out: Condition[] = [];
  for (const field of def.fields) {
    if (field.pg === undefined || field.pg === 'reference' || (only && field.attribute !== only)) continue;
    for (const expr of field.pg) {
      const sql = (alias: string): string =>
        typeof expr === 'string' ? `${alias}.${column(expr)}::text` : expr((p) => `${alias}.${column(p)}`);
      out.push({ [raw((alias) => sql(alias))]: { $ilike: like } });
    }
  }
  return out;
}

/** Matches on a referenced record's title (person → companyName) through the referenced ids. */
async function referenceConditions(em: EntityManager, def: AnyDefinition, like: string): Promise<Condition[]> {
  const out: Condition[] = [];
  for (const ref of def.references ?? []) {
    const field = def.fields.find((f) => f.attribute === ref.nameAttribute);
    if (field?.pg !== 'reference') continue;
    const target = definitionOf(ref.type);
    const rows = (await em.find(target.entity, { $or: ownConditions(em, target, like, 'title') } as never, {
      fields: ['_id'] as never,
      limit: MAX_REFERENCED,
    })) as IndexedRow[];
    if (rows.length) out.push({ [ref.property]: { $in: rows.map((r) => r._id) } });
  }
  return out;
}

function fallbackSnippet(def: AnyDefinition, doc: SearchDocument, q: string): string {
  for (const field of def.fields) {
    const value = doc[field.attribute];
    for (const text of Array.isArray(value) ? value : [value]) {
      const snippet = typeof text === 'string' ? snippetAround(text, q) : null;
      if (snippet) return snippet;
    }
  }
  return markedToHtml(doc.title);
}

async function searchType(em: EntityManager, def: AnyDefinition, req: SearchRequest): Promise<TypeResults> {
  const like = likePattern(req.q);
  const conditions = [...ownConditions(em, def, like), ...(await referenceConditions(em, def, like))];
  const [rows, total] = await em.findAndCount(def.entity, { $or: conditions } as never, {
    limit: req.limit,
    orderBy: { updatedAt: 'desc', _id: 'desc' } as never,
  });
  const docs = await buildDocuments(em, def, rows as never);
  const hits: SearchHit[] = docs.map((doc) => ({
    _id: doc.id,
    type: def.type,
    title: doc.title,
    subtitle: doc.subtitle,
    snippet: fallbackSnippet(def, doc, req.q),
  }));
  return { hits, total: Math.min(total, MAX_TOTAL_HITS) };
}

/**
 * Degraded search straight from Postgres (case-insensitive substring match over the same
 * attributes), used while Meilisearch is unreachable. `em` is bound to the caller's workspace.
 */
export async function searchPostgres(em: EntityManager, req: SearchRequest): Promise<SearchResults> {
  const results: Record<string, TypeResults> = {};
  // Separate forks (same workspace binding) so the types run in parallel.
  const entries = await Promise.all(
    req.types.map(async (type) => [type, await searchType(em.fork(), definitionOf(type), req)] as const),
  );
  for (const [type, result] of entries) results[type] = result;
  return { query: req.q, results, degraded: true };
}
