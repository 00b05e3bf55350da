/* eslint-disable @typescript-eslint/no-require-imports -- routes and activities load on first use (domain/module.ts) */
import { defineModule } from '../../platform/module';
import type * as systemRouter from './system.router';

/** The workspace itself: health, readiness and the caller (system routes). */
export const workspacesModule = defineModule({
  name: 'workspaces',
  // Loaded when the API mounts them (the worker never loads the HTTP layer).
  routes: () => [(require('./system.router') as typeof systemRouter).systemRoutes],
});
