/* eslint-disable @typescript-eslint/no-require-imports -- routes and activities load on first use (domain/module.ts) */
import { defineModule } from '../../platform/module';
import type * as callsRouter from './calls.router';
import { callResource } from './calls.resource';
import { callEvents } from './calls.events';

export const callsModule = defineModule({
  name: 'calls',
  resources: [callResource],
  // Loaded when the API mounts them (the worker never loads the HTTP layer).
  routes: () => [(require('./calls.router') as typeof callsRouter).callsRoutes],
  events: callEvents,
});
