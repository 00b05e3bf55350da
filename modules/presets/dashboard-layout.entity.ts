import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { p, tenantProps } from '../../platform/orm/base';
import type { Visibility } from './sharing';

/** A saved dashboard arrangement (grid layout, visible components, chart widgets), shared like filter presets. */
export const DashboardLayout = defineEntity({
  name: 'DashboardLayout',
  tableName: 'dashboard_layout',
  properties: {
    ...tenantProps,
    name: p.string().length(200),
    layout: p.json<unknown>().nullable(),
    visibleComponents: p.array().default([]),
    chartWidgets: p.json<unknown>().nullable(),
    visibility: p.string().length(20).$type<Visibility>().default('private'),
    userIds: p.array().default([]),
    groupIds: p.array().default([]),
    ownerId: p.string().length(24),
  },
});
export type DashboardLayout = InferEntity<typeof DashboardLayout>;
