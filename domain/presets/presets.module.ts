/* eslint-disable @typescript-eslint/no-require-imports -- routes and activities load on first use (domain/module.ts) */
import { defineModule } from '../module';
import type * as filterPresetsRouter from '../../api/routes/filter-presets.router';
import type * as dashboardLayoutsRouter from '../../api/routes/dashboard-layouts.router';
import { dashboardLayoutResource, filterPresetResource } from './presets.resource';

/** Filter presets and dashboard layouts. */
export const presetsModule = defineModule({
  name: 'presets',
  resources: [filterPresetResource, dashboardLayoutResource],
  // Loaded when the API mounts them (the worker never loads the HTTP layer).
  routes: () => [
    (require('../../api/routes/filter-presets.router') as typeof filterPresetsRouter).filterPresetsRoutes,
    (require('../../api/routes/dashboard-layouts.router') as typeof dashboardLayoutsRouter).dashboardLayoutsRoutes,
  ],
});
