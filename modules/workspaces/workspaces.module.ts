/* eslint-disable @typescript-eslint/no-require-imports -- routes and activities load on first use (domain/module.ts) */
import { defineModule } from '../../platform/module';
import type * as systemRouter from './system.router';
import { ApiKey } from './api-key.entity';
import { RateLimitWindow } from './rate-limit-window.entity';
import { Workspace } from './workspace.entity';
import type { ActorCache } from './authenticate';

// Declaration merging: platform names no module.
declare module '../../platform/http/app-deps' {
  interface AppDeps {
    /** API-key lookups cached in this process, emptied by NOTIFY (key-cache.ts); none: no cache. */
    keyCache?: ActorCache;
  }
}

/** The workspace itself: health, readiness and the caller (system routes). */
export const workspacesModule = defineModule({
  name: 'workspaces',
  // Looked up before a workspace is known (auth, rate limits).
  entities: { global: [Workspace, ApiKey, RateLimitWindow] },
  // Loaded when the API mounts them (the worker never loads the HTTP layer).
  routes: () => [(require('./system.router') as typeof systemRouter).systemRoutes],
});
