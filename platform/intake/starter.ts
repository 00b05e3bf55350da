/**
 * The starter (worker process): starts the workflows of rows the API committed as queued
 * (automation runs, sequence enrollments), in batches. The queued rows are the queue: each kind
 * (a StartQueue) claims a batch in one statement (FOR UPDATE SKIP LOCKED, a lease), its workflows
 * are started with their deterministic ids (a repeat is `already_started`), then the rows say so.
 * Woken by NOTIFY on commit (eager); a slow poll is only the fallback. A starter that dies leaves
 * its claims to expire and be taken over: nothing lost, nothing started twice.
 */
import type { Logger } from '../logger';
import { createOutboxListener, type OutboxListener } from '../outbox/listener';
import { mapLimited } from '../shared/concurrency';
import { isRpcUnavailable } from '../shared/unavailable';
import { queuedRuns, START_QUEUE_CHANNEL } from './queue-signal';

const BATCH = 200;
const START_CONCURRENCY = 32;
const LEASE_S = 15;
const POLL_MS = 5_000;
/** After the engine refused starts as unavailable: wait before claiming again (the lease also holds). */
const UNAVAILABLE_PAUSE_MS = 1_000;

/** One kind of queued start. */
export interface StartQueue<R extends { id: string } = { id: string }> {
  /** For logs: "run", "enrollment". */
  name: string;
  /** Claims up to `limit` queued rows (of `scope` workspaces when set) and leases them for `leaseS` seconds. */
  claim(scope: readonly string[] | undefined, limit: number, leaseS: number): Promise<R[]>;
  /** The starts of one claimed batch (per-batch look-ups live in its closure); `start` throws when refused. */
  starter(rows: R[]): { start(row: R): Promise<unknown> };
  /** A start the engine refused (not an outage) would be refused again: the row ends, saying why. */
  refused(row: R, reason: string): Promise<void>;
  /** The rows whose workflow started say so (and one ended meanwhile gets its workflow told). */
  markStarted(rows: R[], ids: string[]): Promise<void>;
}

export interface RunStarter {
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Claims and starts until nothing is queued (tests, benches); resolves with the number started. */
  drain(): Promise<number>;
}

export interface RunStarterOptions {
  /** Postgres connection string for the LISTEN connection; without it only in-process signals and the poll wake it. */
  connectionString?: string;
  /** Only these workspaces (tests, benches); all when unset. */
  workspaceIds?: () => readonly string[] | undefined;
  pollMs?: number;
}

export function createStarter(log: Logger, queues: StartQueue[], opts: RunStarterOptions = {}): RunStarter {
  let listener: OutboxListener | null = null;
  let timer: NodeJS.Timeout | null = null;
  let stopped = true;
  let running: Promise<number> | null = null;
  let again = false;

  /** Starts one claimed batch; `unavailable` when the engine was (those rows stay queued). */
  const startBatch = async (q: StartQueue, rows: { id: string }[]) => {
    const batch = q.starter(rows);
    let unavailable = false;
    const started: string[] = [];
    await mapLimited(rows, START_CONCURRENCY, async (r) => {
      try {
        await batch.start(r);
        started.push(r.id);
      } catch (err) {
        if (isRpcUnavailable(err)) {
          unavailable = true;
          return;
        }
        log.error({ err, id: r.id, kind: q.name }, 'start refused');
        const why = (err instanceof Error ? err.message : String(err)).slice(0, 500);
        await q
          .refused(r, `could not start the workflow: ${why}`)
          .catch((e: unknown) => log.error({ err: e, id: r.id, kind: q.name }, 'marking a refused start failed'));
      }
    });
    return { started, unavailable };
  };

  const loop = async (): Promise<number> => {
    let total = 0;
    for (;;) {
      again = false;
      const scope = opts.workspaceIds?.();
      if (scope && !scope.length) return total;
      let claimed = 0;
      let waiting = 0;
      for (const q of queues) {
        const rows = await q.claim(scope, BATCH, LEASE_S);
        if (!rows.length) continue;
        claimed += rows.length;
        const { started, unavailable } = await startBatch(q, rows);
        await q.markStarted(rows, started);
        total += started.length;
        if (unavailable) waiting += rows.length - started.length;
      }
      if (waiting) {
        log.warn({ waiting }, 'workflow engine unavailable: queued starts wait');
        await new Promise((r) => setTimeout(r, UNAVAILABLE_PAUSE_MS));
        return total;
      }
      if (!claimed && !again) return total;
    }
  };

  const run = (): Promise<number> => {
    if (running) {
      again = true;
      return running;
    }
    running = loop()
      .catch((err: unknown) => {
        log.error({ err }, 'starter pass failed; the next wake retries');
        return 0;
      })
      .finally(() => {
        running = null;
        if (again && !stopped) void run();
      });
    return running;
  };

  const onQueued = (): void => {
    if (!stopped) void run();
  };

  return {
    async start() {
      stopped = false;
      queuedRuns.on('queued', onQueued);
      if (opts.connectionString) {
        listener = createOutboxListener({
          connectionString: opts.connectionString,
          applicationName: 'crm-run-starter',
          channel: START_QUEUE_CHANNEL,
          log,
          onWake: onQueued,
        });
        await listener.start();
      }
      timer = setInterval(onQueued, opts.pollMs ?? POLL_MS);
      timer.unref();
      void run();
    },
    async stop() {
      stopped = true;
      queuedRuns.off('queued', onQueued);
      if (timer) clearInterval(timer);
      await listener?.stop();
      await running?.catch(() => undefined);
    },
    async drain() {
      let n = 0;
      while (running) n += await running;
      return n + (await run());
    },
  };
}
