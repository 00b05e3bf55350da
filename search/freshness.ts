/**
 * Is the index behind Postgres for a workspace? After a Meilisearch outage or restart the index
 * answers again before the outbox backlog (retried with backoff) and Meilisearch's own task queue
 * are through; answers in that window would be partial. Two signals, each with a grace period so
 * normal indexing latency does not count:
 * - outbox: the workspace has search-relevant events that the dispatcher already tried to index and
 *   that are still not delivered to the search subscriber (failed while Meilisearch was away, now
 *   waiting for their retry). Events not tried yet are ordinary indexing latency, not a fault;
 * - Meilisearch: a write to our indexes accepted longer ago than the grace is still enqueued or
 *   processing (checked at most once a second per process: the queue is shared by every workspace;
 *   while a check is renewed, searches take the previous answer if it is under 5 s old).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { MeiliSearch } from 'meilisearch';
import type { EventName } from '../platform/outbox/catalog';
import { SEARCH_SUBSCRIBER_NAME } from './index-subscriber';
import { indexUid, INDEXED_TYPES } from './registry';
import { affectsSearch } from './sync';

export const INDEX_LAG_GRACE_MS = 2000;
const MEILI_CHECK_CACHE_MS = 1000;
/** Longest a Meilisearch check answers searches while the next one is under way. */
const MEILI_CHECK_MAX_STALE_MS = 5000;
const INDEX_UIDS = (prefix: string): string[] => INDEXED_TYPES.map((type) => indexUid(prefix, type));
/** Undelivered events looked at per check (the oldest first). */
const OUTBOX_SAMPLE = 100;

export interface IndexFreshness {
  /** A reason when the index is behind for this workspace, else null. */
  behind(em: EntityManager, workspaceId: string): Promise<string | null>;
}

export function createIndexFreshness(opts: { client: MeiliSearch; prefix: string; graceMs?: number }): IndexFreshness {
  const graceMs = opts.graceMs ?? INDEX_LAG_GRACE_MS;
  const indexUids = INDEX_UIDS(opts.prefix);
  // The last answer and when its check was sent; the check under way, if any.
  let known: { at: number; behind: boolean } | null = null;
  let checking: Promise<boolean> | null = null;

  const check = (now: number): Promise<boolean> => {
    if (checking) return checking;
    const pending = opts.client.tasks
      .getTasks({
        statuses: ['enqueued', 'processing'],
        indexUids,
        beforeEnqueuedAt: new Date(now - graceMs).toISOString(),
        limit: 1,
      })
      .then((res) => res.results.length > 0);
    checking = pending;
    // A failed check is not kept: the next search asks again (and waits for it if nothing recent is known).
    const settle = (): void => {
      if (checking === pending) checking = null;
    };
    pending.then((behind) => {
      settle();
      if (!known || known.at <= now) known = { at: now, behind };
    }, settle);
    return pending;
  };

  // Searches wait for the check only when no answer is recent enough: a search arriving while a check
  // older than a second is being renewed takes the last answer (Meilisearch's task list can take tens
  // of ms to answer under load; every search that waited for it was the slow tail of the route).
  const meiliQueueBehind = (): Promise<boolean> => {
    const now = Date.now();
    const age = known ? now - known.at : Infinity;
    if (age < MEILI_CHECK_CACHE_MS) return Promise.resolve(known!.behind);
    const pending = check(now);
    if (age < MEILI_CHECK_MAX_STALE_MS) {
      pending.catch(() => undefined);
      return Promise.resolve(known!.behind);
    }
    return pending;
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
