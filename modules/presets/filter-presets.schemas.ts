import { z } from 'zod';
import { pageParams } from '../../platform/shared/list-query';
import { clearableText, requiredText } from '../../platform/shared/schemas';
import { boundedJson, recordView, sharingFields, sharingView } from './sharing.schemas';

export const PRESET_JSON_MAX_BYTES = 32 * 1024;

const presetFields = {
  area: clearableText(100).describe("UI area the preset belongs to, e.g. 'deals'"),
  columnFilters: boundedJson(PRESET_JSON_MAX_BYTES),
  filterTree: boundedJson(PRESET_JSON_MAX_BYTES),
  filterMode: z.enum(['and', 'or'], { message: 'must be one of: and, or' }),
  sorting: boundedJson(PRESET_JSON_MAX_BYTES),
  ...sharingFields,
};

export const createFilterPresetBody = z
  .object({ name: requiredText(200) })
  .extend(z.object(presetFields).partial().shape);
export const updateFilterPresetBody = z.object({ name: requiredText(200), ...presetFields }).partial();
export const listFilterPresetsQuery = z.object({ ...pageParams(100), area: z.string().trim().max(100).optional() });

const jsonValue = z.union([z.array(z.unknown()), z.record(z.string(), z.unknown())]).nullable();

export const filterPresetView = z.object({
  ...recordView,
  name: z.string(),
  area: z.string().nullable(),
  columnFilters: jsonValue,
  filterTree: jsonValue,
  filterMode: z.enum(['and', 'or']),
  sorting: jsonValue,
  ...sharingView,
});

/** What the service writes: the parsed updateFilterPresetBody (create bodies add their required fields). */
export type FilterPresetInput = z.infer<typeof updateFilterPresetBody>;
