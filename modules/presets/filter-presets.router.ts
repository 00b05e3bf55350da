import type { RouteFactory } from '../../platform/http/app-deps';
import * as presets from './filter-presets.service';
import { crudRoutes, viewOf } from '../../platform/http/crud';
import {
  createFilterPresetBody,
  filterPresetView,
  listFilterPresetsQuery,
  updateFilterPresetBody,
} from './filter-presets.schemas';

const visibilityNote =
  'workspace: everyone; private: the owner; user: the owner and userIds; group: the owner only until user groups exist';

export const filterPresetsRoutes: RouteFactory = () =>
  crudRoutes({
    base: '/api/v1/filter-presets',
    section: 'Filter presets',
    kind: 'filter-preset',
    access: { read: { scopes: ['read'] }, write: { scopes: ['write'] } },
    schemas: {
      list: listFilterPresetsQuery,
      create: createFilterPresetBody,
      update: updateFilterPresetBody,
      view: filterPresetView,
    },
    service: {
      list: presets.listFilterPresets,
      create: presets.createFilterPreset,
      get: viewOf(presets.getFilterPreset, presets.serializeFilterPreset),
      update: presets.updateFilterPreset,
      remove: presets.deleteFilterPreset,
    },
    summaries: {
      list: `Presets the caller may see (${visibilityNote}), newest first; filter by area.`,
      create: 'Create a preset owned by the caller (visibility defaults to private).',
      get: 'One preset; a preset the caller may not see is 404.',
      update: 'Update a preset (partial); only its owner or an owner/admin may (403 otherwise).',
      remove: 'Delete a preset; only its owner or an owner/admin may (403 otherwise).',
    },
  });
