/* eslint-disable @typescript-eslint/no-require-imports -- routes and activities load on first use (domain/module.ts) */
import { defineModule } from '../../platform/module';
import type * as reportsRouter from './reports.router';

export const reportsModule = defineModule({
  name: 'reports',
  // Loaded when the API mounts them (the worker never loads the HTTP layer).
  routes: () => [(require('./reports.router') as typeof reportsRouter).reportsRoutes],
});
