/* eslint-disable @typescript-eslint/no-require-imports -- routes and activities load on first use (domain/module.ts) */
import { defineModule } from '../module';
import type * as outboxAdminRouter from '../../api/routes/outbox-admin.router';

/** Operator views of the outbox (its dispatcher and subscriber registry are platform: domain/outbox/subscribers.ts). */
export const outboxModule = defineModule({
  name: 'outbox',
  // Loaded when the API mounts them (the worker never loads the HTTP layer).
  routes: () => [(require('../../api/routes/outbox-admin.router') as typeof outboxAdminRouter).outboxAdminRoutes],
});
