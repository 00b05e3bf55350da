/* eslint-disable @typescript-eslint/no-require-imports -- routes and activities load on first use (domain/module.ts) */
import { defineModule } from '../../platform/module';
import type * as agentsRouter from './agents.router';
import { agentResource } from './agents.resource';
import { agentEvents } from './agents.events';

export const agentsModule = defineModule({
  name: 'agents',
  resources: [agentResource],
  // Loaded when the API mounts them (the worker never loads the HTTP layer).
  routes: () => [(require('./agents.router') as typeof agentsRouter).agentsRoutes],
  events: agentEvents,
});
