/* eslint-disable @typescript-eslint/no-require-imports -- routes and activities load on first use (domain/module.ts) */
import { defineModule } from '../../platform/module';
import type * as crmConnectRouter from './crm-connect.router';

export const crmConnectModule = defineModule({
  name: 'crm-connect',
  // Loaded when the API mounts them (the worker never loads the HTTP layer).
  routes: () => [(require('./crm-connect.router') as typeof crmConnectRouter).crmConnectRoutes],
});
