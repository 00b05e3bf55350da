import type { Ctx } from '../../platform/context';
import { conflict, DomainError, validation } from '../../platform/errors';
import { createdEvent, emitCreate, updateWithEvent } from '../../platform/shared/changes';
import { findPage, type PageRequest } from '../../platform/shared/listing';
import { plainOf } from '../../platform/shared/views';
import { createRecord } from '../../platform/shared/records';
import { recordKind, tableOf, type RecordType } from '../../platform/shared/record-kinds';
import {
  CustomFieldDefinition,
  type CustomFieldEntityType,
  type CustomFieldOption,
  type CustomFieldType,
} from './custom-field-definition.entity';
import { definitionProblem, isSelectType, MAX_DEFINITIONS_PER_TYPE } from './definition-rules';
import type { CustomFieldDefinitionView, DefinitionInput } from './custom-fields.schemas';
import { deleteById, getRecord } from '../../platform/shared/record-service';

const FIELDS = [
  '_id',
  'entityType',
  'key',
  'label',
  'type',
  'description',
  'options',
  'required',
  'order',
  'showInCreateDialog',
  'createdAt',
  'updatedAt',
] as const;
export const serializeDefinition = (d: CustomFieldDefinition): CustomFieldDefinitionView => plainOf(d, FIELDS);

const ORDER = { entityType: 'asc', order: 'asc', createdAt: 'asc' } as const;

export async function listDefinitions(
  ctx: Ctx,
  query: PageRequest & { entityTypes?: CustomFieldEntityType[]; forCreateDialog?: boolean },
) {
  const where: Record<string, unknown> = {};
  if (query.entityTypes) where.entityType = { $in: query.entityTypes };
  if (query.forCreateDialog) where.showInCreateDialog = true;
  const { items, total } = await findPage(ctx.em, CustomFieldDefinition, where, query, ORDER);
  return { items: items.map(serializeDefinition), total };
}

export function getDefinition(ctx: Ctx, id: string): Promise<CustomFieldDefinition> {
  return getRecord(ctx, CustomFieldDefinition, id, 'custom field');
}

function assertConsistent(def: { type: CustomFieldType; options: CustomFieldOption[] }): void {
  const problem = definitionProblem(def);
  if (problem) throw validation(problem);
}

export async function createDefinition(
  ctx: Ctx,
  input: DefinitionInput & Required<Pick<DefinitionInput, 'entityType' | 'key' | 'label' | 'type'>>,
): Promise<CustomFieldDefinitionView> {
  const options = input.options ?? [];
  assertConsistent({ type: input.type, options });
  if (await ctx.em.count(CustomFieldDefinition, { entityType: input.entityType, key: input.key })) {
    throw conflict(`a ${input.entityType} custom field with key "${input.key}" already exists`);
  }
  if ((await ctx.em.count(CustomFieldDefinition, { entityType: input.entityType })) >= MAX_DEFINITIONS_PER_TYPE) {
    throw new DomainError('invalid_state', `at most ${MAX_DEFINITIONS_PER_TYPE} custom fields per entity type`);
  }
  const def = createRecord(ctx, CustomFieldDefinition, {
    entityType: input.entityType,
    key: input.key,
    label: input.label,
    type: input.type,
    description: input.description ?? null,
    options,
    required: input.required ?? false,
    order: input.order ?? 0,
    showInCreateDialog: input.showInCreateDialog ?? true,
  });
  await emitCreate(ctx, def, createdEvent('custom_field', { customField: serializeDefinition(def) }));
  return serializeDefinition(def);
}

/** Whether any record of the definition's entity type holds a value under its key. */
export async function definitionHasValues(
  ctx: Ctx,
  def: Pick<CustomFieldDefinition, 'entityType' | 'key'>,
): Promise<boolean> {
  const kind = recordKind(def.entityType as RecordType);
  // Project and task records are not stored by this module; their type changes are not checked.
  if (!kind) return false;
  const { table, column } = tableOf(ctx, kind);
  const cf = column('customFields');
  const has =
    kind.customFieldStorage === 'pairs'
      ? `exists (select 1 from jsonb_array_elements(e.${cf}) x where x ->> 'name' = ?)`
      : `jsonb_exists(e.${cf}, ?)`;
  const rows = await ctx.em
    .getConnection()
    .execute<unknown[]>(`select 1 from "${table}" e where e.${column('workspaceId')} = ? and ${has} limit 1`, [
      ctx.actor.workspaceId,
      def.key,
    ]);
  return rows.length > 0;
}

/**
 * Partial update. Key and entity type are immutable (records hold values under the key); the
 * type may change only while no record holds a value for the field.
 */
export async function updateDefinition(
  ctx: Ctx,
  id: string,
  input: DefinitionInput,
): Promise<CustomFieldDefinitionView> {
  const def = await getDefinition(ctx, id);
  if (input.key !== undefined && input.key !== def.key)
    throw validation('key: cannot be changed; create a new field instead');
  if (input.entityType !== undefined && input.entityType !== def.entityType)
    throw validation('entityType: cannot be changed; create a new field instead');
  const type = input.type ?? def.type;
  // Switching to a non-select type drops the options; select ↔ multi_select keeps them.
  const options = input.options ?? (isSelectType(type) ? def.options : []);
  assertConsistent({ type, options });
  if (type !== def.type && (await definitionHasValues(ctx, def))) {
    throw conflict(
      `type: cannot change ${def.key} from ${def.type} to ${type} while ${def.entityType} records hold values for it`,
    );
  }
  await updateWithEvent(
    ctx,
    def,
    {
      label: input.label,
      type,
      description: input.description,
      options,
      required: input.required,
      order: input.order,
      showInCreateDialog: input.showInCreateDialog,
    },
    {
      type: 'custom_field_updated',
      entityType: 'custom_field',
      payload: (changes) => ({ customField: serializeDefinition(def), changes }),
    },
  );
  return serializeDefinition(def);
}

/** Removes the definition only: values already stored on records stay (as free-form keys). */
export const deleteDefinition = deleteById(getDefinition, 'custom_field', (def) => ({
  customField: serializeDefinition(def),
}));
