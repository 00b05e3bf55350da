import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { p, tenantProps } from '../../platform/orm/base';
import { sharingProps } from './sharing-props';

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
    ...sharingProps,
  },
});
export type DashboardLayout = InferEntity<typeof DashboardLayout>;
