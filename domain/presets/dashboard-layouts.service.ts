import type { Ctx } from '../context';
import { emit } from '../outbox/emit';
import { deleteWithEvent, updateWithEvent } from '../shared/changes';
import { findPage, toPlain, type PageRequest } from '../shared/listing';
import { createRecord } from '../shared/records';
import { DashboardLayout } from './dashboard-layout.entity';
import { loadVisible, newSharing, sharingPatch, visibleWhere } from './sharing';
import type { DashboardLayoutInput } from './dashboard-layouts.schemas';

const FIELDS = [
  '_id',
  'name',
  'layout',
  'visibleComponents',
  'chartWidgets',
  'visibility',
  'userIds',
  'groupIds',
  'ownerId',
  'createdAt',
  'updatedAt',
] as const;
export const serializeDashboardLayout = (l: DashboardLayout): Record<string, unknown> => toPlain(l, FIELDS);

const find = (ctx: Ctx, id: string) => () => ctx.em.findOne(DashboardLayout, { _id: id });
export const getDashboardLayout = (ctx: Ctx, id: string) => loadVisible(ctx, 'dashboard layout', find(ctx, id));

export async function listDashboardLayouts(ctx: Ctx, query: PageRequest) {
  const { items, total } = await findPage(ctx.em, DashboardLayout, visibleWhere(ctx.actor), query, {
    createdAt: 'desc',
  });
  return { items: items.map(serializeDashboardLayout), total };
}

export async function createDashboardLayout(ctx: Ctx, input: DashboardLayoutInput & { name: string }) {
  const sharing = await newSharing(ctx, input);
  const layout = createRecord(ctx, DashboardLayout, {
    name: input.name,
    layout: input.layout ?? null,
    visibleComponents: input.visibleComponents ?? [],
    chartWidgets: input.chartWidgets ?? null,
    ...sharing,
    ownerId: ctx.actor.userId,
  });
  emit(ctx, {
    type: 'dashboard_layout_created',
    entityType: 'dashboard_layout',
    entityId: layout._id,
    payload: { dashboardLayout: serializeDashboardLayout(layout) },
  });
  await ctx.em.flush();
  return serializeDashboardLayout(layout);
}

export async function updateDashboardLayout(ctx: Ctx, id: string, input: DashboardLayoutInput) {
  const layout = await loadVisible(ctx, 'dashboard layout', find(ctx, id), { change: true });
  const sharing = await sharingPatch(ctx, input, layout);
  await updateWithEvent(
    ctx,
    layout,
    {
      name: input.name,
      layout: input.layout,
      visibleComponents: input.visibleComponents,
      chartWidgets: input.chartWidgets,
      ...sharing,
    },
    {
      type: 'dashboard_layout_updated',
      entityType: 'dashboard_layout',
      payload: (changes) => ({ dashboardLayout: serializeDashboardLayout(layout), changes }),
    },
  );
  return serializeDashboardLayout(layout);
}

export async function deleteDashboardLayout(ctx: Ctx, id: string): Promise<void> {
  const layout = await loadVisible(ctx, 'dashboard layout', find(ctx, id), { change: true });
  await deleteWithEvent(ctx, layout, {
    type: 'dashboard_layout_deleted',
    entityType: 'dashboard_layout',
    payload: { dashboardLayout: serializeDashboardLayout(layout) },
  });
}
