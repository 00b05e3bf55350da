import type { Ctx } from '../context';
import { Activity } from '../timeline/activity.entity';
import { serializeActivity, recordSystemActivity } from '../timeline/timeline.service';
import { Company } from '../companies/company.entity';
import type { ImageResolver } from '../companies/companies.service';
import { Deal } from '../deals/deal.entity';
import { conflict, DomainError, notFound, validation } from '../errors';
import { Lead } from '../leads/lead.entity';
import { emit } from '../outbox/emit';
import { Person } from '../people/person.entity';
import { dateWhere, findPage, likePattern, type PageRequest } from '../shared/listing';
import { createRecord } from '../shared/records';
import { CustomObject, CustomObjectField, CustomObjectRecord } from './custom-object.entity';
import type { ListRecordsQuery } from './custom-objects.schemas';
import type {
  BulkUpdateResultView,
  CustomObjectRecordView,
  RecordExportPageView,
  RelatedRecordView,
} from './custom-objects.views';
import { fieldsOf, getObject } from './custom-objects.service';
import { normalizeValue, READ_ONLY_TYPES, uniqueKey } from './field-types';
import { applyFormulas } from './formula-values';
import { initialRollups, refreshRollupsFor } from './rollup';

export const RECORD_ENTITY_TYPE = 'custom_object_record';
const SYSTEM_SORTS = { recordNumber: 'record_number', createdAt: 'created_at', updatedAt: 'updated_at' } as const;

interface Loaded {
  object: CustomObject;
  fields: CustomObjectField[];
}

async function load(ctx: Ctx, slug: string): Promise<Loaded> {
  const object = await getObject(ctx, slug);
  return { object, fields: await fieldsOf(ctx, object._id) };
}

/** Reads flatten field slugs to the top level (spec); `title` is the title field's value. */
export function serializeRecord(object: CustomObject, r: CustomObjectRecord): CustomObjectRecordView {
  return {
    _id: r._id,
    object: object.slug,
    recordNumber: r.recordNumber,
    title: object.titleField ? (r.data[object.titleField] ?? null) : null,
    ...r.data,
    avatar: r.avatar ?? null,
    workspace: r.workspaceId,
    createdBy: r.createdBy,
    updatedBy: r.updatedBy,
    createdAt: r.createdAt.toISOString(),
    updatedAt: r.updatedAt.toISOString(),
  };
}

/** Unwraps `{ data }` / `{ customFields }` and separates the top-level `avatar`. */
function splitBody(body: Record<string, unknown>): { values: Record<string, unknown>; avatar?: string } {
  const { avatar, ...rest } = body;
  let values = rest;
  for (const wrapper of ['data', 'customFields'] as const) {
    const inner = rest[wrapper];
    if (inner !== undefined) {
      if (typeof inner !== 'object' || inner === null || Array.isArray(inner))
        throw validation(`${wrapper} must be an object of field slug → value`, [
          { path: wrapper, error: 'must be an object' },
        ]);
      const { [wrapper]: _, ...others } = rest;
      values = { ...others, ...(inner as Record<string, unknown>) };
    }
  }
  if (avatar !== undefined && typeof avatar !== 'string')
    throw validation('avatar must be an https image URL, a data:image URL or ""', [
      { path: 'avatar', error: 'must be a string' },
    ]);
  return { values, avatar: avatar as string | undefined };
}

/** Validates and normalises values against the object's fields (unknown and read-only slugs are 400). */
function checkValues(
  fields: CustomObjectField[],
  values: Record<string, unknown>,
  mode: 'create' | 'update',
  current: Record<string, unknown> = {},
): Record<string, unknown> {
  const bySlug = new Map(fields.map((f) => [f.slug, f]));
  const details: { path: string; error: string }[] = [];
  const out: Record<string, unknown> = {};
  for (const [slug, raw] of Object.entries(values)) {
    const field = bySlug.get(slug);
    if (!field) {
      details.push({ path: slug, error: 'unknown field' });
      continue;
    }
    if (READ_ONLY_TYPES.includes(field.type)) {
      details.push({ path: slug, error: 'is read-only' });
      continue;
    }
    const result = normalizeValue(field, raw);
    if ('error' in result) details.push({ path: slug, error: result.error });
    else out[slug] = result.value;
  }
  const merged = { ...current, ...out };
  for (const field of fields) {
    if (!field.isRequired) continue;
    const touched = mode === 'create' || field.slug in out;
    if (touched && (merged[field.slug] === null || merged[field.slug] === undefined))
      details.push({ path: field.slug, error: 'is required' });
  }
  if (details.length) throw validation(details.map((d) => `${d.path}: ${d.error}`).join('; '), details);
  return out;
}

const NATIVE = { company: Company, person: Person, deal: Deal, lead: Lead } as const;

async function checkReferences(ctx: Ctx, fields: CustomObjectField[], values: Record<string, unknown>): Promise<void> {
  for (const field of fields) {
    const id = values[field.slug];
    if (field.type !== 'record_reference' || typeof id !== 'string') continue;
    let found = 0;
    if (field.referenceType === 'native' && field.nativeEntity) {
      found = await ctx.em.count(NATIVE[field.nativeEntity] as typeof Company, { _id: id });
    } else if (field.referenceObject) {
      const target = await ctx.em.findOne(CustomObject, { slug: field.referenceObject });
      found = target ? await ctx.em.count(CustomObjectRecord, { _id: id, objectId: target._id }) : 0;
    }
    if (!found) {
      const what = field.referenceType === 'native' ? field.nativeEntity : `${field.referenceObject} record`;
      throw validation(`${field.slug}: no ${what} with id ${id}`, [
        { path: field.slug, error: `no ${what} with id ${id}` },
      ]);
    }
  }
}

/** Keeps the unique-value index of a record in step with its values; a taken value is 409. */
async function syncUniques(
  ctx: Ctx,
  object: CustomObject,
  fields: CustomObjectField[],
  recordId: string,
  changed: Record<string, unknown>,
): Promise<void> {
  const conn = ctx.em;
  for (const field of fields) {
    if (!field.isUnique || !(field.slug in changed)) continue;
    await conn.execute(
      'delete from custom_object_unique_value where workspace_id = ? and object_id = ? and field_slug = ? and record_id = ?',
      [ctx.actor.workspaceId, object._id, field.slug, recordId],
      'run',
    );
    const value = changed[field.slug];
    if (value === null || value === undefined) continue;
    const inserted: unknown[] = await conn.execute(
      `insert into custom_object_unique_value (workspace_id, object_id, field_slug, value_key, record_id) values (?, ?, ?, ?, ?)
       on conflict do nothing returning record_id`,
      [ctx.actor.workspaceId, object._id, field.slug, uniqueKey(field.type, value), recordId],
      'all',
    );
    if (!inserted.length)
      throw conflict(`${field.slug}: the value ${JSON.stringify(value)} is already used by another ${object.singular}`);
  }
}

function changesOf(before: Record<string, unknown>, after: Record<string, unknown>) {
  const changes: Record<string, { from: unknown; to: unknown }> = {};
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (JSON.stringify(before[key] ?? null) !== JSON.stringify(after[key] ?? null))
      changes[key] = { from: before[key] ?? null, to: after[key] ?? null };
  }
  return changes;
}

const link = (id: string) => ({ entityType: RECORD_ENTITY_TYPE, entityId: id });

export async function createRecordOf(ctx: Ctx, slug: string, body: Record<string, unknown>, images: ImageResolver) {
  const { object, fields } = await load(ctx, slug);
  const { values, avatar } = splitBody(body);
  const checked = Object.fromEntries(
    Object.entries(checkValues(fields, values, 'create')).filter(([, v]) => v !== null),
  );
  await checkReferences(ctx, fields, checked);
  const data = { ...applyFormulas(fields, checked), ...initialRollups(fields) };
  const avatarUrl = avatar ? await images(ctx, avatar) : null;
  return ctx.em.transactional(async (em) => {
    const tx = { ...ctx, em };
    // Record numbers come from one atomic counter per object: concurrent creates never share one.
    const [counter] = await em.execute<{ last_record_number: number }[]>(
      'update custom_object set last_record_number = last_record_number + 1 where id = ? and workspace_id = ? returning last_record_number',
      [object._id, ctx.actor.workspaceId],
      'all',
    );
    if (!counter) throw notFound('custom object');
    const record = createRecord(tx, CustomObjectRecord, {
      objectId: object._id,
      recordNumber: counter.last_record_number,
      data,
      avatar: avatarUrl,
      createdBy: ctx.actor.userId,
      updatedBy: ctx.actor.userId,
    });
    em.persist(record);
    await em.flush();
    await syncUniques(tx, object, fields, record._id, data);
    await refreshRollupsFor(tx, object, [data]);
    recordSystemActivity(tx, link(record._id), 'record_created', `${object.singular} #${record.recordNumber} created`);
    const view = serializeRecord(object, record);
    emit(tx, {
      type: 'custom_object_created',
      entityType: RECORD_ENTITY_TYPE,
      entityId: record._id,
      payload: { customObjectId: object._id, customObjectSlug: object.slug, record: view },
    });
    await em.flush();
    return view;
  });
}

async function getRecordOf(ctx: Ctx, object: CustomObject, id: string): Promise<CustomObjectRecord> {
  const record = await ctx.em.findOne(CustomObjectRecord, { _id: id, objectId: object._id });
  if (!record) throw notFound(`${object.singular} record`);
  return record;
}

export async function getRecord(ctx: Ctx, slug: string, id: string) {
  const object = await getObject(ctx, slug);
  return serializeRecord(object, await getRecordOf(ctx, object, id));
}

/** PATCH and PUT: partial merge of the given slugs (null clears); `avatar` at the top level. */
export async function updateRecordOf(
  ctx: Ctx,
  slug: string,
  id: string,
  body: Record<string, unknown>,
  images: ImageResolver,
) {
  const { object, fields } = await load(ctx, slug);
  const record = await getRecordOf(ctx, object, id);
  const { values, avatar } = splitBody(body);
  const changed = checkValues(fields, values, 'update', record.data);
  await checkReferences(ctx, fields, changed);
  const avatarUrl = avatar === undefined ? undefined : avatar === '' ? null : await images(ctx, avatar);
  return ctx.em.transactional(async (em) => {
    const tx = { ...ctx, em };
    const current = await em.findOneOrFail(CustomObjectRecord, { _id: record._id });
    const before = { ...current.data, ...(avatarUrl !== undefined ? { avatar: current.avatar } : {}) };
    const merged = { ...current.data, ...changed };
    for (const [k, v] of Object.entries(merged)) if (v === null) delete merged[k];
    const next = applyFormulas(fields, merged);
    const after = { ...next, ...(avatarUrl !== undefined ? { avatar: avatarUrl } : {}) };
    const changes = changesOf(before, after);
    if (!Object.keys(changes).length) return serializeRecord(object, current);
    await syncUniques(tx, object, fields, current._id, changed);
    current.data = next;
    if (avatarUrl !== undefined) current.avatar = avatarUrl;
    current.updatedBy = ctx.actor.userId;
    current.updatedAt = new Date();
    // Rollups read the referencing records from the database: write this one first.
    await em.flush();
    await refreshRollupsFor(tx, object, [before, next]);
    recordSystemActivity(
      tx,
      link(current._id),
      'record_updated',
      `${object.singular} #${current.recordNumber} updated`,
      { changes },
    );
    const view = serializeRecord(object, current);
    emit(tx, {
      type: 'custom_object_updated',
      entityType: RECORD_ENTITY_TYPE,
      entityId: current._id,
      payload: { customObjectId: object._id, customObjectSlug: object.slug, record: view, changes },
    });
    await em.flush();
    return view;
  });
}

export async function deleteRecordOf(ctx: Ctx, slug: string, id: string): Promise<void> {
  const object = await getObject(ctx, slug);
  const record = await getRecordOf(ctx, object, id);
  await ctx.em.transactional(async (em) => {
    await em.execute(
      'delete from custom_object_unique_value where workspace_id = ? and record_id = ?',
      [ctx.actor.workspaceId, record._id],
      'run',
    );
    em.remove(em.getReference(CustomObjectRecord, record._id));
    await em.flush();
    await refreshRollupsFor({ ...ctx, em }, object, [record.data]);
    emit(
      { ...ctx, em },
      {
        type: 'custom_object_deleted',
        entityType: RECORD_ENTITY_TYPE,
        entityId: record._id,
        payload: { customObjectId: object._id, customObjectSlug: object.slug, record: serializeRecord(object, record) },
      },
    );
    await em.flush();
  });
}

/** Bulk patch: the patch is validated once, then applied to each listed record of the object in one transaction. */
export async function bulkUpdate(
  ctx: Ctx,
  slug: string,
  ids: string[],
  patch: Record<string, unknown>,
  images: ImageResolver,
): Promise<BulkUpdateResultView> {
  const { object, fields } = await load(ctx, slug);
  const { values } = splitBody(patch);
  checkValues(fields, values, 'update');
  const unique = [...new Set(ids)];
  const found = await ctx.em.find(
    CustomObjectRecord,
    { _id: { $in: unique }, objectId: object._id },
    { fields: ['_id'] },
  );
  const known = new Set(found.map((r) => r._id));
  // All or nothing: a unique-value conflict on one record leaves every record unchanged.
  const updated = await ctx.em.transactional(async (em) => {
    let n = 0;
    for (const id of unique.filter((x) => known.has(x))) {
      try {
        await updateRecordOf({ ...ctx, em }, slug, id, values, images);
        n += 1;
      } catch (error) {
        if (error instanceof DomainError && error.code === 'conflict') throw conflict(`record ${id}: ${error.message}`);
        throw error;
      }
    }
    return n;
  });
  return { matched: known.size, updated, notFound: unique.filter((x) => !known.has(x)) };
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

/**
 * Every check of a create without writing (import `validate` mode): values, required fields,
 * references, and unique values already taken by saved records.
 */
export async function previewRecordOf(ctx: Ctx, slug: string, body: Record<string, unknown>): Promise<void> {
  const { object, fields } = await load(ctx, slug);
  const { values } = splitBody(body);
  const data = checkValues(fields, values, 'create');
  await checkReferences(ctx, fields, data);
  for (const field of fields) {
    const value = data[field.slug];
    if (!field.isUnique || value === null || value === undefined) continue;
    const taken = await ctx.em.execute<unknown[]>(
      'select 1 from custom_object_unique_value where workspace_id = ? and object_id = ? and field_slug = ? and value_key = ? limit 1',
      [ctx.actor.workspaceId, object._id, field.slug, uniqueKey(field.type, value)],
      'all',
    );
    if (taken.length)
      throw conflict(`${field.slug}: the value ${JSON.stringify(value)} is already used by another ${object.singular}`);
  }
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
