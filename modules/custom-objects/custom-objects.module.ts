/* eslint-disable @typescript-eslint/no-require-imports -- routes and activities load on first use (domain/module.ts) */
import { defineModule } from '../../platform/module';
import type * as customObjectsRouter from './custom-objects.router';
import { customObjectRecordResource } from './custom-objects.resource';
import { customObjectEvents } from './custom-objects.events';

export const customObjectsModule = defineModule({
  name: 'custom-objects',
  resources: [customObjectRecordResource],
  // Loaded when the API mounts them (the worker never loads the HTTP layer).
  routes: () => [(require('./custom-objects.router') as typeof customObjectsRouter).customObjectsRoutes],
  events: customObjectEvents,
});
