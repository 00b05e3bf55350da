/* eslint-disable @typescript-eslint/no-require-imports -- routes and activities load on first use (domain/module.ts) */
import { defineModule } from '../../platform/module';
import type * as exportRouter from './export.router';

export const exportsModule = defineModule({
  name: 'exports',
  // Loaded when the API mounts them (the worker never loads the HTTP layer).
  routes: () => [(require('./export.router') as typeof exportRouter).exportRoutes],
});
