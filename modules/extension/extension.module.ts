/* eslint-disable @typescript-eslint/no-require-imports -- routes and activities load on first use (domain/module.ts) */
import { defineModule } from '../../platform/module';
import { ExtensionContribution, ExtensionObservation } from './extension.entity';
import type * as extensionRouter from './extension.router';
import type * as extensionCapturesRouter from './extension-captures.router';
import { extensionEvents } from './extension.events';

/** The browser extension and its captures. */
export const extensionModule = defineModule({
  name: 'extension',
  // Tenant rows without a manifest (no GET /:id of their own).
  entities: { tenant: [ExtensionContribution, ExtensionObservation] },
  // Loaded when the API mounts them (the worker never loads the HTTP layer).
  routes: () => [
    (require('./extension.router') as typeof extensionRouter).extensionRoutes,
    (require('./extension-captures.router') as typeof extensionCapturesRouter).extensionCapturesRoutes,
  ],
  events: extensionEvents,
});
