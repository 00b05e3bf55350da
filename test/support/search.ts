import { randomBytes } from 'node:crypto';
import type { MeiliSearch } from 'meilisearch';
import type { AppConfig } from '../../platform/config';
import { createLogger, type Logger } from '../../platform/logger';
import { createOutboxDispatcher, type OutboxDispatcher } from '../../platform/outbox/dispatcher';
import { buildSubscribers } from '../../app/subscribers';
import { createSearchIndexSubscriber } from '../../search/index-subscriber';
import { createMeiliClient } from '../../search/meili';
import type { HttpClient, TestApp } from './app';

/** A Meilisearch index prefix no other test run uses (the server is shared). */
export const uniqueIndexPrefix = (label: string): string =>
  `t_${label}_${Date.now().toString(36)}${randomBytes(3).toString('hex')}_`;

/** A Meilisearch URL where nothing listens: Meilisearch "stopped". */
export const DEAD_MEILI_URL = 'http://127.0.0.1:9';

export const testMeili = (): MeiliSearch =>
  createMeiliClient(process.env.MEILI_URL as string, process.env.MEILI_MASTER_KEY || undefined);

/**
 * An outbox dispatcher with only the search-index subscriber, for the given workspaces (not started):
 * writes reach Meilisearch the way the worker sends them. `config` replaces the app's (e.g. a Meilisearch
 * that is down); without `backoffMs` a failed delivery waits the standard retry schedule. It logs at
 * TEST_LOG_LEVEL (silent by default) unless given `log`.
 */
export function searchIndexDispatcher(
  app: TestApp,
  workspaceIds: string[],
  options: { config?: AppConfig; pollIntervalMs?: number; backoffMs?: number; log?: Logger } = {},
): OutboxDispatcher {
  const {
    config = app.config,
    pollIntervalMs,
    backoffMs,
    log = createLogger(process.env.TEST_LOG_LEVEL ?? 'silent', 'search-test'),
  } = options;
  return createOutboxDispatcher({
    pgConnectionString: app.config.databaseUrl,
    workspaceIds,
    subscribers: buildSubscribers(
      { orm: app.runtime.deps.orm, config, log, searchIndex: createSearchIndexSubscriber },
      { without: ['automations', 'contract-envelopes', 'webhooks', 'sequences'] },
    ),
    log,
    pollIntervalMs,
    ...(backoffMs === undefined ? {} : { backoff: () => backoffMs }),
  });
}

/** A started search-index dispatcher (polling every 100 ms, retrying after 100 ms). Stop it in afterAll. */
export async function startSearchIndexing(app: TestApp, workspaceIds: string[]): Promise<OutboxDispatcher> {
  const dispatcher = searchIndexDispatcher(app, workspaceIds, { pollIntervalMs: 100, backoffMs: 100 });
  await dispatcher.start();
  return dispatcher;
}

/**
 * Deletes every index under the prefix (afterAll). Pending writes finish first: a document task
 * processed after its index was deleted would create the index again.
 */
export async function deleteIndexes(client: MeiliSearch, prefix: string): Promise<void> {
  const { results } = await client.getRawIndexes({ limit: 1000 });
  const uids = results.filter((i) => i.uid.startsWith(prefix)).map((i) => i.uid);
  if (!uids.length) return;
  const pending = await client.tasks.getTasks({ indexUids: uids, statuses: ['enqueued', 'processing'], limit: 1000 });
  await client.tasks.waitForTasks(
    pending.results.map((t) => t.uid),
    { timeout: 120_000 },
  );
  await Promise.all(uids.map((uid) => client.deleteIndex(uid).waitTask({ timeout: 120_000 })));
}

/**
 * Polls GET /api/v1/search until `check` accepts a Meilisearch answer (no fixed sleeps). Degraded
 * answers are skipped: on a busy machine a search can time out and fall back to Postgres.
 */
export async function searchUntil(
  http: HttpClient,
  query: string,
  check: (body: any) => boolean = () => true,
  timeoutMs = 30_000,
): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    const res = await http.get(`/api/v1/search?${query}`);
    last = res.body;
    if (res.status === 200 && !res.body.data.degraded && check(res.body)) return res.body;
    if (Date.now() > deadline)
      throw new Error(
        `search ${query} did not satisfy the check within ${timeoutMs} ms; last answer ${JSON.stringify(last)}`,
      );
    await new Promise((r) => setTimeout(r, 25));
  }
}

export const titles = (body: any, type: string): string[] =>
  (body?.data?.results?.[type]?.hits ?? []).map((h: { title: string }) => h.title);
