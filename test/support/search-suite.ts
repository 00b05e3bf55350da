// The set-up of the search test files: writes reach Meilisearch through the outbox, under an index
// prefix of the file's own (the Meilisearch server is shared).
import type { OutboxDispatcher } from '../../platform/outbox/dispatcher';
import { startTestApp, type Tenant, type TestApp } from './app';
import { DEAD_MEILI_URL, deleteIndexes, startSearchIndexing, testMeili } from './search';

/**
 * Before the file's tests: starts the app with its search indexes under `prefix` and hands it to `set`;
 * after them: stops it and deletes the indexes under `prefix`. No dispatcher: the test drives indexing.
 */
export function withSearchApp(prefix: string, set: (app: TestApp) => void): void {
  let app: TestApp | undefined;
  beforeAll(async () => {
    app = await startTestApp({ MEILI_INDEX_PREFIX: prefix });
    set(app);
  });
  afterAll(async () => {
    await app?.close();
    await deleteIndexes(testMeili(), prefix);
  });
}

export interface SearchSuite {
  /** The app, its search indexes under the file's prefix. */
  app: TestApp;
  /** The same app with Meilisearch "stopped" (a port where nothing listens); only with `dead: true`. */
  dead: TestApp;
  /** Two workspaces, the second to prove isolation. */
  a: Tenant;
  b: Tenant;
}

/**
 * Before the file's tests: starts the app (indexes under `prefix`), with `dead` a second one whose
 * Meilisearch is down, the two named tenants, and a dispatcher that carries their writes to Meilisearch;
 * hands them to `set`. After them: stops all and deletes the indexes under `prefix`.
 */
export function withSearchIndexing(
  prefix: string,
  tenants: [string, string],
  set: (s: SearchSuite) => void,
  options: { dead?: boolean } = {},
): void {
  let app: TestApp | undefined;
  let dead: TestApp | undefined;
  let dispatcher: OutboxDispatcher | undefined;
  beforeAll(async () => {
    app = await startTestApp({ MEILI_INDEX_PREFIX: prefix });
    if (options.dead) dead = await startTestApp({ MEILI_INDEX_PREFIX: prefix, MEILI_URL: DEAD_MEILI_URL });
    const [a, b] = await Promise.all(tenants.map((name) => app!.tenant(name)));
    dispatcher = await startSearchIndexing(app, [a!.workspaceId, b!.workspaceId]);
    set({ app, dead: dead as TestApp, a: a!, b: b! });
  });
  afterAll(async () => {
    await dispatcher?.stop();
    await Promise.all([app?.close(), dead?.close()]);
    await deleteIndexes(testMeili(), prefix);
  });
}
