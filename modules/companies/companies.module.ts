/* eslint-disable @typescript-eslint/no-require-imports -- routes and activities load on first use (domain/module.ts) */
import { defineModule } from '../../platform/module';
import type * as companiesRouter from './companies.router';
import { companyResource } from './companies.resource';
import { companyEvents } from './companies.events';
import type { ImageResolver } from './companies.service';
import type { CompanyRelations } from './relations';

// Declaration merging: platform names no module.
declare module '../../platform/http/app-deps' {
  interface AppDeps {
    /** Image fields (companies, people, custom objects, imports, lookups) re-hosted in the workspace image store. */
    images: ImageResolver;
  }
}

/** `related`: what the company routes show of people and deals (relations.ts), given by the composition. */
export const companiesModule = (related: CompanyRelations) =>
  defineModule({
    name: 'companies',
    resources: [companyResource],
    // Loaded when the API mounts them (the worker never loads the HTTP layer).
    routes: () => [(require('./companies.router') as typeof companiesRouter).companiesRoutesWith(related)],

    events: companyEvents,
  });
