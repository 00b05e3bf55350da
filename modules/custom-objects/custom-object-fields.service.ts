import type { Ctx } from '../../platform/context';
import { conflict, notFound, validation } from '../../platform/errors';
import { emit } from '../../platform/outbox/emit';
import { applyPatch } from '../../platform/shared/changes';
import { createRecord } from '../../platform/shared/records';
import { inTransaction } from '../../platform/shared/tx';
import { CustomObject, CustomObjectField } from './custom-object.entity';
import type { CreateFieldInput, UpdateFieldInput } from './custom-objects.schemas';
import { MAX_FIELDS_PER_OBJECT } from './custom-objects.schemas';
import { UNIQUE_TYPES, type FieldType } from './field-types';
import { checkExpression, recomputeFormula } from './formula-values';
import { formulaReferences, parseFormula } from './formula';
import { checkRollup, recomputeRollup } from './rollup';
import { fieldsOf, getObject, rollupsOver, serializeField, serializeObject } from './custom-objects.service';

// A custom object's fields: add (with its computed values), change, remove.

async function assertReferenceTarget(
  ctx: Ctx,
  input: { type: FieldType; referenceType?: string; referenceObject?: string | null; nativeEntity?: string | null },
) {
  if (input.type !== 'record_reference') return;
  if (input.referenceType === 'native') {
    if (!input.nativeEntity)
      throw validation('nativeEntity is required for a native record_reference (company, person, deal or lead)', [
        { path: 'nativeEntity', error: 'is required' },
      ]);
    return;
  }
  if (input.referenceType !== 'custom')
    throw validation('referenceType is required for record_reference fields (custom or native)', [
      { path: 'referenceType', error: 'is required' },
    ]);
  if (!input.referenceObject)
    throw validation('referenceObject (a custom object slug) is required for a custom record_reference', [
      { path: 'referenceObject', error: 'is required' },
    ]);
  if (!(await ctx.em.count(CustomObject, { slug: input.referenceObject }))) {
    throw validation(`referenceObject: no custom object with slug ${input.referenceObject}`, [
      { path: 'referenceObject', error: 'unknown custom object' },
    ]);
  }
}

export async function createField(ctx: Ctx, slug: string, input: CreateFieldInput) {
  const object = await getObject(ctx, slug);
  if (input.rollup !== undefined && input.type !== 'rollup')
    throw validation('rollup applies to rollup fields only', [{ path: 'rollup', error: 'not applicable' }]);
  if (input.type === 'rollup' && (input.isRequired || input.isUnique))
    throw validation('rollup fields are computed and cannot be required or unique', [
      { path: input.isRequired ? 'isRequired' : 'isUnique', error: 'not available for rollup fields' },
    ]);
  const rollup = input.type === 'rollup' ? await checkRollup(ctx, object, input.rollup) : null;
  const existing = await fieldsOf(ctx, object._id);
  if (input.expression !== undefined && input.type !== 'formula')
    throw validation('expression applies to formula fields only', [{ path: 'expression', error: 'not applicable' }]);
  const expression = input.type === 'formula' ? checkExpression(input.expression, existing) : null;
  if (input.type === 'formula' && input.isRequired)
    throw validation('formula fields are computed and cannot be required', [
      { path: 'isRequired', error: 'not available for formula fields' },
    ]);
  if (existing.some((f) => f.slug === input.slug))
    throw conflict(`field ${input.slug} already exists on ${object.slug}`);
  if (existing.length >= MAX_FIELDS_PER_OBJECT)
    throw validation(`an object has at most ${MAX_FIELDS_PER_OBJECT} fields`);
  const isSelect = input.type === 'select' || input.type === 'multi_select';
  if (isSelect && !input.options?.length)
    throw validation('options are required for select and multi_select fields', [
      { path: 'options', error: 'is required' },
    ]);
  if (input.isUnique && !UNIQUE_TYPES.includes(input.type))
    throw validation(`isUnique is not available for ${input.type} fields`, [
      { path: 'isUnique', error: 'not available for this type' },
    ]);
  await assertReferenceTarget(ctx, input);
  const field = createRecord(ctx, CustomObjectField, {
    objectId: object._id,
    slug: input.slug,
    label: input.label,
    type: input.type,
    isRequired: input.isRequired ?? false,
    isUnique: input.isUnique ?? false,
    options: isSelect ? (input.options ?? []) : [],
    referenceType: input.type === 'record_reference' ? (input.referenceType ?? null) : null,
    referenceObject:
      input.type === 'record_reference' && input.referenceType === 'custom' ? (input.referenceObject ?? null) : null,
    nativeEntity:
      input.type === 'record_reference' && input.referenceType === 'native' ? (input.nativeEntity ?? null) : null,
    order: input.order ?? existing.length,
    expression,
    rollup,
  });
  object.updatedAt = new Date();
  try {
    if (rollup || expression) {
      // The field and every record's aggregate or computed value commit together.
      await inTransaction(ctx, async () => {
        await ctx.em.flush();
        await (rollup ? recomputeRollup(ctx, field) : recomputeFormula(ctx, field));
        emitFieldsChanged(ctx, object, { added: field.slug });
      });
    } else {
      await ctx.em.flush();
    }
  } catch (error) {
    if ((error as { code?: string }).code === '23505')
      throw conflict(`field ${input.slug} already exists on ${object.slug}`);
    throw error;
  }
  return serializeField(field);
}

/** custom_object_definition_updated for a field added, removed or given a new formula. */
function emitFieldsChanged(ctx: Ctx, object: CustomObject, fields: Record<string, string>): void {
  emit(ctx, {
    type: 'custom_object_definition_updated',
    entityType: 'custom_object_definition',
    entityId: object._id,
    payload: { customObject: serializeObject(object), changes: { fields } },
  });
}

async function getField(ctx: Ctx, objectId: string, fieldSlug: string): Promise<CustomObjectField> {
  const field = await ctx.em.findOne(CustomObjectField, { objectId, slug: fieldSlug });
  if (!field) throw notFound('field');
  return field;
}

export async function updateField(ctx: Ctx, slug: string, fieldSlug: string, input: UpdateFieldInput) {
  const object = await getObject(ctx, slug);
  const field = await getField(ctx, object._id, fieldSlug);
  if (input.type !== undefined && input.type !== field.type)
    throw validation('type cannot change; create a new field instead', [{ path: 'type', error: 'cannot change' }]);
  if (input.slug !== undefined && input.slug !== field.slug)
    throw validation('slug cannot change', [{ path: 'slug', error: 'cannot change' }]);
  if (input.options && field.type !== 'select' && field.type !== 'multi_select')
    throw validation('options apply to select and multi_select fields only', [
      { path: 'options', error: 'not applicable' },
    ]);
  if (input.expression !== undefined && field.type !== 'formula')
    throw validation('expression applies to formula fields only', [{ path: 'expression', error: 'not applicable' }]);
  if (input.isRequired && field.type === 'formula')
    throw validation('formula fields are computed and cannot be required', [
      { path: 'isRequired', error: 'not available for formula fields' },
    ]);
  if (input.expression !== undefined && input.expression.trim() !== field.expression) {
    const expression = checkExpression(
      input.expression,
      (await fieldsOf(ctx, object._id)).filter((f) => f._id !== field._id),
    );
    return ctx.em.transactional(async (em) => {
      const f = await em.findOneOrFail(CustomObjectField, { _id: field._id });
      applyPatch(f, { ...pickFieldPatch(input), expression });
      f.updatedAt = new Date();
      await em.flush();
      await recomputeFormula({ ...ctx, em }, f);
      emitFieldsChanged({ ...ctx, em }, object, { expression: f.slug });
      await em.flush();
      return serializeField(f);
    });
  }
  if (input.isUnique && !field.isUnique) {
    if (!UNIQUE_TYPES.includes(field.type))
      throw validation(`isUnique is not available for ${field.type} fields`, [
        { path: 'isUnique', error: 'not available for this type' },
      ]);
    return ctx.em.transactional(async (em) => {
      // Turning uniqueness on indexes today's values; duplicates make it fail with 409.
      const ws = ctx.actor.workspaceId;
      const lower = ['text', 'email', 'url', 'phone', 'select'].includes(field.type);
      try {
        await em.execute(
          `insert into custom_object_unique_value (workspace_id, object_id, field_slug, value_key, record_id)
           select workspace_id, object_id, ?, ${lower ? `lower(trim(data->>?))` : `data->>?`}, id from custom_object_record
            where workspace_id = ? and object_id = ? and data->>? is not null`,
          [field.slug, field.slug, ws, object._id, field.slug],
          'run',
        );
      } catch (error) {
        if ((error as { code?: string }).code === '23505')
          throw conflict(`records already share values of ${field.slug}; make them unique first`);
        throw error;
      }
      const f = await em.findOneOrFail(CustomObjectField, { _id: field._id });
      applyPatch(f, { ...pickFieldPatch(input), isUnique: true });
      f.updatedAt = new Date();
      await em.flush();
      return serializeField(f);
    });
  }
  if (input.isUnique === false && field.isUnique) {
    await ctx.em.execute(
      'delete from custom_object_unique_value where workspace_id = ? and object_id = ? and field_slug = ?',
      [ctx.actor.workspaceId, object._id, field.slug],
      'run',
    );
  }
  const changes = applyPatch(field, pickFieldPatch(input));
  if (Object.keys(changes).length) {
    field.updatedAt = new Date();
    await ctx.em.flush();
  }
  return serializeField(field);
}

const pickFieldPatch = (input: UpdateFieldInput): Partial<CustomObjectField> => {
  const out: Record<string, unknown> = {};
  for (const key of ['label', 'isRequired', 'isUnique', 'options', 'order'] as const)
    if (input[key] !== undefined) out[key] = input[key];
  return out as Partial<CustomObjectField>;
};

/** Removes the field and its value from every record; settings naming it forget it. */
export async function deleteField(ctx: Ctx, slug: string, fieldSlug: string): Promise<void> {
  const object = await getObject(ctx, slug);
  const field = await getField(ctx, object._id, fieldSlug);
  const users = (await fieldsOf(ctx, object._id)).filter(
    (f) => f.type === 'formula' && f.expression && formulaReferences(parseFormula(f.expression)).includes(field.slug),
  );
  if (users.length)
    throw conflict(
      `${field.slug} is used by the formula field(s) ${users.map((f) => f.slug).join(', ')}; change or delete them first`,
    );
  const rollups = (await rollupsOver(ctx, object.slug)).filter(
    (f) => f.rollup!.via === field.slug || f.rollup!.field === field.slug,
  );
  if (rollups.length)
    throw conflict(
      `${field.slug} is used by the rollup field(s) ${rollups.map((f) => f.slug).join(', ')}; delete them first`,
    );
  await ctx.em.transactional(async (em) => {
    const ws = ctx.actor.workspaceId;
    await em.execute(
      'update custom_object_record set data = data - ? where workspace_id = ? and object_id = ?',
      [field.slug, ws, object._id],
      'run',
    );
    await em.execute(
      'delete from custom_object_unique_value where workspace_id = ? and object_id = ? and field_slug = ?',
      [ws, object._id, field.slug],
      'run',
    );
    const o = await em.findOneOrFail(CustomObject, { _id: object._id });
    const drop = (list: string[]) => list.filter((s) => s !== field.slug);
    o.favoriteFieldKeys = drop(o.favoriteFieldKeys);
    o.searchableFields = drop(o.searchableFields);
    o.piiFields = drop(o.piiFields);
    if (o.titleField === field.slug) o.titleField = null;
    o.updatedAt = new Date();
    em.remove(em.getReference(CustomObjectField, field._id));
    // Every record lost a value: consumers (search) re-read the object's records.
    emitFieldsChanged({ ...ctx, em }, o, { removed: field.slug });
    await em.flush();
  });
}
