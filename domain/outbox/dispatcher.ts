import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { Pool } from 'pg';
import type { Logger } from '../logger';
import { exponentialBackoff, type Backoff } from './backoff';
import { createOutboxListener, type OutboxListener } from './listener';
import { claimSql, toClaimed, type ClaimedEvent, type OutboxRow } from './outbox.sql';
import type { OutboxEventRecord, Subscriber } from './subscriber';

export type { Backoff } from './backoff';
export type { OutboxEventRecord, Subscriber } from './subscriber';

export interface OutboxDispatcherOptions {
  /** The dispatcher owns a small pg pool for claims and progress plus one LISTEN connection. */
  pgConnectionString: string;
  subscribers: readonly Subscriber[];
  log: Logger;
  /** Events claimed per statement (default 50). At most one event per record is in a batch. */
  batchSize?: number;
  /** Events of one batch delivered in parallel (default 8); they all belong to different records. */
  concurrency?: number;
  /** Fallback poll when no NOTIFY arrives (default 2 s). */
  pollIntervalMs?: number;
  /** How long a claim is exclusive; renewed every third of it while delivering (default 30 s). */
  leaseMs?: number;
  /** Give up (dead-letter) after this many attempts; default: retry forever, keeping per-record order. */
  maxAttempts?: number;
  /** Delay before the next attempt after `attempts` attempts (default 1 s doubling, capped at 5 min). */
  backoff?: Backoff;
  /** Only claim events of these workspaces (tests share one database); default: every workspace. */
  workspaceIds?: readonly string[];
  /** Recorded in `locked_by`; default host:pid:random. */
  dispatcherId?: string;
}

export interface DrainResult {
  claimed: number;
  processed: number;
  failed: number;
}

export interface OutboxDispatcher {
  readonly id: string;
  /** Starts LISTEN (awaits the first connection attempt) and the delivery loop. */
  start(): Promise<void>;
  /** Stops claiming, waits for the in-flight batch, closes the connections. */
  stop(): Promise<void>;
  /** Delivers batches until nothing is claimable right now (tests; not for use alongside start()). */
  drainOnce(): Promise<DrainResult>;
}

function errorMessage(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).slice(0, 2000);
}

/**
 * Delivers outbox events to subscribers at least once and in order per record
 * (workspace, entity type, entity id). See `outbox.sql.ts` for the claim and its invariants.
 */
export function createOutboxDispatcher(opts: OutboxDispatcherOptions): OutboxDispatcher {
  const batchSize = opts.batchSize ?? 50;
  const concurrency = Math.max(1, opts.concurrency ?? 8);
  const pollIntervalMs = opts.pollIntervalMs ?? 2000;
  const leaseMs = opts.leaseMs ?? 30_000;
  const backoff = opts.backoff ?? exponentialBackoff({ jitter: 0.2 });
  const subscribers = [...opts.subscribers];
  const id = (opts.dispatcherId ?? `${hostname().slice(0, 60)}:${process.pid}:${randomBytes(3).toString('hex')}`).slice(0, 100);
  const log = opts.log.child({ dispatcherId: id });
  const workspaceFilter = opts.workspaceIds ? [...opts.workspaceIds] : null;

  const names = new Set<string>();
  for (const s of subscribers) {
    if (!s.name || names.has(s.name)) throw new Error(`outbox subscriber names must be unique and non-empty: "${s.name}"`);
    names.add(s.name);
  }

  const pool = new Pool({ connectionString: opts.pgConnectionString, max: Math.min(concurrency, 4) + 1, application_name: 'crm-outbox-dispatcher', keepAlive: true });
  pool.on('error', (err) => log.warn({ err: err.message }, 'outbox pool connection error'));

  let listener: OutboxListener | null = null;
  let running = false;
  let loopDone: Promise<void> | null = null;
  let wakeRequested = false;
  let wakeUp: (() => void) | null = null;
  let nextRetryAt = Infinity;
  let closed = false;

  const wake = (): void => {
    wakeRequested = true;
    wakeUp?.();
  };

  async function claim(): Promise<ClaimedEvent[]> {
    const params: unknown[] = [id, leaseMs, batchSize];
    if (workspaceFilter) params.push(workspaceFilter);
    const res = await pool.query<OutboxRow>(claimSql(Boolean(workspaceFilter)), params);
    return res.rows.map(toClaimed).sort((a, b) => (BigInt(a.event.id) < BigInt(b.event.id) ? -1 : 1));
  }

  /** Records one subscriber's success; false when the lease was lost to another dispatcher. */
  async function markDelivered(rowId: string, subscriber: string): Promise<boolean> {
    const res = await pool.query(
      `update outbox_event set delivered_to = case when $3 = any(delivered_to) then delivered_to else array_append(delivered_to, $3) end
       where id = $1 and locked_by = $2 and processed_at is null`,
      [rowId, id, subscriber],
    );
    return res.rowCount === 1;
  }

  async function markProcessed(event: OutboxEventRecord, lastError: string | null = null): Promise<boolean> {
    const res = await pool.query(
      `update outbox_event set processed_at = now(), locked_until = null, locked_by = null, last_error = coalesce($3, last_error)
       where id = $1 and locked_by = $2 and processed_at is null`,
      [event.id, id, lastError],
    );
    return res.rowCount === 1;
  }

  async function markFailed(event: OutboxEventRecord, error: string, delayMs: number): Promise<void> {
    await pool.query(
      `update outbox_event set last_error = $3, available_at = now() + $4::double precision * interval '1 millisecond', locked_until = null, locked_by = null
       where id = $1 and locked_by = $2 and processed_at is null`,
      [event.id, id, error, delayMs],
    );
  }

  /** Delivers one event to every subscriber that has not received it yet; true when fully processed. */
  async function deliver(event: OutboxEventRecord, alreadyDelivered: Set<string>): Promise<boolean> {
    if (opts.maxAttempts && event.attempts > opts.maxAttempts) {
      // Only reachable when earlier attempts crashed or lost their lease (failures dead-letter below).
      await markProcessed(event, `dead-lettered after ${event.attempts - 1} attempts without an outcome`);
      log.error({ eventId: event.eventId, type: event.type, attempts: event.attempts }, 'outbox event dead-lettered');
      return false;
    }
    const errors: string[] = [];
    for (const subscriber of subscribers) {
      if (alreadyDelivered.has(subscriber.name)) continue;
      try {
        if (subscriber.handles && !subscriber.handles(event)) continue;
        await subscriber.handle(event);
      } catch (err) {
        errors.push(`${subscriber.name}: ${errorMessage(err)}`);
        continue;
      }
      if (!(await markDelivered(event.id, subscriber.name))) {
        log.warn({ eventId: event.eventId, subscriber: subscriber.name }, 'outbox lease lost during delivery; another dispatcher owns the event');
        return false;
      }
    }
    if (errors.length === 0) return markProcessed(event);

    const error = errors.join('; ').slice(0, 4000);
    if (opts.maxAttempts && event.attempts >= opts.maxAttempts) {
      await markProcessed(event, `dead-lettered after ${event.attempts} attempts: ${error}`);
      log.error({ eventId: event.eventId, type: event.type, attempts: event.attempts, error }, 'outbox event dead-lettered');
      return false;
    }
    const delayMs = Math.max(0, Math.round(backoff(event.attempts)));
    await markFailed(event, error, delayMs);
    nextRetryAt = Math.min(nextRetryAt, Date.now() + delayMs);
    log.warn({ eventId: event.eventId, type: event.type, attempts: event.attempts, retryInMs: delayMs, error }, 'outbox delivery failed; will retry');
    return false;
  }

  /** Claims and delivers one batch; the lease is renewed while deliveries run. */
  async function runBatch(): Promise<DrainResult> {
    const claimed = await claim();
    const result: DrainResult = { claimed: claimed.length, processed: 0, failed: 0 };
    if (claimed.length === 0) return result;
    const inFlight = new Set(claimed.map((c) => c.event.id));
    const renew = setInterval(() => {
      pool
        .query(`update outbox_event set locked_until = now() + $2::double precision * interval '1 millisecond' where locked_by = $1 and id = any($3::bigint[]) and processed_at is null`, [id, leaseMs, [...inFlight]])
        .catch((err: Error) => log.warn({ err: err.message }, 'outbox lease renewal failed'));
    }, Math.max(50, Math.floor(leaseMs / 3)));
    renew.unref();
    try {
      const queue = [...claimed];
      const lane = async (): Promise<void> => {
        for (let next = queue.shift(); next; next = queue.shift()) {
          const current = next.event;
          try {
            if (await deliver(current, new Set(next.deliveredTo))) result.processed += 1;
            else result.failed += 1;
          } catch (err) {
            // Bookkeeping failed (database trouble): the lease expires and the event is claimed again.
            result.failed += 1;
            log.error({ eventId: current.eventId, err: errorMessage(err) }, 'outbox bookkeeping failed');
          } finally {
            inFlight.delete(current.id);
          }
        }
      };
      await Promise.all(Array.from({ length: Math.min(concurrency, claimed.length) }, lane));
    } finally {
      clearInterval(renew);
    }
    return result;
  }

  async function drainOnce(): Promise<DrainResult> {
    const total: DrainResult = { claimed: 0, processed: 0, failed: 0 };
    for (;;) {
      const r = await runBatch();
      if (r.claimed === 0) return total;
      total.claimed += r.claimed;
      total.processed += r.processed;
      total.failed += r.failed;
    }
  }

  async function loop(): Promise<void> {
    while (running) {
      wakeRequested = false;
      let again = false;
      try {
        // Processing an event can make the next event of its record claimable: claim again at once.
        const r = await runBatch();
        again = r.claimed >= batchSize || r.processed > 0 || wakeRequested;
      } catch (err) {
        log.error({ err: errorMessage(err) }, 'outbox claim failed');
      }
      if (!running) break;
      if (again) continue;
      const wait = Math.max(0, Math.min(pollIntervalMs, nextRetryAt - Date.now()));
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, wait);
        wakeUp = () => {
          clearTimeout(timer);
          resolve();
        };
        if (wakeRequested || !running) wakeUp();
      });
      wakeUp = null;
      if (Date.now() >= nextRetryAt) nextRetryAt = Infinity;
    }
  }

  return {
    id,
    async start() {
      if (running || closed) throw new Error('outbox dispatcher already started or stopped');
      running = true;
      listener = createOutboxListener({ connectionString: opts.pgConnectionString, applicationName: `crm-outbox-listen:${id}`.slice(0, 63), log, onWake: wake });
      await listener.start();
      loopDone = loop();
      log.info({ subscribers: subscribers.map((s) => s.name), batchSize, pollIntervalMs, leaseMs }, 'outbox dispatcher started');
    },
    async stop() {
      if (closed) return;
      closed = true;
      running = false;
      wake();
      await listener?.stop();
      await loopDone;
      await pool.end();
      log.info('outbox dispatcher stopped');
    },
    drainOnce,
  };
}
