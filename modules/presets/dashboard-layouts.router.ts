import type { RouteFactory } from '../../platform/http/app-deps';
import * as layouts from './dashboard-layouts.service';
import { crudRoutes, viewOf } from '../../platform/http/crud';
import { pageQuery } from '../../platform/shared/schemas';
import { createDashboardLayoutBody, dashboardLayoutView, updateDashboardLayoutBody } from './dashboard-layouts.schemas';

export const dashboardLayoutsRoutes: RouteFactory = () =>
  crudRoutes({
    base: '/api/v1/dashboard-layouts',
    section: 'Dashboard layouts',
    kind: 'dashboard-layout',
    access: { read: { scopes: ['read'] }, write: { scopes: ['write'] } },
    schemas: {
      list: pageQuery(),
      create: createDashboardLayoutBody,
      update: updateDashboardLayoutBody,
      view: dashboardLayoutView,
    },
    service: {
      list: layouts.listDashboardLayouts,
      create: layouts.createDashboardLayout,
      get: viewOf(layouts.getDashboardLayout, layouts.serializeDashboardLayout),
      update: layouts.updateDashboardLayout,
      remove: layouts.deleteDashboardLayout,
    },
    summaries: {
      list: 'Layouts the caller may see (same visibility rules as filter presets), newest first.',
      create: 'Create a layout owned by the caller (visibility defaults to private).',
      get: 'One layout; a layout the caller may not see is 404.',
      update: 'Update a layout (partial); only its owner or an owner/admin may (403 otherwise).',
      remove: 'Delete a layout; only its owner or an owner/admin may (403 otherwise).',
    },
  });
