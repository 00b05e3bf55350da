/* eslint-disable @typescript-eslint/no-require-imports -- routes and activities load on first use (domain/module.ts) */
import { defineModule } from '../module';
import type * as reportsRouter from '../../api/routes/reports.router';

export const reportsModule = defineModule({
  name: 'reports',
  // Loaded when the API mounts them (the worker never loads the HTTP layer).
  routes: () => [(require('../../api/routes/reports.router') as typeof reportsRouter).reportsRoutes],
});
