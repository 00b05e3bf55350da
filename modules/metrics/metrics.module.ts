/* eslint-disable @typescript-eslint/no-require-imports -- routes and activities load on first use (domain/module.ts) */
import { defineModule } from '../../platform/module';
import { MetricSeries } from './metric-series.entity';
import type * as metricsRouter from './metrics.router';

export const metricsModule = defineModule({
  name: 'metrics',
  // Tenant rows without a manifest (no GET /:id of their own).
  entities: { tenant: [MetricSeries] },
  // Loaded when the API mounts them (the worker never loads the HTTP layer).
  routes: () => [(require('./metrics.router') as typeof metricsRouter).metricsRoutes],
});
