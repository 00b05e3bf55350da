/**
 * Parked deliveries (outbox_delivery): when subscriber S fails on event E, (E, S) is parked here in
 * the statement that marks E processed for everyone else; S's later events of the same record are
 * appended behind it (queued) instead of being handed over. This runner retries them in order per
 * (record, subscriber) with the dispatcher's backoff; a delivered row is deleted, one that runs out
 * of attempts or fails permanently stays as `failed` for operators (admin endpoint, `crm outbox`).
 */
import type { Pool } from 'pg';
import type { Logger } from '../logger';
import { mapLimited } from '../shared/concurrency';
import type { Backoff } from './backoff';
import { newId } from '../ids';
import { errorMessage, keepLeased } from './handover';
import { eventOf, type EventColumns } from './outbox.sql';
import { claimParkedSql, PARKED_OUTCOME_SQL, RENEW_PARKED_SQL, type ParkRow } from './deliveries.sql';
import { isPermanentFailure, type OutboxEventRecord, type Subscriber } from './subscriber';

export { RECORD_WITH_PARKED_SQL, type ParkRow } from './deliveries.sql';

export interface ParkedOptions {
  pool: Pool;
  dispatcherId: string;
  subscribers: readonly Subscriber[];
  log: Logger;
  leaseMs: number;
  batchSize: number;
  concurrency: number;
  backoff: Backoff;
  /** After this many attempts a delivery is `failed`; undefined: retried forever. */
  maxAttempts?: number;
  workspaceIds: readonly string[] | null;
  /** loop(): how often it looks for due rows when nothing woke it (the dispatcher's poll interval). */
  pollIntervalMs: number;
  /** A parked row was delivered (recovery.ts releases its siblings). */
  onDelivered?(subscriber: string, workspaceId: string): void;
}

export interface ParkedPass {
  claimed: number;
  delivered: number;
  failed: number;
  /** Earliest next attempt written by this pass (ms epoch), if any. */
  nextAt?: number;
}

export interface ParkedRunner {
  /** One pass: claims due queue heads, delivers them, writes their outcomes. */
  runOnce(): Promise<ParkedPass>;
  /** Passes until stop(): at the rows' due times, every pollIntervalMs, or at once when woken. */
  loop(): Promise<void>;
  /** Something is due in `delayMs` (0: look now). */
  wake(delayMs: number): void;
  /** Ends loop() after its current pass. */
  stop(): void;
}

interface DeliveryRow extends EventColumns {
  id: string;
  subscriber: string;
  outbox_id: string;
}

const toEvent = (r: DeliveryRow): OutboxEventRecord => eventOf(r, r.outbox_id);

/** What the outcome of one parked attempt writes: deleted when ok, else retried after delay_ms or failed. */
interface ParkedOutcome {
  id: string;
  ok: boolean;
  failed: boolean;
  error: string | null;
  delay_ms: number;
}

export function createParkedRunner(opts: ParkedOptions): ParkedRunner {
  const byName = new Map(opts.subscribers.map((s) => [s.name, s]));
  const names = [...byName.keys()];

  async function claim(): Promise<DeliveryRow[]> {
    const params: unknown[] = [opts.dispatcherId, opts.leaseMs, opts.batchSize, names];
    if (opts.workspaceIds) params.push([...opts.workspaceIds]);
    const res = await opts.pool.query<DeliveryRow>(claimParkedSql(Boolean(opts.workspaceIds)), params);
    return res.rows;
  }

  /** Hands one subscriber its claimed rows (at most one per record); records each row's outcome. */
  async function deliver(subscriber: Subscriber, rows: DeliveryRow[], out: ParkedOutcome[]): Promise<void> {
    const outcome = (row: DeliveryRow, err: unknown | null): void => {
      if (err === null) return void out.push({ id: row.id, ok: true, failed: false, error: null, delay_ms: 0 });
      const gaveUp = isPermanentFailure(err) || (opts.maxAttempts !== undefined && row.attempts >= opts.maxAttempts);
      out.push({
        id: row.id,
        ok: false,
        failed: gaveUp,
        error: errorMessage(err),
        delay_ms: gaveUp ? 0 : Math.max(0, Math.round(opts.backoff(row.attempts))),
      });
    };
    if (subscriber.handleBatch) {
      try {
        const failures = await subscriber.handleBatch(rows.map(toEvent));
        for (const row of rows)
          outcome(row, failures?.has(String(row.outbox_id)) ? failures.get(String(row.outbox_id)) : null);
      } catch (err) {
        for (const row of rows) outcome(row, err ?? new Error('failed'));
      }
      return;
    }
    await mapLimited(rows, opts.concurrency, async (row) => {
      try {
        await subscriber.handle!(toEvent(row));
        outcome(row, null);
      } catch (err) {
        outcome(row, err ?? new Error('failed'));
      }
    });
  }

  async function record(out: ParkedOutcome[]): Promise<void> {
    await opts.pool.query(PARKED_OUTCOME_SQL, [opts.dispatcherId, JSON.stringify(out)]);
  }

  async function runOnce(): Promise<ParkedPass> {
    const rows = await claim();
    const pass: ParkedPass = { claimed: rows.length, delivered: 0, failed: 0 };
    if (!rows.length) return pass;
    const ids = rows.map((r) => r.id);
    const renew = keepLeased(opts.pool, RENEW_PARKED_SQL, [opts.dispatcherId, opts.leaseMs, ids], opts.leaseMs, (err) =>
      opts.log.warn({ err: err.message }, 'outbox: parked lease renewal failed'),
    );
    const out: ParkedOutcome[] = [];
    try {
      const groups = new Map<string, DeliveryRow[]>();
      for (const r of rows) groups.set(r.subscriber, [...(groups.get(r.subscriber) ?? []), r]);
      await Promise.all([...groups].map(([name, list]) => deliver(byName.get(name)!, list, out)));
      await record(out);
    } finally {
      clearInterval(renew);
    }
    const now = Date.now();
    const rowById = new Map(rows.map((r) => [r.id, r]));
    for (const o of out) {
      if (o.ok) {
        pass.delivered += 1;
        const r = rowById.get(o.id)!;
        opts.onDelivered?.(r.subscriber, r.workspace_id);
      } else {
        pass.failed += 1;
        if (!o.failed) pass.nextAt = Math.min(pass.nextAt ?? Infinity, now + o.delay_ms);
      }
    }
    const failedRows = out.filter((o) => !o.ok);
    if (failedRows.length) {
      for (const o of failedRows) {
        const r = rowById.get(o.id)!;
        const fields = { deliveryId: o.id, subscriber: r.subscriber, eventId: r.event_id, attempts: r.attempts };
        if (o.failed) opts.log.error({ ...fields, error: o.error }, 'outbox delivery failed for good');
        else opts.log.warn({ ...fields, retryInMs: o.delay_ms, error: o.error }, 'outbox delivery failed; will retry');
      }
    }
    return pass;
  }

  let running = false;
  /** When to look next (ms epoch); loop() also polls every pollIntervalMs. */
  let nextAt = Infinity;
  let wakeNow: (() => void) | null = null;

  async function loop(): Promise<void> {
    running = true;
    while (running) {
      let again = false;
      try {
        const r = await runOnce();
        if (r.nextAt !== undefined) nextAt = Math.min(nextAt, r.nextAt);
        // A delivered head lets the next row of its queue go at once.
        again = r.delivered > 0 || r.claimed >= opts.batchSize;
      } catch (err) {
        opts.log.error({ err: errorMessage(err) }, 'outbox: parked deliveries pass failed');
      }
      if (!running) break;
      if (again) continue;
      const wait = Math.max(0, Math.min(opts.pollIntervalMs, nextAt - Date.now()));
      await new Promise<void>((resolve) => {
        const done = (): void => {
          clearTimeout(timer);
          wakeNow = null;
          resolve();
        };
        const timer = setTimeout(done, wait);
        wakeNow = done;
      });
      if (Date.now() >= nextAt) nextAt = Infinity;
    }
  }

  return {
    runOnce,
    loop,
    wake(delayMs) {
      nextAt = Math.min(nextAt, Date.now() + Math.max(0, delayMs));
      if (delayMs <= 0) wakeNow?.();
    },
    stop() {
      running = false;
      wakeNow?.();
    },
  };
}

/**
 * The parked rows an event's outcome writes: each failing subscriber's delivery (attempt 1, due
 * after the backoff; `failed` at once when permanent or out of attempts) and a queued row (no
 * attempt yet) for each subscriber with an earlier delivery of the record still parked.
 */
export function parkRows(
  outboxId: string,
  failures: ReadonlyArray<{ subscriber: string; error: string; permanent: boolean }>,
  queued: readonly string[],
  backoff: Backoff,
  maxAttempts: number | undefined,
): ParkRow[] {
  const rows: ParkRow[] = [];
  for (const f of failures) {
    const failed = f.permanent || (maxAttempts !== undefined && maxAttempts <= 1);
    rows.push({
      did: newId(),
      outbox_id: outboxId,
      subscriber: f.subscriber,
      status: failed ? 'failed' : 'pending',
      attempts: 1,
      delay_ms: failed ? 0 : Math.max(0, Math.round(backoff(1))),
      error: f.error,
    });
  }
  for (const subscriber of queued)
    rows.push({
      did: newId(),
      outbox_id: outboxId,
      subscriber,
      status: 'pending',
      attempts: 0,
      delay_ms: 0,
      error: null,
    });
  return rows;
}
