import type { RouteFactory } from '../app';
import * as presets from '../../domain/presets/filter-presets.service';
import { acknowledged, created, ok, paged, route } from '../http/registry';
import { idParams } from '../http/schemas';
import { createFilterPresetBody, listFilterPresetsQuery, updateFilterPresetBody } from './filter-presets.schemas';

const read = { scopes: ['read'] } as const;
const write = { scopes: ['write'] } as const;
const section = 'Filter presets';
const resources = { id: 'filter-preset' };
const visibilityNote = 'workspace: everyone; private: the owner; user: the owner and userIds; group: the owner only until user groups exist';

export const filterPresetsRoutes: RouteFactory = () => [
  route({
    method: 'GET', path: '/api/v1/filter-presets', section, access: read, query: listFilterPresetsQuery,
    summary: `Presets the caller may see (${visibilityNote}), newest first; filter by area.`,
    handler: async ({ ctx, query }) => {
      const { items, total } = await presets.listFilterPresets(ctx, query);
      return paged(items, { page: query.page, limit: query.limit, total });
    },
  }),
  route({
    method: 'POST', path: '/api/v1/filter-presets', section, access: write, body: createFilterPresetBody, successStatus: 201,
    summary: 'Create a preset owned by the caller (visibility defaults to private).',
    handler: async ({ ctx, body }) => created(await presets.createFilterPreset(ctx, body)),
  }),
  route({
    method: 'GET', path: '/api/v1/filter-presets/:id', section, access: read, params: idParams, resources,
    summary: 'One preset; a preset the caller may not see is 404.',
    handler: async ({ ctx, params }) => ok(presets.serializeFilterPreset(await presets.getFilterPreset(ctx, params.id))),
  }),
  route({
    method: 'PUT', path: '/api/v1/filter-presets/:id', section, access: write, params: idParams, body: updateFilterPresetBody, resources,
    summary: 'Update a preset (partial); only its owner or an owner/admin may (403 otherwise).',
    handler: async ({ ctx, params, body }) => ok(await presets.updateFilterPreset(ctx, params.id, body)),
  }),
  route({
    method: 'DELETE', path: '/api/v1/filter-presets/:id', section, access: write, params: idParams, resources,
    summary: 'Delete a preset; only its owner or an owner/admin may (403 otherwise).',
    handler: async ({ ctx, params }) => {
      await presets.deleteFilterPreset(ctx, params.id);
      return acknowledged();
    },
  }),
];
