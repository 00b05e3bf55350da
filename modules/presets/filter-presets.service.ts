import type { Ctx } from '../../platform/context';
import type { PageRequest } from '../../platform/shared/listing';
import { FilterPreset } from './filter-preset.entity';
import type { FilterPresetInput } from './filter-presets.schemas';
import { sharedItemService } from './shared-items';

const presets = sharedItemService<FilterPreset, FilterPresetInput>({
  entity: FilterPreset,
  what: 'filter preset',
  kind: 'filter_preset',
  payloadKey: 'filterPreset',
  fields: ['area', 'columnFilters', 'filterTree', 'filterMode', 'sorting'],
  created: (input) => ({
    area: input.area ?? null,
    columnFilters: input.columnFilters ?? null,
    filterTree: input.filterTree ?? null,
    filterMode: input.filterMode ?? 'and',
    sorting: input.sorting ?? null,
  }),
  patch: (input) => ({
    area: input.area,
    columnFilters: input.columnFilters,
    filterTree: input.filterTree,
    filterMode: input.filterMode,
    sorting: input.sorting,
  }),
});

export const serializeFilterPreset = presets.serialize;
export const getFilterPreset = presets.get;
/** Presets the caller may see, optionally of one area, newest first. */
export const listFilterPresets = (ctx: Ctx, query: PageRequest & { area?: string }) =>
  presets.list(ctx, query, query.area ? { area: query.area } : {});
export const createFilterPreset = presets.create;
export const updateFilterPreset = presets.update;
export const deleteFilterPreset = presets.remove;
