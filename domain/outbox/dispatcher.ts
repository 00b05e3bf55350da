import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { Pool } from 'pg';
import type { Logger } from '../logger';
import { mapLimited } from '../shared/concurrency';
import { exponentialBackoff, type Backoff } from './backoff';
import { createOutboxListener, type OutboxListener } from './listener';
import { claimSql, toClaimed, type ClaimedEvent, type OutboxRow } from './outbox.sql';
import type { BatchFailures, OutboxEventRecord, Subscriber } from './subscriber';

export type { Backoff } from './backoff';
export type { BatchFailures, OutboxEventRecord, Subscriber } from './subscriber';

/**
 * Batches in flight in the worker's dispatcher (bin/worker.ts; bench:webhooks uses the same): while
 * one batch waits for its slowest subscriber and writes its outcome, the next ones are already
 * claimed and delivering (another runner claims only when a claim came back full, i.e. a backlog).
 * Order per record holds (a record's next event is claimable only after its previous one is
 * processed). Webhook POSTs keep one process-wide cap across them. bench:webhooks at load ~10 gave
 * ratios 0.37–0.55 with 2 and 0.33–0.64 with 3: no measurable gain from a third.
 */
export const WORKER_PARALLEL_BATCHES = 2;

export interface OutboxDispatcherOptions {
  /** The dispatcher owns a small pg pool for claims and progress plus one LISTEN connection. */
  pgConnectionString: string;
  subscribers: readonly Subscriber[];
  log: Logger;
  /** Events claimed per statement (default 100). At most one event per record is in a batch. */
  batchSize?: number;
  /**
   * Per-event subscribers: events of one batch handled in parallel (default 8); they all belong to different records.
   */
  concurrency?: number;
  /**
   * Batches in flight at once (default 1), each claimed and delivered by its own runner. More
   * helps when one subscriber is slow (a batch waits for its slowest subscriber); measured with
   * bench:automations, 2 raised throughput ~5% but doubled event-to-first-action latency.
   */
  parallelBatches?: number;
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
  const batchSize = opts.batchSize ?? 100;
  const concurrency = Math.max(1, opts.concurrency ?? 8);
  const parallelBatches = Math.max(1, opts.parallelBatches ?? 1);
  const pollIntervalMs = opts.pollIntervalMs ?? 2000;
  const leaseMs = opts.leaseMs ?? 30_000;
  const backoff = opts.backoff ?? exponentialBackoff({ jitter: 0.2 });
  const subscribers = [...opts.subscribers];
  const id = (opts.dispatcherId ?? `${hostname().slice(0, 60)}:${process.pid}:${randomBytes(3).toString('hex')}`).slice(
    0,
    100,
  );
  const log = opts.log.child({ dispatcherId: id });
  const workspaceFilter = opts.workspaceIds ? [...opts.workspaceIds] : null;

  const names = new Set<string>();
  for (const s of subscribers) {
    if (!s.name || names.has(s.name))
      throw new Error(`outbox subscriber names must be unique and non-empty: "${s.name}"`);
    names.add(s.name);
    if (!s.handle && !s.handleBatch) throw new Error(`outbox subscriber "${s.name}" needs handle or handleBatch`);
  }

  const pool = new Pool({
    connectionString: opts.pgConnectionString,
    max: Math.min(concurrency, 4) + 1,
    application_name: 'crm-outbox-dispatcher',
    keepAlive: true,
  });
  pool.on('error', (err) => log.warn({ err: err.message }, 'outbox pool connection error'));

  let listener: OutboxListener | null = null;
  let running = false;
  let loopDone: Promise<void> | null = null;
  /** Counts wake-ups, so a runner that was busy when one came claims again instead of sleeping. */
  let wakeSeq = 0;
  /** Idle runners waiting for a wake-up or their poll timer. */
  const idle = new Set<() => void>();
  let nextRetryAt = Infinity;
  let closed = false;

  const wakeOneIdle = (): void => idle.values().next().value?.();
  /** New events: one idle runner claims (a busy one notices the new wakeSeq when it finishes). */
  const wake = (): void => {
    wakeSeq += 1;
    wakeOneIdle();
  };

  async function claim(): Promise<ClaimedEvent[]> {
    const params: unknown[] = [id, leaseMs, batchSize];
    if (workspaceFilter) params.push(workspaceFilter);
    const res = await pool.query<OutboxRow>(claimSql(Boolean(workspaceFilter)), params);
    return res.rows.map(toClaimed).sort((a, b) => (BigInt(a.event.id) < BigInt(b.event.id) ? -1 : 1));
  }

  interface Outcome {
    /** Subscribers that succeeded in this attempt. */
    delivered: string[];
    errors: string[];
    /** Set for events dead-lettered before delivery (attempts beyond maxAttempts). */
    deadLetter?: string;
  }

  /**
   * Hands `claimed` to one subscriber (as one batch, or per event in parallel lanes) and records the outcome per event.
   */
  async function deliverTo(
    subscriber: Subscriber,
    claimed: readonly ClaimedEvent[],
    outcomes: Map<string, Outcome>,
  ): Promise<void> {
    const pending: OutboxEventRecord[] = [];
    for (const c of claimed) {
      const out = outcomes.get(c.event.id)!;
      if (out.deadLetter || c.deliveredTo.includes(subscriber.name)) continue;
      try {
        if (subscriber.handles && !subscriber.handles(c.event)) continue;
      } catch (err) {
        out.errors.push(`${subscriber.name}: ${errorMessage(err)}`);
        continue;
      }
      pending.push(c.event);
    }
    if (pending.length === 0) return;
    const fail = (event: OutboxEventRecord, err: unknown): void =>
      void outcomes.get(event.id)!.errors.push(`${subscriber.name}: ${errorMessage(err)}`);
    const succeeded: string[] = [];
    const succeed = (event: OutboxEventRecord): void => {
      outcomes.get(event.id)!.delivered.push(subscriber.name);
      succeeded.push(event.id);
    };
    await handOver(subscriber, pending, fail, succeed);
    // Recorded at once (not only with the batch's outcome), so a crash while another subscriber
    // is still busy does not hand these events to this subscriber again.
    if (succeeded.length) await markDelivered(succeeded, subscriber.name);
  }

  async function markDelivered(rowIds: string[], subscriber: string): Promise<void> {
    await pool.query(
      `update outbox_event set delivered_to = array_append(delivered_to, $3)
       where id = any($1::bigint[]) and locked_by = $2 and processed_at is null and not ($3 = any(delivered_to))`,
      [rowIds, id, subscriber],
    );
  }

  async function handOver(
    subscriber: Subscriber,
    pending: OutboxEventRecord[],
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

  /**
   * Writes every event's outcome in one statement: delivered subscribers appended, then processed,
   * dead-lettered, or released for a retry after its backoff. Only rows this dispatcher still
   * leases change; the ids written are returned (a missing id lost its lease to another dispatcher).
   */
  async function record(claimed: readonly ClaimedEvent[], outcomes: Map<string, Outcome>): Promise<Set<string>> {
    const rows = claimed.map(({ event }) => {
      const out = outcomes.get(event.id)!;
      if (out.deadLetter) return { id: event.id, subs: [], done: true, error: out.deadLetter, delay_ms: 0 };
      if (out.errors.length === 0) return { id: event.id, subs: out.delivered, done: true, error: null, delay_ms: 0 };
      const error = out.errors.join('; ').slice(0, 4000);
      if (opts.maxAttempts && event.attempts >= opts.maxAttempts) {
        return {
          id: event.id,
          subs: out.delivered,
          done: true,
          error: `dead-lettered after ${event.attempts} attempts: ${error}`.slice(0, 4000),
          delay_ms: 0,
        };
      }
      return {
        id: event.id,
        subs: out.delivered,
        done: false,
        error,
        delay_ms: Math.max(0, Math.round(backoff(event.attempts))),
      };
    });
    const res = await pool.query<{ id: string }>(
      `update outbox_event u set
         delivered_to = u.delivered_to || array(select s from unnest(x.subs) s where not (s = any(u.delivered_to))),
         processed_at = case when x.done then now() else null end,
         last_error = coalesce(x.error, u.last_error),
         available_at = case when x.done then u.available_at else now() + x.delay_ms * interval '1 millisecond' end,
         locked_until = null, locked_by = null
       from jsonb_to_recordset($2::jsonb) as x(id bigint, subs text[], done boolean, error text, delay_ms double precision)
       where u.id = x.id and u.locked_by = $1 and u.processed_at is null
       returning u.id`,
      [id, JSON.stringify(rows)],
    );
    const written = new Set(res.rows.map((r) => String(r.id)));
    rows.forEach((row, i) => {
      const { event } = claimed[i]!;
      if (!written.has(row.id)) {
        log.warn({ eventId: event.eventId }, 'outbox lease lost during delivery; another dispatcher owns the event');
      } else if (row.done && row.error) {
        log.error(
          { eventId: event.eventId, type: event.type, attempts: event.attempts, error: row.error },
          'outbox event dead-lettered',
        );
      } else if (!row.done) {
        nextRetryAt = Math.min(nextRetryAt, Date.now() + row.delay_ms);
        log.warn(
          {
            eventId: event.eventId,
            type: event.type,
            attempts: event.attempts,
            retryInMs: row.delay_ms,
            error: row.error,
          },
          'outbox delivery failed; will retry',
        );
      }
    });
    return written;
  }

  /** Claims one batch and hands it to every subscriber in parallel; the lease is renewed meanwhile. */
  async function runBatch(): Promise<DrainResult> {
    const claimed = await claim();
    const result: DrainResult = { claimed: claimed.length, processed: 0, failed: 0 };
    if (claimed.length === 0) return result;
    // A full batch means a backlog: let another runner claim the next one meanwhile.
    if (claimed.length >= batchSize) wakeOneIdle();
    const ids = claimed.map((c) => c.event.id);
    const renew = setInterval(
      () => {
        pool
          .query(
            `update outbox_event set locked_until = now() + $2::double precision * interval '1 millisecond' where locked_by = $1 and id = any($3::bigint[]) and processed_at is null`,
            [id, leaseMs, ids],
          )
          .catch((err: Error) => log.warn({ err: err.message }, 'outbox lease renewal failed'));
      },
      Math.max(50, Math.floor(leaseMs / 3)),
    );
    renew.unref();
    const outcomes = new Map<string, Outcome>();
    for (const { event } of claimed) {
      // Only reachable when earlier attempts crashed or lost their lease (failures dead-letter in record()).
      const deadLetter =
        opts.maxAttempts && event.attempts > opts.maxAttempts
          ? `dead-lettered after ${event.attempts - 1} attempts without an outcome`
          : undefined;
      outcomes.set(event.id, { delivered: [], errors: [], deadLetter });
    }
    try {
      await Promise.all(subscribers.map((s) => deliverTo(s, claimed, outcomes)));
      const written = await record(claimed, outcomes);
      for (const { event } of claimed) {
        const out = outcomes.get(event.id)!;
        if (written.has(event.id) && !out.deadLetter && out.errors.length === 0) result.processed += 1;
        else result.failed += 1;
      }
    } catch (err) {
      // Bookkeeping failed (database trouble): the leases expire and the events are claimed again.
      result.failed = claimed.length;
      log.error({ err: errorMessage(err), events: claimed.length }, 'outbox bookkeeping failed');
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

  /**
   * One runner: claim a batch, deliver it, repeat while there is work; otherwise sleep until a
   * wake-up, a due retry or the poll interval. `parallelBatches` runners share the dispatcher:
   * while one waits on a slow subscriber another claims the events that arrived meanwhile. Two
   * runners never hold the same event (leases) and a record's next event is claimable only once
   * its previous one is processed, so per-record order holds as with several dispatchers.
   */
  async function loop(): Promise<void> {
    while (running) {
      const seen = wakeSeq;
      let again = false;
      try {
        // Processing an event can make the next event of its record claimable: claim again at once.
        const r = await runBatch();
        again = r.claimed >= batchSize || r.processed > 0 || wakeSeq !== seen;
      } catch (err) {
        log.error({ err: errorMessage(err) }, 'outbox claim failed');
      }
      if (!running) break;
      if (again) continue;
      const wait = Math.max(0, Math.min(pollIntervalMs, nextRetryAt - Date.now()));
      await new Promise<void>((resolve) => {
        const done = (): void => {
          clearTimeout(timer);
          idle.delete(done);
          resolve();
        };
        const timer = setTimeout(done, wait);
        idle.add(done);
        if (wakeSeq !== seen || !running) done();
      });
      if (Date.now() >= nextRetryAt) nextRetryAt = Infinity;
    }
  }

  return {
    id,
    async start() {
      if (running || closed) throw new Error('outbox dispatcher already started or stopped');
      running = true;
      listener = createOutboxListener({
        connectionString: opts.pgConnectionString,
        applicationName: `crm-outbox-listen:${id}`.slice(0, 63),
        log,
        onWake: wake,
      });
      await listener.start();
      loopDone = Promise.all(Array.from({ length: parallelBatches }, loop)).then(() => undefined);
      log.info(
        { subscribers: subscribers.map((s) => s.name), batchSize, parallelBatches, pollIntervalMs, leaseMs },
        'outbox dispatcher started',
      );
    },
    async stop() {
      if (closed) return;
      closed = true;
      running = false;
      for (const done of [...idle]) done();
      await listener?.stop();
      await loopDone;
      await pool.end();
      log.info('outbox dispatcher stopped');
    },
    drainOnce,
  };
}
