import { createParkedRunner, parkRows, RECORD_WITH_PARKED_SQL, type ParkRow } from './deliveries';
import { checkedSubscribers, dispatcherPool, dispatcherSettings } from './dispatcher-settings';
import type { DrainResult, OutboxDispatcher, OutboxDispatcherOptions } from './dispatcher.types';
import { batchMarks, errorMessage, failOutcome, handOver, keepLeased, type BatchMarks, type Outcome } from './handover';
import { createOutboxListener, PARKED_DUE_PAYLOAD, type OutboxListener } from './listener';
import { createRecoveryRelease } from './recovery';
import { claimSql, RECORD_SQL, RENEW_EVENTS_SQL, toClaimed, type ClaimedEvent, type OutboxRow } from './outbox.sql';
import type { OutboxEventRecord, Subscriber } from './subscriber';

export type { Backoff } from './backoff';
export type { BatchFailures, OutboxEventRecord, Subscriber } from './subscriber';
export type { DrainResult, OutboxDispatcher, OutboxDispatcherOptions } from './dispatcher.types';

/**
 * Batches in flight in the worker's dispatcher (bin/worker.ts; bench:webhooks uses the same): while
 * one batch waits for its slowest subscriber and writes its outcome, the next ones are already
 * claimed and delivering (another runner claims only when a claim came back full, i.e. a backlog).
 * Order per record holds (a record's next event is claimable only after its previous one is
 * processed). Webhook POSTs keep one process-wide cap across them. bench:webhooks at load ~10 gave
 * ratios 0.37–0.55 with 2 and 0.33–0.64 with 3: no measurable gain from a third.
 */
export const WORKER_PARALLEL_BATCHES = 2;

/**
 * Delivers outbox events to subscribers at least once and in order per record
 * (workspace, entity type, entity id). See `outbox.sql.ts` for the claim and its invariants.
 */
export function createOutboxDispatcher(opts: OutboxDispatcherOptions): OutboxDispatcher {
  const settings = dispatcherSettings(opts);
  const { batchSize, concurrency, parallelBatches, pollIntervalMs, slowBatchMs, claimIntervalMs } = settings;
  const { leaseMs, backoff, maxAttempts, id, workspaceFilter } = settings;
  const subscribers = checkedSubscribers(opts.subscribers);
  const log = opts.log.child({ dispatcherId: id });
  const pool = dispatcherPool(opts.pgConnectionString, concurrency, log);
  /** Retries parked deliveries (deliveries.ts): at their due time, after a poll, or at once when a queue moved. */
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
    pollIntervalMs,
    onDelivered: (subscriber, workspaceId) => recovery.delivered(subscriber, workspaceId),
  });
  /** A delivery that works makes its subscriber's parked ones of that workspace due now (recovery.ts). */
  const recovery = createRecoveryRelease({ pool, log, onReleased: () => parked.wake(0) });

  let listener: OutboxListener | null = null;
  let running = false;
  let loopDone: Promise<void> | null = null;
  /** Counts wake-ups, so a runner that was busy when one came claims again instead of sleeping. */
  let wakeSeq = 0;
  /** Idle runners waiting for a wake-up or their poll timer. */
  const idle = new Set<() => void>();
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

  /** Where the next claim starts serving workspaces (outbox.sql.ts fairWorkspacesSql). */
  let workspaceCursor = '';
  async function claim(): Promise<ClaimedEvent[]> {
    claimedSeq = wakeSeq;
    const params: unknown[] = [id, leaseMs, batchSize, workspaceCursor];
    if (workspaceFilter) params.push(workspaceFilter);
    const res = await pool.query<OutboxRow>(claimSql(Boolean(workspaceFilter), opts.fairShare !== false), params);
    // The next claim serves the workspaces after the last one this claim served (in turns when more have a backlog).
    let last = '';
    for (const r of res.rows) if (r.workspace_id > last) last = r.workspace_id;
    if (last) workspaceCursor = last;
    return res.rows.map(toClaimed).sort((a, b) => (BigInt(a.event.id) < BigInt(b.event.id) ? -1 : 1));
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
      recovery.delivered(subscriber.name, event.workspaceId);
    };
    await handOver(subscriber, pending, concurrency, fail, succeed);
    // The last one to finish leaves it to the outcome statement that follows at once.
    if (succeeded.length && inFlight.count > 1) marks.add(subscriber.name, succeeded);
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
      park.push(...parkRows(event.id, out.failures, out.queued, backoff, maxAttempts));
      const error = out.errors.length ? out.errors.join('; ').slice(0, 4000) : null;
      return { id: event.id, subs: out.delivered, done: true, error, delay_ms: 0 };
    });
    const res = park.length
      ? await pool.query<{ id: string; more: boolean; parked: number }>(RECORD_WITH_PARKED_SQL, [
          id,
          JSON.stringify(rows),
          JSON.stringify(park),
        ])
      : await pool.query<{ id: string; more: boolean; parked?: number }>(RECORD_SQL, [id, JSON.stringify(rows)]);
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
    const parkedCount = res.rows[0]?.parked ?? 0;
    if (parkedCount > 0) {
      const workspaceOf = new Map(claimed.map(({ event }) => [event.id, event.workspaceId]));
      for (const p of park)
        if (p.status === 'pending' && p.attempts > 0) recovery.parked(p.subscriber, workspaceOf.get(p.outbox_id)!);
    }
    // A queued row may be claimable at once (its parked head was delivered meanwhile); a failure after its delay.
    if (parkedCount > 0) parked.wake(Math.min(...park.filter((p) => p.status === 'pending').map((p) => p.delay_ms)));
    return { written, chained: res.rows.some((r) => r.more), parked: parkedCount };
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
    const renew = keepLeased(pool, RENEW_EVENTS_SQL, [id, leaseMs, ids], leaseMs, (err) =>
      log.warn({ err: err.message }, 'outbox lease renewal failed'),
    );
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
      const marks = batchMarks(pool, id, log);
      await Promise.all(
        subscribers.map((s) =>
          deliverTo(s, claimed, outcomes, inFlight, marks).finally(() => {
            inFlight.count -= 1;
          }),
        ),
      );
      await marks.settle();
      const { written, chained, parked: parkedNow } = await record(claimed, outcomes);
      result.chained = chained;
      if (parkedNow) result.parked = parkedNow;
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
      const wait = pollIntervalMs;
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
        // New events wake a claim runner; an operator's retry the parked runner; a reconnect both.
        onWake: (payload) => {
          if (payload !== PARKED_DUE_PAYLOAD) wake();
          if (payload === undefined || payload === PARKED_DUE_PAYLOAD) parked.wake(0);
        },
      });
      await listener.start();
      loopDone = Promise.all([...Array.from({ length: parallelBatches }, loop), parked.loop()]).then(() => undefined);
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
      parked.stop();
      await listener?.stop();
      await loopDone;
      recovery.close();
      await recovery.settled();
      await pool.end();
      log.info('outbox dispatcher stopped');
    },
    drainOnce,
  };
}
