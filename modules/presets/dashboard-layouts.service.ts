import type { Ctx } from '../../platform/context';
import type { PageRequest } from '../../platform/shared/listing';
import { DashboardLayout } from './dashboard-layout.entity';
import type { DashboardLayoutInput } from './dashboard-layouts.schemas';
import { sharedItemService } from './shared-items';

const layouts = sharedItemService<DashboardLayout, DashboardLayoutInput>({
  entity: DashboardLayout,
  what: 'dashboard layout',
  kind: 'dashboard_layout',
  payloadKey: 'dashboardLayout',
  fields: ['layout', 'visibleComponents', 'chartWidgets'],
  created: (input) => ({
    layout: input.layout ?? null,
    visibleComponents: input.visibleComponents ?? [],
    chartWidgets: input.chartWidgets ?? null,
  }),
  patch: (input) => ({
    layout: input.layout,
    visibleComponents: input.visibleComponents,
    chartWidgets: input.chartWidgets,
  }),
});

export const serializeDashboardLayout = layouts.serialize;
export const getDashboardLayout = layouts.get;
/** Layouts the caller may see, newest first. */
export const listDashboardLayouts = (ctx: Ctx, query: PageRequest) => layouts.list(ctx, query);
export const createDashboardLayout = layouts.create;
export const updateDashboardLayout = layouts.update;
export const deleteDashboardLayout = layouts.remove;
