/** Handing claimed events to one subscriber, and writing its successes ahead of a slow batch (dispatcher.ts). */
import type { Pool } from 'pg';
import type { Logger } from '../logger';
import { mapLimited } from '../shared/concurrency';
import { isPermanentFailure, type BatchFailures, type OutboxEventRecord, type Subscriber } from './subscriber';

/** How long a batch may stay busy before the successes of its finished subscribers are written ahead of its outcome. */
const MARK_AHEAD_MS = 250;

export const errorMessage = (err: unknown): string => (err instanceof Error ? err.message : String(err)).slice(0, 2000);

/** What one claimed event's delivery to every subscriber came to (the dispatcher's outcome statement). */
export interface Outcome {
  /** Subscribers that succeeded in this attempt. */
  delivered: string[];
  errors: string[];
  /** Subscribers that failed: their delivery is parked (permanent: failed at once). */
  failures: Array<{ subscriber: string; error: string; permanent: boolean }>;
  /** Subscribers with an earlier delivery of this record parked: this one queues behind it. */
  queued: string[];
  /** Set for events dead-lettered before delivery (attempts beyond maxAttempts). */
  deadLetter?: string;
}

export function failOutcome(out: Outcome, subscriber: string, err: unknown): void {
  const error = errorMessage(err);
  out.errors.push(`${subscriber}: ${error}`);
  out.failures.push({ subscriber, error, permanent: isPermanentFailure(err) });
}

/** Calls the subscriber (as one batch, or per event with `concurrency` lanes) and reports each event. */
export async function handOver(
  subscriber: Subscriber,
  pending: OutboxEventRecord[],
  concurrency: number,
  fail: (e: OutboxEventRecord, err: unknown) => void,
  succeed: (e: OutboxEventRecord) => void,
): Promise<void> {
  if (subscriber.handleBatch) {
    let failures: BatchFailures | void;
    try {
      failures = await subscriber.handleBatch(pending);
    } catch (err) {
      for (const event of pending) fail(event, err);
      return;
    }
    for (const event of pending) {
      if (failures?.has(event.id)) fail(event, failures.get(event.id));
      else succeed(event);
    }
    return;
  }
  const handle = subscriber.handle!;
  await mapLimited(pending, concurrency, async (event) => {
    try {
      await handle.call(subscriber, event);
      succeed(event);
    } catch (err) {
      fail(event, err);
    }
  });
}

export interface BatchMarks {
  add(subscriber: string, rowIds: string[]): void;
  /** Before the outcome statement: drops what is not written yet, waits for what is being written. */
  settle(): Promise<void>;
}

async function markDelivered(pool: Pool, dispatcherId: string, rowIds: string[], subscriber: string): Promise<void> {
  await pool.query(
    `update outbox_event set delivered_to = array_append(delivered_to, $3)
     where id = any($1::bigint[]) and locked_by = $2 and processed_at is null and not ($3 = any(delivered_to))`,
    [rowIds, dispatcherId, subscriber],
  );
}

/**
 * A subscriber's successes while another subscriber of the batch is still busy: written ahead of
 * the batch's outcome if the batch is still busy MARK_AHEAD_MS later, so a crash while a slow
 * subscriber holds the batch does not hand the events to this subscriber again. A batch that ends
 * sooner (nearly all) writes them with its outcome, one statement instead of one per subscriber.
 */
export function batchMarks(pool: Pool, dispatcherId: string, log: Logger): BatchMarks {
  const pending = new Map<string, string[]>();
  let timer: NodeJS.Timeout | null = null;
  let writing: Promise<unknown> = Promise.resolve();
  const flush = (): void => {
    timer = null;
    const due = [...pending];
    pending.clear();
    writing = Promise.all([
      writing,
      ...due.map(([subscriber, rowIds]) => markDelivered(pool, dispatcherId, rowIds, subscriber)),
    ]).catch((err: unknown) =>
      log.warn({ err: errorMessage(err) }, 'outbox: recording a subscriber success ahead failed'),
    );
  };
  return {
    add(subscriber, rowIds) {
      pending.set(subscriber, [...(pending.get(subscriber) ?? []), ...rowIds]);
      timer ??= setTimeout(flush, MARK_AHEAD_MS);
    },
    async settle() {
      if (timer) clearTimeout(timer);
      timer = null;
      pending.clear();
      await writing;
    },
  };
}

/** Renews a lease (`sql` with `params`) every third of leaseMs until the returned timer is cleared. */
export function keepLeased(
  pool: Pool,
  sql: string,
  params: unknown[],
  leaseMs: number,
  onError: (err: Error) => void,
): NodeJS.Timeout {
  const timer = setInterval(() => void pool.query(sql, params).catch(onError), Math.max(50, Math.floor(leaseMs / 3)));
  timer.unref();
  return timer;
}
