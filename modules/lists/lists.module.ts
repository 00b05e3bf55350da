/* eslint-disable @typescript-eslint/no-require-imports -- routes and activities load on first use (domain/module.ts) */
import { defineModule } from '../../platform/module';
import type * as listsRouter from './lists.router';
import { listResource } from './lists.resource';
import { listEvents } from './lists.events';

export const listsModule = defineModule({
  name: 'lists',
  resources: [listResource],
  // Loaded when the API mounts them (the worker never loads the HTTP layer).
  routes: () => [(require('./lists.router') as typeof listsRouter).listsRoutes],
  events: listEvents,
});
