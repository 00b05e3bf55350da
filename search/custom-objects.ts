import {
  MeiliSearchError,
  MeiliSearchRequestError,
  MeiliSearchRequestTimeOutError,
  type MeiliSearch,
} from 'meilisearch';
import { CustomObject, CustomObjectField, CustomObjectRecord } from '../modules/custom-objects';
import type { Ctx } from '../platform/context';
import type { Logger } from '../platform/logger';
import { likePattern } from '../platform/shared/listing';
import type { IndexFreshness } from './freshness';
import { equals } from './meili';
import { workspaceFilter } from './query';
import { indexUid } from './registry';
import { MAX_TOTAL_HITS } from './settings';
import { markedToHtml, POST, PRE, snippetAround } from './snippet';
import { customObjectRecordSearch, indexedSlugs, recordDisplayTitle } from './types/custom-object-record';

export interface CustomObjectHit {
  _id: string;
  object: string;
  objectLabel: string;
  recordNumber: number;
  title: string;
  snippet: string;
}
export interface CustomObjectSearchResults {
  query: string;
  hits: CustomObjectHit[];
  total: number;
  degraded?: true;
}

export interface CustomObjectSearchOptions {
  client: MeiliSearch;
  prefix: string;
  log: Logger;
  freshness?: IndexFreshness;
  breakerMs?: number;
}

const TYPE = customObjectRecordSearch.type;
const CROP_WORDS = 12;
const unreachable = (err: unknown): boolean =>
  err instanceof MeiliSearchRequestError || err instanceof MeiliSearchRequestTimeOutError;

type RawHit = Record<string, unknown> & { _formatted?: Record<string, unknown> };

function snippetOf(hit: RawHit): string {
  for (const attribute of ['title', 'values', 'recordNumber']) {
    const value = hit._formatted?.[attribute];
    const marked = (Array.isArray(value) ? value : [value]).find(
      (v): v is string => typeof v === 'string' && v.includes(PRE),
    );
    if (marked) return markedToHtml(marked);
  }
  return markedToHtml(String(hit.title ?? ''));
}

async function fromIndex(
  opts: CustomObjectSearchOptions,
  workspaceId: string,
  objects: Map<string, CustomObject>,
  q: string,
  limit: number,
): Promise<CustomObjectSearchResults> {
  const byObject = `(${[...objects.keys()].map((id) => equals('objectId', id)).join(' OR ')})`;
  const res = await opts.client.index(indexUid(opts.prefix, TYPE)).search(q, {
    filter: workspaceFilter(workspaceId, byObject),
    limit,
    attributesToRetrieve: ['id', 'title', 'objectId', 'recordNumber'],
    attributesToCrop: ['title', 'values', 'recordNumber'],
    cropLength: CROP_WORDS,
    attributesToHighlight: ['title', 'values', 'recordNumber'],
    highlightPreTag: PRE,
    highlightPostTag: POST,
  });
  const hits = (res.hits as RawHit[]).flatMap((h) => {
    const object = objects.get(String(h.objectId));
    if (!object) return [];
    return [
      {
        _id: String(h.id),
        object: object.slug,
        objectLabel: object.singular,
        recordNumber: Number(h.recordNumber),
        title: String(h.title ?? ''),
        snippet: snippetOf(h),
      },
    ];
  });
  return { query: q, hits, total: res.estimatedTotalHits ?? hits.length };
}

/**
 * Degraded mode: case-insensitive substring match over the same (non-PII) fields and the record number, newest first.
 */
async function fromPostgres(
  ctx: Ctx,
  objects: Map<string, CustomObject>,
  q: string,
  limit: number,
): Promise<CustomObjectSearchResults> {
  const fields = await ctx.em.find(CustomObjectField, { objectId: { $in: [...objects.keys()] } });
  const slugs = new Map(
    [...objects.values()].map((o) => [
      o._id,
      indexedSlugs(
        o,
        fields.filter((f) => f.objectId === o._id),
      ),
    ]),
  );
  const like = likePattern(q);
  const params: unknown[] = [ctx.actor.workspaceId];
  const perObject: string[] = [];
  for (const object of objects.values()) {
    const object_ = [...(slugs.get(object._id) ?? []).map(() => 'r.data->>? ilike ?'), 'r.record_number::text = ?'];
    if (object.titleField && !object.piiFields.includes(object.titleField)) object_.push('r.data->>? ilike ?');
    perObject.push(`(r.object_id = ? and (${object_.join(' or ')}))`);
    params.push(object._id);
    for (const slug of slugs.get(object._id) ?? []) params.push(slug, like);
    params.push(q);
    if (object.titleField && !object.piiFields.includes(object.titleField)) params.push(object.titleField, like);
  }
  const where = `r.workspace_id = ? and (${perObject.join(' or ')})`;
  const [rows, [count]] = await Promise.all([
    ctx.em.execute<{ id: string }[]>(
      `select r.id from custom_object_record r where ${where} order by r.updated_at desc, r.id desc limit ?`,
      [...params, limit],
      'all',
    ),
    ctx.em.execute<{ n: number }[]>(
      `select count(*)::int as n from custom_object_record r where ${where}`,
      params,
      'all',
    ),
  ]);
  const records = rows.length
    ? await ctx.em.find(CustomObjectRecord, { _id: { $in: rows.map((r) => String(r.id)) } })
    : [];
  const byId = new Map(records.map((r) => [r._id, r]));
  const hits = rows.flatMap(({ id }) => {
    const r = byId.get(String(id));
    const object = r && objects.get(r.objectId);
    if (!r || !object) return [];
    const title = recordDisplayTitle(object, r);
    const texts = [
      title,
      ...(slugs.get(object._id) ?? [])
        .flatMap((s) => (Array.isArray(r.data[s]) ? (r.data[s] as unknown[]) : [r.data[s]]))
        .filter((v): v is string => typeof v === 'string'),
    ];
    const snippet =
      texts.map((t) => snippetAround(t, q)).find((s): s is string => s !== null) ??
      markedToHtml(String(r.recordNumber) === q ? `${PRE}${r.recordNumber}${POST}` : title);
    return [
      { _id: r._id, object: object.slug, objectLabel: object.singular, recordNumber: r.recordNumber, title, snippet },
    ];
  });
  return { query: q, hits, total: Math.min(count?.n ?? 0, MAX_TOTAL_HITS), degraded: true };
}

export interface CustomObjectSearch {
  search(ctx: Ctx, input: { q: string; limit: number }): Promise<CustomObjectSearchResults>;
}

/** Meilisearch first; Postgres (`degraded: true`) when it is unreachable or behind, like `GET /search`. */
export function createCustomObjectSearch(opts: CustomObjectSearchOptions): CustomObjectSearch {
  const breakerMs = opts.breakerMs ?? 5000;
  let skipUntil = 0;
  return {
    async search(ctx, { q, limit }) {
      const objects = new Map((await ctx.em.find(CustomObject, { searchable: true })).map((o) => [o._id, o]));
      if (!objects.size) return { query: q, hits: [], total: 0 };
      const workspaceId = ctx.actor.workspaceId;
      if (Date.now() >= skipUntil) {
        try {
          const [results, behind] = await Promise.all([
            fromIndex(opts, workspaceId, objects, q, limit),
            opts.freshness ? opts.freshness.behind(ctx.em, workspaceId) : null,
          ]);
          if (!behind) return results;
          opts.log.info({ workspaceId, reason: behind }, 'custom object search: index behind, answering from Postgres');
        } catch (err) {
          if (!(err instanceof MeiliSearchError)) throw err;
          if (unreachable(err)) skipUntil = Date.now() + breakerMs;
          opts.log.warn(
            { err: err.message, workspaceId },
            'custom object search: Meilisearch unavailable, answering from Postgres',
          );
        }
      }
      return fromPostgres(ctx, objects, q, limit);
    },
  };
}
