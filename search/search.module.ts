/* eslint-disable @typescript-eslint/no-require-imports -- routes and activities load on first use (domain/module.ts) */
import { defineModule } from '../platform/module';
import { portedSubscriberGroup } from '../platform/outbox/subscriber-groups';
import type * as searchRouter from './search.router';

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
