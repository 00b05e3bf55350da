import type { Ctx } from '../context';
import { emit } from '../outbox/emit';
import { deleteWithEvent, updateWithEvent } from '../shared/changes';
import { findPage, toPlain, type PageRequest } from '../shared/listing';
import { createRecord } from '../shared/records';
import { FilterPreset } from './filter-preset.entity';
import { loadVisible, newSharing, sharingPatch, visibleWhere } from './sharing';
import type { FilterPresetInput } from './filter-presets.schemas';

const FIELDS = [
  '_id',
  'name',
  'area',
  'columnFilters',
  'filterTree',
  'filterMode',
  'sorting',
  'visibility',
  'userIds',
  'groupIds',
  'ownerId',
  'createdAt',
  'updatedAt',
] as const;
export const serializeFilterPreset = (p: FilterPreset): Record<string, unknown> => toPlain(p, FIELDS);

const find = (ctx: Ctx, id: string) => () => ctx.em.findOne(FilterPreset, { _id: id });
export const getFilterPreset = (ctx: Ctx, id: string) => loadVisible(ctx, 'filter preset', find(ctx, id));

/** Presets the caller may see, optionally of one area, newest first. */
export async function listFilterPresets(ctx: Ctx, query: PageRequest & { area?: string }) {
  const where: Record<string, unknown> = { ...visibleWhere(ctx.actor) };
  if (query.area) where.area = query.area;
  const { items, total } = await findPage(ctx.em, FilterPreset, where, query, { createdAt: 'desc' });
  return { items: items.map(serializeFilterPreset), total };
}

export async function createFilterPreset(ctx: Ctx, input: FilterPresetInput & { name: string }) {
  const sharing = await newSharing(ctx, input);
  const preset = createRecord(ctx, FilterPreset, {
    name: input.name,
    area: input.area ?? null,
    columnFilters: input.columnFilters ?? null,
    filterTree: input.filterTree ?? null,
    filterMode: input.filterMode ?? 'and',
    sorting: input.sorting ?? null,
    ...sharing,
    ownerId: ctx.actor.userId,
  });
  emit(ctx, {
    type: 'filter_preset_created',
    entityType: 'filter_preset',
    entityId: preset._id,
    payload: { filterPreset: serializeFilterPreset(preset) },
  });
  await ctx.em.flush();
  return serializeFilterPreset(preset);
}

export async function updateFilterPreset(ctx: Ctx, id: string, input: FilterPresetInput) {
  const preset = await loadVisible(ctx, 'filter preset', find(ctx, id), { change: true });
  const sharing = await sharingPatch(ctx, input, preset);
  await updateWithEvent(
    ctx,
    preset,
    {
      name: input.name,
      area: input.area,
      columnFilters: input.columnFilters,
      filterTree: input.filterTree,
      filterMode: input.filterMode,
      sorting: input.sorting,
      ...sharing,
    },
    {
      type: 'filter_preset_updated',
      entityType: 'filter_preset',
      payload: (changes) => ({ filterPreset: serializeFilterPreset(preset), changes }),
    },
  );
  return serializeFilterPreset(preset);
}

export async function deleteFilterPreset(ctx: Ctx, id: string): Promise<void> {
  const preset = await loadVisible(ctx, 'filter preset', find(ctx, id), { change: true });
  await deleteWithEvent(ctx, preset, {
    type: 'filter_preset_deleted',
    entityType: 'filter_preset',
    payload: { filterPreset: serializeFilterPreset(preset) },
  });
}
