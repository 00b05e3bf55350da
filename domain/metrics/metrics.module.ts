/* eslint-disable @typescript-eslint/no-require-imports -- routes and activities load on first use (domain/module.ts) */
import { defineModule } from '../module';
import type * as metricsRouter from '../../api/routes/metrics.router';

export const metricsModule = defineModule({
  name: 'metrics',
  // Loaded when the API mounts them (the worker never loads the HTTP layer).
  routes: () => [(require('../../api/routes/metrics.router') as typeof metricsRouter).metricsRoutes],
});
