/* eslint-disable @typescript-eslint/no-require-imports -- routes and activities load on first use (domain/module.ts) */
import { defineModule } from '../../platform/module';
import type * as outboxAdminRouter from './outbox-admin.router';

/** Operator views of the outbox (its dispatcher and subscriber registry are platform: domain/outbox/subscribers.ts). */
export const outboxModule = defineModule({
  name: 'outbox',
  // Loaded when the API mounts them (the worker never loads the HTTP layer).
  routes: () => [(require('./outbox-admin.router') as typeof outboxAdminRouter).outboxAdminRoutes],
});
