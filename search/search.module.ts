/* eslint-disable @typescript-eslint/no-require-imports -- routes and activities load on first use (domain/module.ts) */
import { defineModule } from '../platform/module';
import { portedSubscriberGroup } from '../platform/outbox/subscriber-groups';
import type * as searchRouter from './search.router';
import type { SearchService } from './search.service';
import type { CustomObjectSearch } from './custom-objects';

// Declaration merging: platform names no module.
declare module '../platform/http/app-deps' {
  interface AppDeps {
    /** `GET /search` over Meilisearch (short timeout; degraded answers from Postgres). */
    search: SearchService;
    /** Custom object record search over Meilisearch (same client and freshness check as `search`). */
    customObjectSearch: CustomObjectSearch;
  }
}

/**
 * Cross-record search (`GET /search`) and the Meilisearch indexer. The indexer is a port (`searchIndex`, given by the
 * worker as search/index-subscriber.ts's createSearchIndexSubscriber) so that runs without Meilisearch can leave it
 * out by name.
 */
export const searchModule = defineModule({
  name: 'search',
  // Loaded when the API mounts them (the worker never loads the HTTP layer).
  routes: () => [(require('./search.router') as typeof searchRouter).searchRoutes],
  subscribers: [
    portedSubscriberGroup('search-index', 'searchIndex', ['search-index'], (deps, searchIndex) => [searchIndex(deps)]),
  ],
});
