import { defineResource, loadById } from '../../platform/shared/resource';
import { DashboardLayout } from './dashboard-layout.entity';
import { FilterPreset } from './filter-preset.entity';

export const filterPresetResource = defineResource<FilterPreset>({
  kind: 'filter-preset',
  collection: 'filter-presets',
  entity: FilterPreset,
  load: loadById(FilterPreset, 'filter preset'),
});

export const dashboardLayoutResource = defineResource<DashboardLayout>({
  kind: 'dashboard-layout',
  collection: 'dashboard-layouts',
  entity: DashboardLayout,
  load: loadById(DashboardLayout, 'dashboard layout'),
});
