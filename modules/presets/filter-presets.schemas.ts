import { z } from 'zod';
import { pageParams } from '../../platform/shared/list-query';
import { clearableText } from '../../platform/shared/schemas';
import { boundedJson, jsonView, recordView, sharedItemBodies, sharingView } from './sharing.schemas';

export const PRESET_JSON_MAX_BYTES = 32 * 1024;

const presetBodies = sharedItemBodies({
  area: clearableText(100).describe("UI area the preset belongs to, e.g. 'deals'"),
  columnFilters: boundedJson(PRESET_JSON_MAX_BYTES),
  filterTree: boundedJson(PRESET_JSON_MAX_BYTES),
  filterMode: z.enum(['and', 'or'], { message: 'must be one of: and, or' }),
  sorting: boundedJson(PRESET_JSON_MAX_BYTES),
});
export const createFilterPresetBody = presetBodies.create;
export const updateFilterPresetBody = presetBodies.update;
export const listFilterPresetsQuery = z.object({ ...pageParams(100), area: z.string().trim().max(100).optional() });

export const filterPresetView = z.object({
  ...recordView,
  name: z.string(),
  area: z.string().nullable(),
  columnFilters: jsonView,
  filterTree: jsonView,
  filterMode: z.enum(['and', 'or']),
  sorting: jsonView,
  ...sharingView,
});

/** What the service writes: the parsed updateFilterPresetBody (create bodies add their required fields). */
export type FilterPresetInput = z.infer<typeof updateFilterPresetBody>;
