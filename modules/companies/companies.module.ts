/* eslint-disable @typescript-eslint/no-require-imports -- routes and activities load on first use (domain/module.ts) */
import { defineModule } from '../../platform/module';
import type * as companiesRouter from './companies.router';
import { companyResource } from './companies.resource';
import { companyEvents } from './companies.events';

export const companiesModule = defineModule({
  name: 'companies',
  resources: [companyResource],
  // Loaded when the API mounts them (the worker never loads the HTTP layer).
  routes: () => [(require('./companies.router') as typeof companiesRouter).companiesRoutes],
  events: companyEvents,
});
