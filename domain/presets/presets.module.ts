import { defineModule } from '../module';
import { filterPresetsRoutes } from '../../api/routes/filter-presets.router';
import { dashboardLayoutsRoutes } from '../../api/routes/dashboard-layouts.router';
import { dashboardLayoutResource, filterPresetResource } from './presets.resource';

/** Filter presets and dashboard layouts. */
export const presetsModule = defineModule({
  name: 'presets',
  resources: [filterPresetResource, dashboardLayoutResource],
  routes: [filterPresetsRoutes, dashboardLayoutsRoutes],
});
