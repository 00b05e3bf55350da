import type { Ctx } from '../../platform/context';
import { recordSystemActivity } from '../timeline';
import { Company, type ImageResolver } from '../companies';
import { conflict, DomainError, notFound, validation } from '../../platform/errors';
import { emit } from '../../platform/outbox/emit';
import { createRecord } from '../../platform/shared/records';
import { CustomObject, CustomObjectField, CustomObjectRecord } from './custom-object.entity';
import type { BulkUpdateResultView } from './custom-objects.views';
import { getObject } from './custom-objects.service';
import { normalizeValue, READ_ONLY_TYPES, uniqueKey } from './field-types';
import { applyFormulas } from './formula-values';
import { initialRollups, refreshRollupsFor } from './rollup';
import { getRecordOf, load, NATIVE, RECORD_ENTITY_TYPE, serializeRecord } from './record-views';
export { RECORD_ENTITY_TYPE, serializeRecord } from './record-views';
export {
  exportRecordsOf,
  getRecord,
  listRecords,
  recordFeed,
  relatedRecords,
  searchPrefilter,
  type RecordExportRequest,
} from './records-read.service';

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
