import type { MikroORM } from '@mikro-orm/postgresql';
import type { AppConfig } from '../platform/config';
import type { Logger } from '../platform/logger';
import type { OutboxEventRecord, Subscriber } from '../platform/outbox/subscriber';
import { createMeiliClient } from './meili';
import { ensureIndexes } from './settings';
import { affectsSearch, assertTasksSucceeded, syncEvents } from './sync';

/** Recorded in outbox_event.delivered_to: never rename. */
export const SEARCH_SUBSCRIBER_NAME = 'search-index';

export interface SearchIndexerOptions {
  /** Also wait until Meilisearch applied each batch before acknowledging it (default false). */
  waitForTasks?: boolean;
  taskTimeoutMs?: number;
}

/**
 * Keeps the indexes in sync with Postgres. Each claimed outbox batch is one sync: it re-reads its records from
 * Postgres (never the event payload) and writes each index once. Its events count as delivered
 * once Meilisearch accepted the writes: accepted tasks are persisted in Meilisearch's queue and
 * applied in order. Any failure before that (Meilisearch down, Postgres error) fails every event
 * of the batch and the dispatcher retries them with backoff.
 */
export function createSearchIndexSubscriber(
  deps: { orm: MikroORM; config: AppConfig; log: Logger },
  opts: SearchIndexerOptions = {},
): Subscriber {
  const { config } = deps;
  const log = deps.log.child({ component: 'search-index' });
  const client = createMeiliClient(config.meiliUrl, config.meiliMasterKey, { timeoutMs: 10_000 });
  const syncDeps = { em: deps.orm.em, client, prefix: config.meiliIndexPrefix, taskTimeoutMs: opts.taskTimeoutMs };

  // Settings go on before the first document (an index created by a document write has none).
  let ready: Promise<void> | null = null;
  const ensureReady = (): Promise<void> =>
    (ready ??= ensureIndexes(client, config.meiliIndexPrefix).catch((err: unknown) => {
      ready = null;
      throw err;
    }));

  const sync = async (events: OutboxEventRecord[]): Promise<void> => {
    const started = Date.now();
    await ensureReady();
    const written = await syncEvents(syncDeps, events, { waitForTasks: opts.waitForTasks });
    log.debug(
      { events: events.length, upserted: written.upserted, deleted: written.deleted, ms: Date.now() - started },
      'search batch accepted',
    );
    if (!opts.waitForTasks && written.taskUids.length) {
      // Our documents are well-formed, so a failed task is a bug, not a transient fault: say so loudly.
      // Polled once a second: nothing waits on it, and at 50 ms one poller per batch took a
      // noticeable share of the worker's CPU during a backlog (bench:webhooks profile).
      assertTasksSucceeded(client, written.taskUids, 10 * 60_000, 1000).catch((err: unknown) =>
        log.error(
          { err: err instanceof Error ? err.message : String(err), eventIds: events.map((e) => e.eventId) },
          'search index write was not applied; run `crm search reindex`',
        ),
      );
    }
  };

  return {
    name: SEARCH_SUBSCRIBER_NAME,
    handles: affectsSearch,
    handleBatch: sync,
  };
}
