import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { Pool } from 'pg';
import type { Logger } from '../logger';
import { mapLimited } from '../shared/concurrency';
import { newId } from '../ids';
import { STANDARD_RETRY_SCHEDULE_MS } from '../webhooks/settings';
import { scheduleBackoff, type Backoff } from './backoff';
import { createParkedRunner, RECORD_WITH_PARKED_SQL, type ParkRow } from './deliveries';
import { createOutboxListener, type OutboxListener } from './listener';
import { claimSql, toClaimed, type ClaimedEvent, type OutboxRow } from './outbox.sql';
import { isPermanentFailure, type BatchFailures, type OutboxEventRecord, type Subscriber } from './subscriber';

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

/** How long a batch may stay busy before the successes of its finished subscribers are written ahead of its outcome. */
const MARK_AHEAD_MS = 250;

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
  /**
   * With parallelBatches > 1: how long events that arrive while a runner is busy wait for it before
   * an idle runner claims them (default 50 ms). A runner normally finishes a batch in a few
   * milliseconds and then claims what arrived meanwhile in one go; a slow subscriber can hold it for seconds.
   */
  slowBatchMs?: number;
  /**
   * Under a steady trickle, a runner claims at most this often (default 100 ms): events written
   * meanwhile go out together in its next claim instead of one or two per claim, which costs a claim,
   * the subscribers' look-ups and an outcome statement each. Only after a claim that found some
   * events but not a full batch: the first event after a quiet spell and a backlog go at once.
   */
  claimIntervalMs?: number;
  /** Fallback poll when no NOTIFY arrives (default 2 s). */
  pollIntervalMs?: number;
  /** How long a claim is exclusive; renewed every third of it while delivering (default 30 s). */
  leaseMs?: number;
  /**
   * A parked delivery (one subscriber's failed event) is `failed` after this many attempts; an event
   * whose deliveries crashed the dispatcher this often is dead-lettered. Default: with the default
   * backoff, its schedule's length + 1 (8: about a day); with a given backoff, retried forever.
   */
  maxAttempts?: number;
  /**
   * Delay before a parked delivery's next attempt after `attempts` attempts. Default: the webhook
   * schedule (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h; +20% jitter), so an outside service that is
   * down for hours still gets each notification once it returns.
   */
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
  /** A processed event's record has a later event waiting: it became claimable just now. */
  chained?: boolean;
  /** Deliveries parked (failed) or queued behind a parked one by these batches. */
  parked?: number;
  /** drainOnce: parked deliveries attempted again, delivered, failed again. */
  retried?: { claimed: number; delivered: number; failed: number };
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
  const slowBatchMs = opts.slowBatchMs ?? 50;
  const claimIntervalMs = Math.max(0, opts.claimIntervalMs ?? 100);
  const leaseMs = opts.leaseMs ?? 30_000;
  const backoff = opts.backoff ?? scheduleBackoff(STANDARD_RETRY_SCHEDULE_MS, 0.2);
  const maxAttempts = opts.maxAttempts ?? (opts.backoff ? undefined : STANDARD_RETRY_SCHEDULE_MS.length + 1);
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
  /** Runners between the start of their claim and their batch's outcome. */
  let busy = 0;
  /** Runners waiting out claimIntervalMs: they claim what arrives meanwhile. */
  let pacing = 0;
  /** wakeSeq when the latest claim started: wake-ups after it are not yet served. */
  let claimedSeq = 0;
  let deferredWake: NodeJS.Timeout | null = null;
  /**
   * New events. With every runner idle, one claims at once. While one is busy, the new events wait
   * for it (it sees the new wakeSeq when it finishes and claims again), so a steady trickle is
   * claimed in batches instead of an event or two per statement by each runner in turn; only if
   * they are still unclaimed after slowBatchMs (a slow subscriber holds the busy runner) does
   * an idle runner take them.
   */
  const wake = (): void => {
    wakeSeq += 1;
    if (pacing > 0) return;
    if (busy === 0) return wakeOneIdle();
    deferredWake ??= setTimeout(() => {
      deferredWake = null;
      if (wakeSeq !== claimedSeq && pacing === 0) wakeOneIdle();
    }, slowBatchMs);
    deferredWake.unref();
  };

  async function claim(): Promise<ClaimedEvent[]> {
    claimedSeq = wakeSeq;
    const params: unknown[] = [id, leaseMs, batchSize];
    if (workspaceFilter) params.push(workspaceFilter);
    const res = await pool.query<OutboxRow>(claimSql(Boolean(workspaceFilter)), params);
    return res.rows.map(toClaimed).sort((a, b) => (BigInt(a.event.id) < BigInt(b.event.id) ? -1 : 1));
  }

  interface Outcome {
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

  /**
   * Hands `claimed` to one subscriber (as one batch, or per event in parallel lanes) and records the outcome per event.
   */
  async function deliverTo(
    subscriber: Subscriber,
    claimed: readonly ClaimedEvent[],
    outcomes: Map<string, Outcome>,
    /** Subscribers of this batch still delivering (this one included). */
    inFlight: { count: number },
    marks: BatchMarks,
  ): Promise<void> {
    const pending: OutboxEventRecord[] = [];
    for (const c of claimed) {
      const out = outcomes.get(c.event.id)!;
      if (out.deadLetter || c.deliveredTo.includes(subscriber.name)) continue;
      try {
        if (subscriber.handles && !subscriber.handles(c.event)) continue;
      } catch (err) {
        failOutcome(out, subscriber.name, err);
        continue;
      }
      // Order per record and subscriber: behind this subscriber's parked delivery of the record.
      if (c.queuedFor.includes(subscriber.name)) out.queued.push(subscriber.name);
      else pending.push(c.event);
    }
    if (pending.length === 0) return;
    const fail = (event: OutboxEventRecord, err: unknown): void =>
      failOutcome(outcomes.get(event.id)!, subscriber.name, err);
    const succeeded: string[] = [];
    const succeed = (event: OutboxEventRecord): void => {
      outcomes.get(event.id)!.delivered.push(subscriber.name);
      succeeded.push(event.id);
    };
    await handOver(subscriber, pending, fail, succeed);
    // The last one to finish leaves it to the outcome statement that follows at once.
    if (succeeded.length && inFlight.count > 1) marks.add(subscriber.name, succeeded);
  }

  function failOutcome(out: Outcome, subscriber: string, err: unknown): void {
    const error = errorMessage(err);
    out.errors.push(`${subscriber}: ${error}`);
    out.failures.push({ subscriber, error, permanent: isPermanentFailure(err) });
  }

  interface BatchMarks {
    add(subscriber: string, rowIds: string[]): void;
    /** Before the outcome statement: drops what is not written yet, waits for what is being written. */
    settle(): Promise<void>;
  }

  /**
   * A subscriber's successes while another subscriber of the batch is still busy: written ahead of
   * the batch's outcome if the batch is still busy MARK_AHEAD_MS later, so a crash while a slow
   * subscriber holds the batch does not hand the events to this subscriber again. A batch that ends
   * sooner (nearly all) writes them with its outcome, one statement instead of one per subscriber.
   */
  function batchMarks(): BatchMarks {
    const pending = new Map<string, string[]>();
    let timer: NodeJS.Timeout | null = null;
    let writing: Promise<unknown> = Promise.resolve();
    const flush = (): void => {
      timer = null;
      const due = [...pending];
      pending.clear();
      writing = Promise.all([writing, ...due.map(([subscriber, rowIds]) => markDelivered(rowIds, subscriber))]).catch(
        (err: unknown) => log.warn({ err: errorMessage(err) }, 'outbox: recording a subscriber success ahead failed'),
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
  async function record(
    claimed: readonly ClaimedEvent[],
    outcomes: Map<string, Outcome>,
  ): Promise<{ written: Set<string>; chained: boolean; parked: number }> {
    const park: ParkRow[] = [];
    const rows = claimed.map(({ event }) => {
      const out = outcomes.get(event.id)!;
      if (out.deadLetter) return { id: event.id, subs: [], done: true, error: out.deadLetter, delay_ms: 0 };
      // A failing subscriber's delivery is parked (retried on its own) and the event is done for the others.
      for (const f of out.failures) {
        const failed = f.permanent || (maxAttempts !== undefined && maxAttempts <= 1);
        park.push({
          did: newId(),
          outbox_id: event.id,
          subscriber: f.subscriber,
          status: failed ? 'failed' : 'pending',
          attempts: 1,
          delay_ms: failed ? 0 : Math.max(0, Math.round(backoff(1))),
          error: f.error,
        });
      }
      for (const subscriber of out.queued)
        park.push({
          did: newId(),
          outbox_id: event.id,
          subscriber,
          status: 'pending',
          attempts: 0,
          delay_ms: 0,
          error: null,
        });
      const error = out.errors.length ? out.errors.join('; ').slice(0, 4000) : null;
      return { id: event.id, subs: out.delivered, done: true, error, delay_ms: 0 };
    });
    const res = park.length
      ? await pool.query<{ id: string; more: boolean; parked: number }>(RECORD_WITH_PARKED_SQL, [
          id,
          JSON.stringify(rows),
          JSON.stringify(park),
        ])
      : await pool.query<{ id: string; more: boolean; parked?: number }>(
          `update outbox_event u set
         delivered_to = u.delivered_to || array(select s from unnest(x.subs) s where not (s = any(u.delivered_to))),
         processed_at = case when x.done then now() else null end,
         last_error = coalesce(x.error, u.last_error),
         available_at = case when x.done then u.available_at else now() + x.delay_ms * interval '1 millisecond' end,
         locked_until = null, locked_by = null
       from jsonb_to_recordset($2::jsonb) as x(id bigint, subs text[], done boolean, error text, delay_ms double precision)
       where u.id = x.id and u.locked_by = $1 and u.processed_at is null
       returning u.id, x.done and exists (
         select 1 from outbox_event e2 where e2.processed_at is null and e2.workspace_id = u.workspace_id
           and e2.entity_type = u.entity_type and e2.entity_id = u.entity_id and e2.id > u.id) as more`,
          [id, JSON.stringify(rows)],
        );
    const written = new Set(res.rows.map((r) => String(r.id)));
    rows.forEach((row, i) => {
      const { event } = claimed[i]!;
      const out = outcomes.get(event.id)!;
      if (!written.has(row.id)) {
        log.warn({ eventId: event.eventId }, 'outbox lease lost during delivery; another dispatcher owns the event');
      } else if (out.deadLetter) {
        log.error(
          { eventId: event.eventId, type: event.type, attempts: event.attempts, error: row.error },
          'outbox event dead-lettered',
        );
      } else {
        for (const f of out.failures)
          log.warn(
            {
              eventId: event.eventId,
              type: event.type,
              subscriber: f.subscriber,
              permanent: f.permanent,
              error: f.error,
            },
            f.permanent ? 'outbox delivery failed for good' : 'outbox delivery failed; parked for retry',
          );
      }
    });
    const parked = res.rows[0]?.parked ?? 0;
    // A queued row may be claimable at once (its parked head was delivered meanwhile); a failure after its delay.
    if (parked > 0) wakeParked(Math.min(...park.filter((p) => p.status === 'pending').map((p) => p.delay_ms)));
    return { written, chained: res.rows.some((r) => r.more), parked };
  }

  /** Claims one batch and hands it to every subscriber in parallel; the lease is renewed meanwhile. */
  async function runBatch(): Promise<DrainResult> {
    busy += 1;
    try {
      return await claimAndDeliver();
    } finally {
      busy -= 1;
    }
  }

  async function claimAndDeliver(): Promise<DrainResult> {
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
      outcomes.set(event.id, { delivered: [], errors: [], failures: [], queued: [], deadLetter });
    }
    try {
      const inFlight = { count: subscribers.length };
      const marks = batchMarks();
      await Promise.all(
        subscribers.map((s) =>
          deliverTo(s, claimed, outcomes, inFlight, marks).finally(() => {
            inFlight.count -= 1;
          }),
        ),
      );
      await marks.settle();
      const { written, chained, parked } = await record(claimed, outcomes);
      result.chained = chained;
      if (parked) result.parked = parked;
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
    const retried = { claimed: 0, delivered: 0, failed: 0 };
    // Parked deliveries due now go too; a bounded number of passes, since a zero backoff keeps a failing one due.
    for (let pass = 0; pass < 20; pass++) {
      for (;;) {
        const r = await runBatch();
        if (r.claimed === 0) break;
        total.claimed += r.claimed;
        total.processed += r.processed;
        total.failed += r.failed;
        if (r.parked) total.parked = (total.parked ?? 0) + r.parked;
      }
      const p = await parked.runOnce();
      if (p.claimed === 0) break;
      retried.claimed += p.claimed;
      retried.delivered += p.delivered;
      retried.failed += p.failed;
    }
    if (retried.claimed) total.retried = retried;
    return total;
  }

  const parked = createParkedRunner({
    pool,
    dispatcherId: id,
    subscribers,
    log,
    leaseMs,
    batchSize,
    concurrency,
    backoff,
    maxAttempts,
    workspaceIds: workspaceFilter,
  });
  /** When the parked-delivery runner should look next (ms epoch); it also polls every pollIntervalMs. */
  let parkedAt = Infinity;
  let parkedWake: (() => void) | null = null;
  function wakeParked(delayMs: number): void {
    parkedAt = Math.min(parkedAt, Date.now() + Math.max(0, delayMs));
    if (delayMs <= 0) parkedWake?.();
  }

  /** Retries parked deliveries (deliveries.ts): at their due time, after a poll, or at once when a queue moved. */
  async function parkedLoop(): Promise<void> {
    while (running) {
      let again = false;
      try {
        const r = await parked.runOnce();
        if (r.nextAt !== undefined) parkedAt = Math.min(parkedAt, r.nextAt);
        // A delivered head lets the next row of its queue go at once.
        again = r.delivered > 0 || r.claimed >= batchSize;
      } catch (err) {
        log.error({ err: errorMessage(err) }, 'outbox: parked deliveries pass failed');
      }
      if (!running) break;
      if (again) continue;
      const wait = Math.max(0, Math.min(pollIntervalMs, parkedAt - Date.now()));
      await new Promise<void>((resolve) => {
        const done = (): void => {
          clearTimeout(timer);
          parkedWake = null;
          resolve();
        };
        const timer = setTimeout(done, wait);
        parkedWake = done;
      });
      if (Date.now() >= parkedAt) parkedAt = Infinity;
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
    /** Not before this time: the last claim was partial (claimIntervalMs). */
    let paceUntil = 0;
    while (running) {
      const pace = paceUntil - Date.now();
      if (pace > 0) {
        pacing += 1;
        await new Promise((r) => setTimeout(r, pace));
        pacing -= 1;
        if (!running) break;
      }
      const seen = wakeSeq;
      const claimedAt = Date.now();
      let again = false;
      try {
        // Processing an event can make the next event of its record claimable (chained): claim again (paced).
        const r = await runBatch();
        paceUntil = r.claimed > 0 && r.claimed < batchSize ? claimedAt + claimIntervalMs : 0;
        again = r.claimed >= batchSize || r.chained === true || wakeSeq !== seen;
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
      loopDone = Promise.all([...Array.from({ length: parallelBatches }, loop), parkedLoop()]).then(() => undefined);
      log.info(
        {
          subscribers: subscribers.map((s) => s.name),
          batchSize,
          parallelBatches,
          claimIntervalMs,
          pollIntervalMs,
          leaseMs,
        },
        'outbox dispatcher started',
      );
    },
    async stop() {
      if (closed) return;
      closed = true;
      running = false;
      if (deferredWake) clearTimeout(deferredWake);
      for (const done of [...idle]) done();
      parkedWake?.();
      await listener?.stop();
      await loopDone;
      await pool.end();
      log.info('outbox dispatcher stopped');
    },
    drainOnce,
  };
}
