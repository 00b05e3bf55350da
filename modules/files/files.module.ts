/* eslint-disable @typescript-eslint/no-require-imports -- routes and activities load on first use (domain/module.ts) */
import { defineModule } from '../../platform/module';
import type * as filesRouter from './files.router';
import type * as integrationsRouter from './integrations.router';
import { fileResource } from './files.resource';
import { fileEnv } from './settings';
import { fileEvents } from './files.events';

/** Files (local, S3, cloud drives) and the cloud-drive integrations. */
export const filesModule = defineModule({
  name: 'files',
  resources: [fileResource],
  // Loaded when the API mounts them (the worker never loads the HTTP layer).
  routes: () => [
    (require('./files.router') as typeof filesRouter).filesRoutes,
    (require('./integrations.router') as typeof integrationsRouter).integrationsRoutes,
  ],
  settings: { section: 'files', load: fileEnv },
  events: fileEvents,
});
