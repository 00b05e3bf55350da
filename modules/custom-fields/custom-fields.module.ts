/* eslint-disable @typescript-eslint/no-require-imports -- routes and activities load on first use (domain/module.ts) */
import { defineModule } from '../../platform/module';
import type * as customFieldsRouter from './custom-fields.router';
import { customFieldResource } from './custom-fields.resource';
import { customFieldEvents } from './custom-fields.events';

export const customFieldsModule = defineModule({
  name: 'custom-fields',
  resources: [customFieldResource],
  // Loaded when the API mounts them (the worker never loads the HTTP layer).
  routes: () => [(require('./custom-fields.router') as typeof customFieldsRouter).customFieldsRoutes],
  events: customFieldEvents,
});
