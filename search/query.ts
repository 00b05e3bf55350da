import type { MeiliSearch, MultiSearchQuery } from 'meilisearch';
import { isId } from '../platform/ids';
import { equals } from './meili';
import { definitionOf, indexUid } from './registry';
import { markedToHtml, POST, PRE } from './snippet';
import type { AnyDefinition } from './types/definition';

export interface SearchHit {
  _id: string;
  type: string;
  title: string;
  subtitle: string | null;
  snippet: string;
}
export interface TypeResults {
  hits: SearchHit[];
  total: number;
}
export interface SearchResults {
  query: string;
  results: Record<string, TypeResults>;
  degraded?: true;
}

export interface SearchRequest {
  workspaceId: string;
  q: string;
  types: readonly string[];
  limit: number;
}

/**
 * The workspace filter of every query: built here and nowhere else. The workspace comes from the
 * caller's credential; user text only ever goes into `q`, never into a filter.
 */
export function workspaceFilter(workspaceId: string, ...extra: string[]): string {
  if (!isId(workspaceId)) throw new Error('search: workspace id must be a 24-hex id');
  return [equals('workspaceId', workspaceId), ...extra].join(' AND ');
}

const CROP_WORDS = 12;

type RawHit = Record<string, unknown> & { _formatted?: Record<string, unknown> };

const marked = (value: unknown): string | undefined =>
  (Array.isArray(value) ? value : [value]).map((v) => (typeof v === 'string' ? v : '')).find((v) => v.includes(PRE));

/**
 * The first attribute (in ranking order) with a highlighted match, cropped around it. Read from
 * the highlight markers: asking Meilisearch for match positions costs ~10 ms on broad queries.
 */
function snippetOf(def: AnyDefinition, hit: RawHit): string {
  for (const field of def.fields) {
    const text = marked(hit._formatted?.[field.attribute]);
    if (text) return markedToHtml(text);
  }
  return markedToHtml(String(hit._formatted?.title ?? hit.title ?? ''));
}

function toHit(def: AnyDefinition, hit: RawHit): SearchHit {
  return {
    _id: String(hit.id),
    type: def.type,
    title: String(hit.title ?? ''),
    subtitle: (hit.subtitle as string | null) ?? null,
    snippet: snippetOf(def, hit),
  };
}

/** One multi-search request for every requested type, each filtered to the caller's workspace. */
export async function searchIndexes(client: MeiliSearch, prefix: string, req: SearchRequest): Promise<SearchResults> {
  const filter = workspaceFilter(req.workspaceId);
  const defs = req.types.map(definitionOf);
  const queries: MultiSearchQuery[] = defs.map((def) => {
    const attributes = def.fields.map((f) => f.attribute);
    return {
      indexUid: indexUid(prefix, def.type),
      q: req.q,
      filter,
      limit: req.limit,
      attributesToRetrieve: ['id', 'title', 'subtitle'],
      attributesToCrop: attributes,
      cropLength: CROP_WORDS,
      attributesToHighlight: attributes,
      highlightPreTag: PRE,
      highlightPostTag: POST,
    };
  });
  const response = await client.multiSearch({ queries });
  const results: Record<string, TypeResults> = {};
  response.results.forEach((r, i) => {
    const def = defs[i];
    results[def.type] = {
      hits: (r.hits as RawHit[]).map((h) => toHit(def, h)),
      total: r.estimatedTotalHits ?? r.hits.length,
    };
  });
  return { query: req.q, results };
}
