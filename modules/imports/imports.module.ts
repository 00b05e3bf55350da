/* eslint-disable @typescript-eslint/no-require-imports -- routes and activities load on first use (domain/module.ts) */
import { defineModule } from '../../platform/module';
import { ImportRun } from './import-run.entity';
import type * as importRouter from './import.router';
import { importEvents } from './imports.events';

export const importsModule = defineModule({
  name: 'imports',
  // Tenant rows without a manifest (no GET /:id of their own).
  entities: { tenant: [ImportRun] },
  // Loaded when the API mounts them (the worker never loads the HTTP layer).
  routes: () => [(require('./import.router') as typeof importRouter).importRoutes],
  events: importEvents,
});
