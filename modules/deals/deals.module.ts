/* eslint-disable @typescript-eslint/no-require-imports -- routes and activities load on first use (domain/module.ts) */
import { defineModule } from '../../platform/module';
import type * as dealsRouter from './deals.router';
import type * as flowsRouter from './flows.router';
import { dealResource } from './deals.resource';
import { dealEvents } from './deals.events';

/** Deals and their flows (pipelines). */
export const dealsModule = defineModule({
  name: 'deals',
  resources: [dealResource],
  // Loaded when the API mounts them (the worker never loads the HTTP layer).
  routes: () => [
    (require('./deals.router') as typeof dealsRouter).dealsRoutes,
    (require('./flows.router') as typeof flowsRouter).flowsRoutes,
  ],
  events: dealEvents,
});
