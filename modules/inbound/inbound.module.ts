/* eslint-disable @typescript-eslint/no-require-imports -- routes and activities load on first use (domain/module.ts) */
import { defineModule } from '../../platform/module';
import type * as inboundRouter from './inbound.router';

export const inboundModule = defineModule({
  name: 'inbound',
  // Loaded when the API mounts them (the worker never loads the HTTP layer).
  routes: () => [(require('./inbound.router') as typeof inboundRouter).inboundRoutes],
});
