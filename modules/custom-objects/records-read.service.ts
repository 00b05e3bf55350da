import type { Ctx } from '../../platform/context';
import { Activity, serializeActivity } from '../timeline';
import type { Company } from '../companies';
import { validation } from '../../platform/errors';
import { dateWhere, findPage, likePattern, type PageRequest } from '../../platform/shared/listing';
import { CustomObject, CustomObjectRecord } from './custom-object.entity';
import type { ListRecordsQuery } from './custom-objects.schemas';
import type { CustomObjectRecordView, RecordExportPageView, RelatedRecordView } from './custom-objects.views';
import { getObject } from './custom-objects.service';
import { getRecordOf, load, NATIVE, RECORD_ENTITY_TYPE, serializeRecord } from './record-views';

// Record reads: one record, the list with search and sort, its feed, related records and the export pages.

const SYSTEM_SORTS = { recordNumber: 'record_number', createdAt: 'created_at', updatedAt: 'updated_at' } as const;

export async function getRecord(ctx: Ctx, slug: string, id: string) {
  const object = await getObject(ctx, slug);
  return serializeRecord(object, await getRecordOf(ctx, object, id));
}
/**
 * A necessary condition of a `q` match that the trigram index on `data::text` answers
 * (custom_object_record_data_trgm_index): a field value containing `q` appears verbatim in the
 * record's JSON text unless `q` holds a character JSON escapes (quote, backslash, control
 * characters), and a record-number match needs `q` to be that number written canonically. The
 * exact per-field conditions still decide; this only lets Postgres skip the records that cannot match.
 */
export function searchPrefilter(q: string): { sql: string; params: unknown[] } | undefined {
  if (/["\\\u0000-\u001f]/.test(q)) return undefined;
  const recordNumber = /^[1-9]\d{0,8}$/.test(q) ? Number(q) : undefined;
  if (recordNumber === undefined) return { sql: 'r.data::text ilike ?', params: [likePattern(q)] };
  return { sql: '(r.data::text ilike ? or r.record_number = ?)', params: [likePattern(q), recordNumber] };
}

/**
 * Records newest first (or by a field slug / recordNumber / createdAt / updatedAt with `dir`); `cursor` pages by `_id`.
 */
export async function listRecords(ctx: Ctx, slug: string, query: ListRecordsQuery) {
  const { object, fields } = await load(ctx, slug);
  const params: unknown[] = [ctx.actor.workspaceId, object._id];
  let where = 'r.workspace_id = ? and r.object_id = ?';
  const q = query.q ?? query.search;
  if (q) {
    const searchable = fields.filter((f) =>
      object.searchableFields.length
        ? object.searchableFields.includes(f.slug)
        : ['text', 'email', 'phone', 'url', 'select'].includes(f.type),
    );
    const conds = searchable.map(() => `r.data->>? ilike ?`);
    conds.push(`r.record_number::text = ?`);
    where += ` and (${conds.join(' or ')})`;
    for (const f of searchable) params.push(f.slug, likePattern(q));
    params.push(q);
    const prefilter = searchPrefilter(q);
    if (prefilter) {
      where += ` and ${prefilter.sql}`;
      params.push(...prefilter.params);
    }
  }
  if (query.cursor && query.sort)
    throw validation('cursor pages the default order; use page with sort', [
      { path: 'cursor', error: 'not combinable with sort' },
    ]);
  let order = 'r.id desc';
  if (query.sort) {
    const dir = query.dir === 'asc' ? 'asc' : 'desc';
    const system = SYSTEM_SORTS[query.sort as keyof typeof SYSTEM_SORTS];
    if (system) order = `r.${system} ${dir}, r.id ${dir}`;
    else if (fields.some((f) => f.slug === query.sort)) {
      order = `r.data->? ${dir} nulls last, r.id ${dir}`;
    } else {
      throw validation(`sort: unknown field ${query.sort}; use a field slug, recordNumber, createdAt or updatedAt`, [
        { path: 'sort', error: 'unknown field' },
      ]);
    }
  } else if (query.dir === 'asc') order = 'r.id asc';
  const countParams = [...params];
  let pageWhere = where;
  const pageParams = [...params];
  if (query.cursor) {
    pageWhere += query.dir === 'asc' ? ' and r.id > ?' : ' and r.id < ?';
    pageParams.push(query.cursor);
  }
  const orderParams = query.sort && !SYSTEM_SORTS[query.sort as keyof typeof SYSTEM_SORTS] ? [query.sort] : [];
  const offset = query.cursor ? 0 : (query.page - 1) * query.limit;
  const conn = ctx.em;
  // One pass for page and total (a filter over field values reads every record once, not twice);
  // the separate count runs only when the page is empty or keyset-paged.
  const rows = await conn.execute<{ id: string; n: number }[]>(
    `select r.id${query.cursor ? '' : ', count(*) over ()::int as n'} from custom_object_record r where ${pageWhere} order by ${order} limit ? offset ?`,
    [...pageParams, ...orderParams, query.limit, offset],
    'all',
  );
  const countRow =
    !query.cursor && rows.length
      ? { n: rows[0]!.n }
      : (
          await conn.execute<{ n: number }[]>(
            `select count(*)::int as n from custom_object_record r where ${where}`,
            countParams,
            'all',
          )
        )[0];
  const ids = rows.map((r) => String(r.id));
  const records = ids.length ? await ctx.em.find(CustomObjectRecord, { _id: { $in: ids } }) : [];
  const byId = new Map(records.map((r) => [r._id, r]));
  const items = ids
    .map((id) => byId.get(id))
    .filter((r): r is CustomObjectRecord => Boolean(r))
    .map((r) => serializeRecord(object, r));
  return { items, total: countRow?.n ?? 0, nextCursor: items.length === query.limit ? items.at(-1)!._id : null };
}

export async function recordFeed(ctx: Ctx, slug: string, id: string, page: PageRequest) {
  const object = await getObject(ctx, slug);
  await getRecordOf(ctx, object, id);
  const { items, total } = await findPage(ctx.em, Activity, { entityType: RECORD_ENTITY_TYPE, entityId: id }, page, {
    date: 'desc',
  });
  return { items: items.map(serializeActivity), total };
}

/** Records linked with this one through reference fields, both ways (its references and records pointing at it). */
export async function relatedRecords(ctx: Ctx, slug: string, id: string) {
  const { object, fields } = await load(ctx, slug);
  const record = await getRecordOf(ctx, object, id);
  const related: RelatedRecordView[] = [];
  for (const field of fields.filter((f) => f.type === 'record_reference')) {
    const target = record.data[field.slug];
    if (typeof target !== 'string') continue;
    if (field.referenceType === 'native' && field.nativeEntity) {
      const entity = await ctx.em.findOne(NATIVE[field.nativeEntity] as typeof Company, { _id: target });
      if (entity)
        related.push({
          direction: 'outgoing',
          field: field.slug,
          entityType: field.nativeEntity,
          entityId: target,
          title: nativeTitle(field.nativeEntity, entity as unknown as Record<string, unknown>),
        });
    } else if (field.referenceObject) {
      const targetObject = await ctx.em.findOne(CustomObject, { slug: field.referenceObject });
      const other = targetObject
        ? await ctx.em.findOne(CustomObjectRecord, { _id: target, objectId: targetObject._id })
        : null;
      if (targetObject && other)
        related.push({
          direction: 'outgoing',
          field: field.slug,
          entityType: 'custom_object_record',
          object: targetObject.slug,
          entityId: other._id,
          title: recordTitle(targetObject, other),
        });
    }
  }
  const incoming = await ctx.em.execute<{ id: string; object_id: string; slug: string }[]>(
    `select r.id, r.object_id, f.slug from custom_object_field f
       join custom_object_record r on r.workspace_id = f.workspace_id and r.object_id = f.object_id and r.data->>f.slug = ?
      where f.workspace_id = ? and f.type = 'record_reference' and f.reference_type = 'custom' and f.reference_object = ?
      order by r.id desc limit 500`,
    [record._id, ctx.actor.workspaceId, object.slug],
    'all',
  );
  if (incoming.length) {
    const objects = await ctx.em.find(CustomObject, { _id: { $in: [...new Set(incoming.map((r) => r.object_id))] } });
    const records = await ctx.em.find(CustomObjectRecord, { _id: { $in: incoming.map((r) => r.id) } });
    for (const row of incoming) {
      const o = objects.find((x) => x._id === row.object_id);
      const r = records.find((x) => x._id === row.id);
      if (o && r)
        related.push({
          direction: 'incoming',
          field: row.slug,
          entityType: 'custom_object_record',
          object: o.slug,
          entityId: r._id,
          title: recordTitle(o, r),
        });
    }
  }
  return related;
}

const recordTitle = (o: CustomObject, r: CustomObjectRecord): string => {
  const value = o.titleField ? r.data[o.titleField] : undefined;
  return typeof value === 'string' || typeof value === 'number' ? String(value) : `${o.singular} #${r.recordNumber}`;
};

function nativeTitle(kind: string, e: Record<string, unknown>): string {
  if (kind === 'company') return String(e.name ?? '');
  if (kind === 'person') return [e.firstName, e.lastName].filter(Boolean).join(' ');
  return String(e.title ?? '');
}
export interface RecordExportRequest {
  limit: number;
  page?: number;
  cursor?: string;
  from?: Date;
  to?: Date;
}

/**
 * One page of an object's records in creation order (`_id` ascending), flattened like reads;
 * `from`/`to` bound createdAt (a bare `to` date covers the whole day). Offset (`page`) or keyset
 * (`cursor`: the last `_id` of the previous page) paging; `total` counts every matching record.
 */
export async function exportRecordsOf(ctx: Ctx, slug: string, req: RecordExportRequest): Promise<RecordExportPageView> {
  const object = await getObject(ctx, slug);
  const created = (dateWhere({ dateFrom: req.from, dateTo: req.to }).createdAt ?? {}) as { $gte?: Date; $lte?: Date };
  const params: unknown[] = [ctx.actor.workspaceId, object._id];
  let where = 'workspace_id = ? and object_id = ?';
  if (created.$gte) {
    where += ' and created_at >= ?';
    params.push(created.$gte);
  }
  if (created.$lte) {
    where += ' and created_at <= ?';
    params.push(created.$lte);
  }
  const pageWhere = req.cursor ? `${where} and id > ?` : where;
  const pageParams = req.cursor ? [...params, req.cursor] : params;
  const offset = req.cursor ? 0 : ((req.page ?? 1) - 1) * req.limit;
  const [rows, [count]] = await Promise.all([
    ctx.em.execute<{ id: string }[]>(
      `select id from custom_object_record where ${pageWhere} order by id asc limit ? offset ?`,
      [...pageParams, req.limit + 1, offset],
      'all',
    ),
    ctx.em.execute<{ n: number }[]>(
      `select count(*)::int as n from custom_object_record where ${where}`,
      params,
      'all',
    ),
  ]);
  const hasMore = rows.length > req.limit;
  if (hasMore) rows.pop();
  const data: CustomObjectRecordView[] = [];
  for (let i = 0; i < rows.length; i += 1000) {
    const ids = rows.slice(i, i + 1000).map((r) => String(r.id));
    const records = await ctx.em.find(CustomObjectRecord, { _id: { $in: ids } }, { orderBy: { _id: 'asc' } });
    data.push(...records.map((r) => serializeRecord(object, r)));
  }
  return {
    data,
    total: count?.n ?? 0,
    limit: req.limit,
    hasMore,
    nextCursor: hasMore ? String(data[data.length - 1]!._id) : null,
    ...(req.cursor ? {} : { page: req.page ?? 1 }),
  };
}
