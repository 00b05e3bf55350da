import type { Ctx } from '../../platform/context';
import { conflict, notFound, validation } from '../../platform/errors';
import { emit } from '../../platform/outbox/emit';
import { createdEvent, updatedEvent, updateWithEvent } from '../../platform/shared/changes';
import { findPage, type PageRequest } from '../../platform/shared/listing';
import { plainOf } from '../../platform/shared/views';
import { createRecord } from '../../platform/shared/records';
import { CustomObject, CustomObjectField, CustomObjectRecord } from './custom-object.entity';
import type { CreateObjectInput, UpdateObjectInput } from './custom-objects.schemas';
import type { CustomObjectDetailView, CustomObjectFieldView, CustomObjectView } from './custom-objects.views';

const OBJECT_FIELDS = [
  '_id',
  'slug',
  'singular',
  'plural',
  'description',
  'icon',
  'color',
  'useAccentNavIcon',
  'searchable',
  'showInSidebar',
  'titleField',
  'favoriteFieldKeys',
  'searchableFields',
  'views',
  'piiFields',
  'createdAt',
  'updatedAt',
] as const;
const FIELD_FIELDS = [
  '_id',
  'slug',
  'label',
  'type',
  'isRequired',
  'isUnique',
  'options',
  'referenceType',
  'referenceObject',
  'nativeEntity',
  'order',
  'expression',
  'rollup',
  'createdAt',
  'updatedAt',
] as const;

export const serializeField = (f: CustomObjectField): CustomObjectFieldView => plainOf(f, FIELD_FIELDS);
export const serializeObject = (o: CustomObject): CustomObjectView => ({
  ...plainOf(o, OBJECT_FIELDS),
  workspace: o.workspaceId,
});
/** A definition with its field schemas (single reads and writes). */
export const serializeObjectWithFields = (o: CustomObject, fields: CustomObjectField[]): CustomObjectDetailView => ({
  ...serializeObject(o),
  fields: fields.map(serializeField),
});

export async function getObject(ctx: Ctx, slug: string): Promise<CustomObject> {
  const object = await ctx.em.findOne(CustomObject, { slug });
  if (!object) throw notFound('custom object');
  return object;
}

/** Rollup fields (of any object) that aggregate records of the object `slug`. */
export const rollupsOver = async (ctx: Ctx, slug: string) =>
  (await ctx.em.find(CustomObjectField, { type: 'rollup' })).filter((f) => f.rollup?.object === slug);

export const fieldsOf = (ctx: Ctx, objectId: string) =>
  ctx.em.find(CustomObjectField, { objectId }, { orderBy: { order: 'asc', createdAt: 'asc' } });

export async function listObjects(ctx: Ctx, query: PageRequest) {
  const { items, total } = await findPage(ctx.em, CustomObject, {}, query, { createdAt: 'asc' });
  return { items: items.map((o) => serializeObject(o)), total };
}

export async function describeObject(ctx: Ctx, slug: string) {
  const object = await getObject(ctx, slug);
  return serializeObjectWithFields(object, await fieldsOf(ctx, object._id));
}

export async function createObject(ctx: Ctx, input: CreateObjectInput) {
  if (await ctx.em.count(CustomObject, { slug: input.slug }))
    throw conflict(`a custom object with slug ${input.slug} already exists`);
  const object = createRecord(ctx, CustomObject, {
    slug: input.slug,
    singular: input.singular,
    plural: input.plural,
    description: input.description ?? null,
    icon: input.icon ?? null,
    color: input.color ?? null,
    // Spec: sending a colour without useAccentNavIcon turns accent icons on.
    useAccentNavIcon: input.useAccentNavIcon ?? Boolean(input.color),
    searchable: input.searchable ?? true,
    showInSidebar: input.showInSidebar ?? true,
    titleField: null,
    favoriteFieldKeys: [],
    searchableFields: [],
    views: null,
    piiFields: [],
    lastRecordNumber: 0,
    createdBy: ctx.actor.userId,
  });
  emit(ctx, {
    ...createdEvent('custom_object_definition', { customObject: serializeObject(object) }),
    entityId: object._id,
  });
  try {
    await ctx.em.flush();
  } catch (error) {
    if ((error as { code?: string }).code === '23505')
      throw conflict(`a custom object with slug ${input.slug} already exists`);
    throw error;
  }
  return serializeObjectWithFields(object, []);
}

function assertSlugs(field: string, slugs: readonly string[] | undefined, known: Set<string>): void {
  const unknown = (slugs ?? []).filter((s) => !known.has(s));
  if (unknown.length)
    throw validation(`${field}: unknown field slug(s) ${unknown.join(', ')}`, [
      { path: field, error: `unknown field slug(s) ${unknown.join(', ')}` },
    ]);
}

export async function updateObject(ctx: Ctx, slug: string, input: UpdateObjectInput) {
  const object = await getObject(ctx, slug);
  if (input.slug !== undefined && input.slug !== object.slug)
    throw validation('slug cannot change: it addresses the object in URLs', [{ path: 'slug', error: 'cannot change' }]);
  const fields = await fieldsOf(ctx, object._id);
  const known = new Set(fields.map((f) => f.slug));
  if (input.titleField) assertSlugs('titleField', [input.titleField], known);
  assertSlugs('favoriteFieldKeys', input.favoriteFieldKeys, known);
  assertSlugs('searchableFields', input.searchableFields, known);
  assertSlugs('piiFields', input.piiFields, known);
  const patch: Record<string, unknown> = { ...input };
  delete patch.slug;
  if (input.color !== undefined && input.useAccentNavIcon === undefined && input.color) patch.useAccentNavIcon = true;
  if (input.favoriteFieldKeys) patch.favoriteFieldKeys = [...new Set(input.favoriteFieldKeys)];
  await updateWithEvent(
    ctx,
    object,
    patch as Partial<CustomObject>,
    updatedEvent('custom_object_definition', (changes) => ({ customObject: serializeObject(object), changes })),
  );
  return serializeObjectWithFields(object, fields);
}

/** Deletes the definition, its fields and every record (one transaction). */
export async function deleteObject(ctx: Ctx, slug: string): Promise<{ deletedRecords: number }> {
  const object = await getObject(ctx, slug);
  const rollups = (await rollupsOver(ctx, object.slug)).filter((f) => f.objectId !== object._id);
  if (rollups.length)
    throw conflict(
      `${object.slug} is aggregated by the rollup field(s) ${rollups.map((f) => f.slug).join(', ')} of other objects; delete them first`,
    );
  return ctx.em.transactional(async (em) => {
    const ws = ctx.actor.workspaceId;
    await em.execute(
      'delete from custom_object_unique_value where workspace_id = ? and object_id = ?',
      [ws, object._id],
      'run',
    );
    const deleted = await em.execute(
      'delete from custom_object_record where workspace_id = ? and object_id = ?',
      [ws, object._id],
      'run',
    );
    await em.execute(
      'delete from custom_object_field where workspace_id = ? and object_id = ?',
      [ws, object._id],
      'run',
    );
    em.remove(em.getReference(CustomObject, object._id));
    emit(
      { ...ctx, em },
      {
        type: 'custom_object_definition_deleted',
        entityType: 'custom_object_definition',
        entityId: object._id,
        payload: { customObject: serializeObject(object) },
      },
    );
    await em.flush();
    return { deletedRecords: Number((deleted as { affectedRows?: number }).affectedRows ?? 0) };
  });
}

export async function countRecords(ctx: Ctx, objectId: string): Promise<number> {
  return ctx.em.count(CustomObjectRecord, { objectId });
}
