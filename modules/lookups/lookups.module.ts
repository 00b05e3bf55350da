/* eslint-disable @typescript-eslint/no-require-imports -- routes and activities load on first use (domain/module.ts) */
import { defineModule } from '../../platform/module';
import type * as lookupsRouter from './lookups.router';
import type { CompanyRegistry } from '../../platform/ports/registry.port';
import { lookupEnv } from './settings';

// Declaration merging: platform names no module.
declare module '../../platform/http/app-deps' {
  interface AppDeps {
    /** The company registry (CVR_API_*) behind the lookups routes. */
    registry: CompanyRegistry;
  }
}

/** Company registry and public web lookups. */
export const lookupsModule = defineModule({
  name: 'lookups',
  // Loaded when the API mounts them (the worker never loads the HTTP layer).
  routes: () => [(require('./lookups.router') as typeof lookupsRouter).lookupsRoutes],
  settings: { section: 'lookups', load: lookupEnv },
});
