/* eslint-disable @typescript-eslint/no-require-imports -- routes and activities load on first use (domain/module.ts) */
import { defineModule } from '../../platform/module';
import type * as filterPresetsRouter from './filter-presets.router';
import type * as dashboardLayoutsRouter from './dashboard-layouts.router';
import { dashboardLayoutResource, filterPresetResource } from './presets.resource';
import { presetEvents } from './presets.events';

/** Filter presets and dashboard layouts. */
export const presetsModule = defineModule({
  name: 'presets',
  resources: [filterPresetResource, dashboardLayoutResource],
  // Loaded when the API mounts them (the worker never loads the HTTP layer).
  routes: () => [
    (require('./filter-presets.router') as typeof filterPresetsRouter).filterPresetsRoutes,
    (require('./dashboard-layouts.router') as typeof dashboardLayoutsRouter).dashboardLayoutsRoutes,
  ],
  events: presetEvents,
});
