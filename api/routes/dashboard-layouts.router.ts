import type { RouteFactory } from '../app';
import * as layouts from '../../domain/presets/dashboard-layouts.service';
import { acknowledged, created, ok, paged, route } from '../http/registry';
import { idParams, pageQuery } from '../http/schemas';
import { createDashboardLayoutBody, updateDashboardLayoutBody } from './dashboard-layouts.schemas';

const read = { scopes: ['read'] } as const;
const write = { scopes: ['write'] } as const;
const section = 'Dashboard layouts';
const resources = { id: 'dashboard-layout' };

export const dashboardLayoutsRoutes: RouteFactory = () => [
  route({
    method: 'GET', path: '/api/v1/dashboard-layouts', section, access: read, query: pageQuery(),
    summary: 'Layouts the caller may see (same visibility rules as filter presets), newest first.',
    handler: async ({ ctx, query }) => {
      const { items, total } = await layouts.listDashboardLayouts(ctx, query);
      return paged(items, { ...query, total });
    },
  }),
  route({
    method: 'POST', path: '/api/v1/dashboard-layouts', section, access: write, body: createDashboardLayoutBody, successStatus: 201,
    summary: 'Create a layout owned by the caller (visibility defaults to private).',
    handler: async ({ ctx, body }) => created(await layouts.createDashboardLayout(ctx, body)),
  }),
  route({
    method: 'GET', path: '/api/v1/dashboard-layouts/:id', section, access: read, params: idParams, resources,
    summary: 'One layout; a layout the caller may not see is 404.',
    handler: async ({ ctx, params }) => ok(layouts.serializeDashboardLayout(await layouts.getDashboardLayout(ctx, params.id))),
  }),
  route({
    method: 'PUT', path: '/api/v1/dashboard-layouts/:id', section, access: write, params: idParams, body: updateDashboardLayoutBody, resources,
    summary: 'Update a layout (partial); only its owner or an owner/admin may (403 otherwise).',
    handler: async ({ ctx, params, body }) => ok(await layouts.updateDashboardLayout(ctx, params.id, body)),
  }),
  route({
    method: 'DELETE', path: '/api/v1/dashboard-layouts/:id', section, access: write, params: idParams, resources,
    summary: 'Delete a layout; only its owner or an owner/admin may (403 otherwise).',
    handler: async ({ ctx, params }) => {
      await layouts.deleteDashboardLayout(ctx, params.id);
      return acknowledged();
    },
  }),
];
