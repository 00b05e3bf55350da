/* eslint-disable @typescript-eslint/no-require-imports -- routes and activities load on first use (domain/module.ts) */
import { defineModule } from '../../platform/module';
import type * as metricsRouter from './metrics.router';

export const metricsModule = defineModule({
  name: 'metrics',
  // Loaded when the API mounts them (the worker never loads the HTTP layer).
  routes: () => [(require('./metrics.router') as typeof metricsRouter).metricsRoutes],
});
