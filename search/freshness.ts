/**
 * Is the index behind Postgres for a workspace? After a Meilisearch outage or restart the index
 * answers again before the outbox backlog (retried with backoff) and Meilisearch's own task queue
 * are through; answers in that window would be partial. Two signals, each with a grace period so
 * normal indexing latency does not count:
 * - outbox: the workspace has search-relevant events that the dispatcher already tried to index and
 *   that are still not delivered to the search subscriber (failed while Meilisearch was away, now
 *   waiting for their retry). Events not tried yet are ordinary indexing latency, not a fault;
 * - Meilisearch: a write to our indexes accepted longer ago than the grace is still enqueued or
 *   processing (checked at most once a second per process: the queue is shared by every workspace).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { MeiliSearch } from 'meilisearch';
import type { EventName } from '../domain/outbox/catalog';
import { SEARCH_SUBSCRIBER_NAME } from './index-subscriber';
import { indexUid, INDEXED_TYPES } from './registry';
import { affectsSearch } from './sync';

export const INDEX_LAG_GRACE_MS = 2000;
const MEILI_CHECK_CACHE_MS = 1000;
/** Undelivered events looked at per check (the oldest first). */
const OUTBOX_SAMPLE = 100;

export interface IndexFreshness {
  /** A reason when the index is behind for this workspace, else null. */
  behind(em: EntityManager, workspaceId: string): Promise<string | null>;
}

export function createIndexFreshness(opts: { client: MeiliSearch; prefix: string; graceMs?: number }): IndexFreshness {
  const graceMs = opts.graceMs ?? INDEX_LAG_GRACE_MS;
  const indexUids = INDEXED_TYPES.map((type) => indexUid(opts.prefix, type));
  let meiliChecked: { at: number; pending: Promise<boolean> } | null = null;

  const meiliQueueBehind = (): Promise<boolean> => {
    const now = Date.now();
    if (!meiliChecked || now - meiliChecked.at >= MEILI_CHECK_CACHE_MS) {
      const pending = opts.client.tasks
        .getTasks({
          statuses: ['enqueued', 'processing'],
          indexUids,
          beforeEnqueuedAt: new Date(now - graceMs).toISOString(),
          limit: 1,
        })
        .then((res) => res.results.length > 0);
      meiliChecked = { at: now, pending };
      // A failed check is not cached: the next search asks again.
      pending.catch(() => {
        if (meiliChecked?.pending === pending) meiliChecked = null;
      });
    }
    return meiliChecked.pending;
  };

  const outboxBehind = async (em: EntityManager, workspaceId: string): Promise<boolean> => {
    const rows = await em
      .getConnection()
      .execute<{ type: string; entity_type: string; payload: Record<string, unknown> }[]>(
        // In flight after a crashed attempt, or failed to index and parked for a retry (outbox_delivery).
        `(select type, entity_type, payload from outbox_event
          where workspace_id = ? and processed_at is null and attempts > 0 and not (? = any(delivered_to)) and occurred_at < ?
          order by id limit ${OUTBOX_SAMPLE})
        union all
        (select type, entity_type, payload from outbox_delivery
          where workspace_id = ? and status = 'pending' and subscriber = ? and occurred_at < ?
          order by outbox_id limit ${OUTBOX_SAMPLE})`,
        [
          workspaceId,
          SEARCH_SUBSCRIBER_NAME,
          new Date(Date.now() - graceMs),
          workspaceId,
          SEARCH_SUBSCRIBER_NAME,
          new Date(Date.now() - graceMs),
        ],
      );
    // Rows written by emit()/outboxRow(), which accept declared names only.
    return rows.some((r) =>
      affectsSearch({ type: r.type as EventName, entityType: r.entity_type, payload: r.payload }),
    );
  };

  return {
    async behind(em, workspaceId) {
      const [outbox, queue] = await Promise.all([outboxBehind(em, workspaceId), meiliQueueBehind()]);
      if (outbox) return 'changes of this workspace failed to index and wait for their retry';
      if (queue) return 'Meilisearch has not applied recent writes yet';
      return null;
    },
  };
}
