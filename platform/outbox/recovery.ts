/**
 * Parked deliveries go again when their service is back, not at their next scheduled retry. The retry
 * schedule of a parked delivery (deliveries.ts) backs off to 5 minutes after its second failure and to
 * hours later on; a mail server that was down for 30 seconds would hold a booking's e-mails for minutes.
 * So when a subscriber delivers an event of a workspace (first attempt or parked retry), its parked
 * deliveries of that workspace that wait for a later retry are made due now: the service they failed on
 * (the workspace's mailbox, Temporal, …) has just worked for a sibling.
 *
 * Such an early attempt is free: `attempts` goes back by one, so if it fails again (a failure of that
 * delivery alone, e.g. one recipient's server) the row keeps its place in the schedule and does not run
 * out of attempts early. Bounds: a pair is released at most every `minIntervalMs` per process, a row only
 * when its last attempt is 30 s old (a delivery that fails alone is tried at most twice a minute extra),
 * and only rows parked less than a day ago (after that the schedule alone decides, so a delivery that
 * never works still ends `failed`).
 */
import type { Pool } from 'pg';
import type { Logger } from '../logger';

/** Pending parked rows of one subscriber and workspace made due now. Params: $1 workspace, $2 subscriber. */
export const RELEASE_PARKED_SQL = `
  update outbox_delivery set next_attempt_at = now(), attempts = greatest(attempts - 1, 0), updated_at = now()
  where workspace_id = $1 and subscriber = $2 and status = 'pending' and attempts > 0
    and next_attempt_at > now() + interval '1 second' and last_attempt_at < now() - interval '30 seconds'
    and (locked_until is null or locked_until <= now())
    and created_at > now() - interval '1 day'`;

/** (subscriber, workspace) pairs with parked rows not given up (bounded). */
export const WAITING_PARKED_SQL = `
  select distinct subscriber, workspace_id from outbox_delivery
  where status = 'pending' and attempts > 0
  limit 10000`;

export const RECOVERY_INTERVAL_MS = 10_000;

export interface RecoveryRelease {
  /** `subscriber` just delivered an event of `workspaceId`. */
  delivered(subscriber: string, workspaceId: string): void;
  /** This process parked a delivery of `subscriber` in `workspaceId` (known before the next read). */
  parked(subscriber: string, workspaceId: string): void;
  /** Resolves when the reads and releases started so far have finished (tests). */
  settled(): Promise<void>;
  /** No more reads or releases (before the pool ends). */
  close(): void;
}

const keyOf = (subscriber: string, workspaceId: string): string => `${subscriber}\u0000${workspaceId}`;

/**
 * Costs no statement per delivery: which pairs have parked rows is read at most every `minIntervalMs`
 * (one query), and a release runs only for a pair in that set. A pair that delivered but was not in the
 * set (parked by another process since the last read) is checked again at the next read, which such a
 * delivery schedules.
 */
export function createRecoveryRelease(opts: {
  pool: Pool;
  log: Logger;
  /** Called with the number of rows made due (> 0): wake the parked runner. */
  onReleased(count: number): void;
  minIntervalMs?: number;
}): RecoveryRelease {
  const minInterval = opts.minIntervalMs ?? RECOVERY_INTERVAL_MS;
  const lastRelease = new Map<string, number>();
  let waiting = new Set<string>();
  let readAt = -Infinity;
  let reading = false;
  let timer: NodeJS.Timeout | null = null;
  let closed = false;
  /** Pairs that delivered while not known to wait: checked at the next read. */
  let unknown = new Set<string>();
  /** Pairs parked here while a read was under way (the read may have missed them). */
  const parkedDuringRead = new Set<string>();
  const inFlight = new Set<Promise<unknown>>();
  const track = (p: Promise<unknown>): void => {
    const q = p.finally(() => inFlight.delete(q));
    inFlight.add(q);
  };

  const release = (key: string): void => {
    const [subscriber, workspaceId] = key.split('\u0000') as [string, string];
    if (lastRelease.size > 10_000) lastRelease.clear();
    lastRelease.set(key, Date.now());
    track(
      opts.pool
        .query(RELEASE_PARKED_SQL, [workspaceId, subscriber])
        .then((res) => {
          // Nothing releasable now: forget the pair until a read finds it again.
          if (!res.rowCount) waiting.delete(key);
          else {
            opts.log.info({ subscriber, workspaceId, released: res.rowCount }, 'outbox: parked deliveries released');
            opts.onReleased(res.rowCount);
          }
        })
        .catch((err: unknown) =>
          opts.log.warn({ err: (err as Error).message, subscriber }, 'outbox: releasing parked deliveries failed'),
        ),
    );
  };
  /** Pairs whose release waits out minIntervalMs (a delivery came too soon after the last release). */
  const deferred = new Map<string, NodeJS.Timeout>();
  const maybeRelease = (key: string): void => {
    if (closed || !waiting.has(key) || deferred.has(key)) return;
    const wait = (lastRelease.get(key) ?? -Infinity) + minInterval - Date.now();
    if (wait <= 0) return release(key);
    const t = setTimeout(() => {
      deferred.delete(key);
      maybeRelease(key);
    }, wait);
    t.unref();
    deferred.set(key, t);
  };

  const read = (): void => {
    timer = null;
    if (closed) return;
    reading = true;
    readAt = Date.now();
    const check = unknown;
    unknown = new Set();
    track(
      opts.pool
        .query<{ subscriber: string; workspace_id: string }>(WAITING_PARKED_SQL)
        .then((res) => {
          waiting = new Set(res.rows.map((r) => keyOf(r.subscriber, r.workspace_id)));
        })
        .catch((err: unknown) =>
          opts.log.warn({ err: (err as Error).message }, 'outbox: reading parked deliveries failed'),
        )
        .finally(() => {
          reading = false;
          for (const key of parkedDuringRead) waiting.add(key);
          parkedDuringRead.clear();
          for (const key of [...check, ...unknown]) maybeRelease(key);
          for (const key of unknown) if (waiting.has(key)) unknown.delete(key);
          if (unknown.size) schedule();
        }),
    );
  };
  const schedule = (): void => {
    if (reading || timer || closed) return;
    timer = setTimeout(read, Math.max(0, readAt + minInterval - Date.now()));
    timer.unref();
  };

  return {
    delivered(subscriber, workspaceId) {
      const key = keyOf(subscriber, workspaceId);
      if (waiting.has(key)) return maybeRelease(key);
      unknown.add(key);
      schedule();
    },
    parked(subscriber, workspaceId) {
      const key = keyOf(subscriber, workspaceId);
      waiting.add(key);
      if (reading) parkedDuringRead.add(key);
    },
    async settled() {
      while (inFlight.size) await Promise.all([...inFlight]);
    },
    close() {
      closed = true;
      if (timer) clearTimeout(timer);
      timer = null;
      for (const t of deferred.values()) clearTimeout(t);
      deferred.clear();
    },
  };
}
