// `npm run bench:fairness`: one workspace's burst must not delay another workspace's runs (issue 27, part 3).
//
// Two workspaces on one stack (one in-process worker with the real workflows and activities, one outbox dispatcher
// with the real subscribers, wired and tuned as in the worker process), each with the same active automation
// (record_created lead → ACTIONS create_note actions). Workspace A creates BURST leads at once (in BATCHES
// transactions); workspace B creates one lead every B_INTERVAL_MS. Measured from the rows (lead commit → the
// execution's first action step):
//  1. idle: B alone, B_IDLE events → b_idle_p95_ms;
//  2. burst, fair sharing on (the product's default: the outbox claim serves workspaces in turns, each workspace has
//     at most AUTOMATION_MAX_IN_FLIGHT_PER_WORKSPACE runs in flight and queues the rest for the starter, which starts
//     the runs of a workspace with a backlog on the backlog lane, served by a backlog worker process at nice 19 as
//     under npm start; every workflow carries its workspace as Temporal fairness key): A's burst with B's trickle
//     beside it → b_burst_p95_ms, and A's throughput a_exec_per_s (first commit → last completion);
//  3. baseline, fair sharing off (first in, first out, as before issue 27; the same server): the same burst →
//     a_base_per_s and B's p95 then, for comparison.
// Targets: b_burst_p95_ms ≤ 2 × b_idle_p95_ms (ratio ≤ 2) and a_exec_per_s ≥ 0.9 × a_base_per_s.
//
// Uses DATABASE_URL / TEMPORAL_ADDRESS / MEILI_URL when all set; otherwise starts its own stack (ports
// CRM_BENCH_PG_PORT 54379, CRM_BENCH_MEILI_PORT 7779, CRM_BENCH_TEMPORAL_PORT 7279, CRM_BENCH_TEMPORAL_UI_PORT 8279)
// under .data/bench-fairness and stops it. Options: BENCH_BURST (default 2000), BENCH_B_IDLE (default 20),
// BENCH_ROUNDS (default 3: phases 1-3 again, each figure the median over the rounds).
// Last line: RESULT b_idle_p95_ms=… b_burst_p95_ms=… ratio=… a_exec_per_s=… a_base_per_s=… a_ratio=… rounds=…
import { Worker } from '@temporalio/worker';
import type { ChildProcess } from 'node:child_process';
import { loadavg } from 'node:os';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import type { Client } from '@temporalio/client';
import { createRunStarter, type RunStarter } from '../modules/automations/engine/starter';
import { inFlightLimit } from '../modules/automations/engine/in-flight';
import { SCOPES, type Actor } from '../platform/context';
import { forkForWorkspace } from '../platform/orm/tenant';
import { createOutboxDispatcher, WORKER_PARALLEL_BATCHES, type OutboxDispatcher } from '../platform/outbox/dispatcher';
import { buildSubscribers } from '../app/subscribers';
import { createWorkspace } from '../modules/workspaces/workspaces.service';
import type { RunningStack } from '../infra/stack';
import { createSearchIndexSubscriber } from '../search/index-subscriber';
import { createWorkflowPort } from '../platform/temporal/workflow-client';
import {
  createBenchAutomation,
  createLeads,
  engineLatencies,
  completedExecutions,
  latencyLegs,
  latencyOverTime,
} from './automation-runs';
import { benchEnv, benchLog, runBench, deleteWorkspaceRows } from './bench-stack';
import { startWorkerProcess } from './app-processes';
import { workerProcessEnv } from '../infra/worker-env';
import { createEngineWorker, openEngineBench } from './engine-bench';
import { figures, median, poller, sleep } from './stats';

/** BENCH_BACKLOG_LANE=0 (diagnosis only): fair sharing without the backlog lane and its worker process. */
const BACKLOG_LANE = process.env.BENCH_BACKLOG_LANE !== '0';
const BURST = Math.max(200, Number(process.env.BENCH_BURST ?? 2000));
const B_IDLE = Math.max(10, Number(process.env.BENCH_B_IDLE ?? 20));
/** Rounds (BENCH_ROUNDS, default 3): the RESULT line gives the median of each figure over them. */
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));
const B_INTERVAL_MS = 500;
const ACTIONS = 2;
const BATCHES = 5;
const CONCURRENCY = 8;
const TIMEOUT_MS = 600_000;
const log = benchLog;
const until = poller(TIMEOUT_MS, 200);

interface Side {
  workspaceId: string;
  actor: Actor;
  automationId: string;
}

/**
 * Where B waits (diagnosis, logged): this process's event-loop delay (the main worker, the dispatcher and the starter
 * run here) and a bare Temporal RPC's round trip (GetSystemInfo), sampled every second during a burst.
 */
function diagnose(label: string, client: Client): { stop(): Promise<void> } {
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  const rpcMs: number[] = [];
  let stopped = false;
  const sampling = (async () => {
    while (!stopped) {
      const at = performance.now();
      await client.workflowService.getSystemInfo({}).catch(() => undefined);
      rpcMs.push(performance.now() - at);
      await sleep(1000);
    }
  })();
  return {
    async stop() {
      stopped = true;
      await sampling;
      loop.disable();
      const sorted = [...rpcMs].sort((x, y) => x - y);
      const at = (q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
      log(
        `${label}: event-loop delay p50 ${(loop.percentile(50) / 1e6).toFixed(0)} ms, p99 ` +
          `${(loop.percentile(99) / 1e6).toFixed(0)} ms; a bare Temporal RPC p50 ${at(0.5).toFixed(0)} ms, p95 ` +
          `${at(0.95).toFixed(0)} ms`,
      );
    },
  };
}

async function run(stack: RunningStack | undefined): Promise<string[]> {
  const bench = await openEngineBench(stack, 'fairness');
  const { config, taskQueue, appLog, pool, orm, localClient } = bench;
  // As the main worker process builds it (bin/worker.ts, WORKER_ROLE=main): runs queued behind a workspace's backlog
  // go to the backlog lane, served by a backlog worker process at nice 19 (started below, as npm start runs it).
  const fairPort = createWorkflowPort(localClient, taskQueue, {
    eagerStart: true,
    ...(BACKLOG_LANE ? { backlogTaskQueue: config.temporalBacklogTaskQueue } : {}),
  });
  const fifoPort = createWorkflowPort(localClient, taskQueue, { eagerStart: true, fairShare: false });
  let fair = true;
  // Activities start child runs and sequences through this port: it follows the phase's mode.
  const workflows = new Proxy(fairPort, { get: (_t, key) => Reflect.get(fair ? fairPort : fifoPort, key) });
  let worker: Worker | undefined;
  let workerDone: Promise<void> | undefined;
  let backlogWorker: ChildProcess | undefined;
  let dispatcher: OutboxDispatcher | undefined;
  let starter: RunStarter | undefined;
  const sides: Side[] = [];
  const out: string[] = [];
  try {
    log('bundling workflows and starting the worker…');
    // As the worker process sets them (bin/worker.ts startTemporalWorker).
    worker = await createEngineWorker(bench, workflows, {
      maxCachedWorkflows: config.temporalMaxCachedWorkflows,
      stickyQueueScheduleToStartTimeout: config.temporalStickyTimeoutMs,
      maxConcurrentActivityTaskExecutions: config.temporalMaxConcurrentActivities,
      maxConcurrentLocalActivityExecutions: config.temporalMaxConcurrentActivities,
      maxConcurrentWorkflowTaskExecutions: config.temporalMaxConcurrentWorkflowTasks,
    });
    workerDone = worker.run();

    for (const name of ['A (burst)', 'B (trickle)']) {
      const ws = await createWorkspace(orm.em.fork(), { name: `Fairness benchmark ${name}` });
      const actor = { workspaceId: ws.workspaceId, userId: ws.userId, role: 'owner' as const, scopes: [...SCOPES] };
      const automationId = await createBenchAutomation(
        { em: forkForWorkspace(orm.em, ws.workspaceId), actor },
        ACTIONS,
      );
      sides.push({ workspaceId: ws.workspaceId, actor, automationId });
    }
    const [a, b] = sides as [Side, Side];
    const startDispatcher = async (fairShare: boolean): Promise<void> => {
      await dispatcher?.stop();
      await starter?.stop();
      fair = fairShare;
      // As the worker process runs it: the starter of queued runs, with the cap on runs in flight when fair.
      starter = createRunStarter(
        {
          orm,
          log: appLog,
          workflows,
          inFlight: fairShare ? inFlightLimit(config) : undefined,
        },
        { connectionString: config.databaseUrl, workspaceIds: () => [a.workspaceId, b.workspaceId] },
      );
      await starter.start();
      dispatcher = createOutboxDispatcher({
        pgConnectionString: config.databaseUrl,
        workspaceIds: [a.workspaceId, b.workspaceId],
        log: appLog,
        concurrency: CONCURRENCY,
        // As the worker process runs it (bin/worker.ts).
        parallelBatches: WORKER_PARALLEL_BATCHES,
        fairShare,
        subscribers: buildSubscribers(
          {
            orm,
            config,
            log: appLog,
            workflows: fairShare ? fairPort : fifoPort,
            searchIndex: createSearchIndexSubscriber,
            runStarter: fairShare,
          },
          { without: ['webhooks', 'sequences'] },
        ),
      });
      await dispatcher.start();
    };
    const done = { a: 0, b: 0 };
    const completed = async (side: Side, key: 'a' | 'b', n: number): Promise<void> => {
      done[key] += n;
      await completedExecutions(until, pool, side.automationId, done[key], key.toUpperCase());
    };

    /** A's burst with B's trickle beside it: A's throughput and B's first-action latencies. */
    const burst = async (label: string) => {
      log(`${label}: A commits ${BURST} leads in ${BATCHES} transactions, B one lead every ${B_INTERVAL_MS} ms…`);
      let aDone = false;
      const bCommitted = new Map<string, number>();
      const trickle = (async () => {
        for (let i = 0; !aDone; i++) {
          const at = Date.now();
          for (const [id, t] of await createLeads(orm, { actor: b.actor }, 1, { everyMs: 0 })) bCommitted.set(id, t);
          await sleep(Math.max(0, B_INTERVAL_MS - (Date.now() - at)));
        }
      })();
      const probe = diagnose(label, localClient);
      const burstAt = Date.now();
      const aCommitted = await createLeads(orm, { actor: a.actor }, BURST, { batches: BATCHES });
      await completed(a, 'a', BURST);
      aDone = true;
      await trickle;
      await probe.stop();
      await completed(b, 'b', bCommitted.size);
      const aRuns = await engineLatencies(pool, a.automationId, aCommitted);
      const bRuns = await engineLatencies(pool, b.automationId, bCommitted);
      const aFig = figures(aRuns.starts, aRuns.ends);
      log(`${label}: B's legs, median ms: ${await latencyLegs(pool, b.automationId, bCommitted)}`);
      log(`${label}: B's first action over time: ${await latencyOverTime(pool, b.automationId, bCommitted, burstAt)}`);
      log(
        `${label}: A ${aFig.perS.toFixed(1)} runs/s (${aFig.wallMs} ms); B ${bCommitted.size} events, first action ` +
          `p50 ${bRuns.firstActionP50} ms, p95 ${bRuns.firstActionP95} ms (load ${loadavg()[0]!.toFixed(1)})`,
      );
      return { aPerS: aFig.perS, bP50: bRuns.firstActionP50, bP95: bRuns.firstActionP95, bCount: bCommitted.size };
    };

    const startBacklogWorker = async (): Promise<void> => {
      if (!BACKLOG_LANE) return;
      log(`starting the backlog worker process (WORKER_ROLE=backlog, nice 19, ${config.temporalBacklogTaskQueue})…`);
      backlogWorker = await startWorkerProcess(
        workerProcessEnv({
          ...benchEnv(stack),
          TEMPORAL_TASK_QUEUE: taskQueue,
          WORKER_ROLE: 'backlog',
          WORKER_NICE: '19',
          LOG_LEVEL: 'info',
        }),
      );
    };
    const stopBacklogWorker = async (): Promise<void> => {
      const child = backlogWorker;
      backlogWorker = undefined;
      if (!child || child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    };

    await startBacklogWorker();
    await startDispatcher(true);
    log('warm-up: 5 leads in each workspace…');
    await createLeads(orm, { actor: a.actor }, 5, { batches: 1 });
    await createLeads(orm, { actor: b.actor }, 5, { batches: 1 });
    await completed(a, 'a', 5);
    await completed(b, 'b', 5);

    // Each round: B idle, A's burst with fair sharing on, the same burst with it off (the baseline, in this process).
    const rounds: {
      idleP95: number;
      fair: Awaited<ReturnType<typeof burst>>;
      fifo: Awaited<ReturnType<typeof burst>>;
    }[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      if (round > 1) {
        await startBacklogWorker();
        await startDispatcher(true);
      }
      log(`round ${round}/${ROUNDS}: idle: B alone, ${B_IDLE} leads one every ${B_INTERVAL_MS} ms…`);
      const idleProbe = diagnose(`round ${round}: idle`, localClient);
      const idleCommitted = await createLeads(orm, { actor: b.actor }, B_IDLE, { everyMs: B_INTERVAL_MS });
      await completed(b, 'b', B_IDLE);
      await idleProbe.stop();
      const idle = await engineLatencies(pool, b.automationId, idleCommitted);
      log(`round ${round}: idle: B first action p50 ${idle.firstActionP50} ms, p95 ${idle.firstActionP95} ms`);
      log(`round ${round}: idle: B's legs, median ms: ${await latencyLegs(pool, b.automationId, idleCommitted)}`);

      const fairRun = await burst(`round ${round}: fair sharing on`);
      await sleep(2000);
      // The baseline is the engine before fair sharing: one worker, nothing on a backlog lane.
      await stopBacklogWorker();
      await startDispatcher(false);
      // BENCH_SKIP_BASELINE=1 (diagnosis only): no baseline burst; the RESULT line then has no a_base_per_s figure.
      const fifoRun =
        process.env.BENCH_SKIP_BASELINE === '1'
          ? { aPerS: Number.NaN, bP50: Number.NaN, bP95: Number.NaN, bCount: 0 }
          : await burst(`round ${round}: baseline, fair sharing off`);
      await dispatcher?.stop();
      dispatcher = undefined;
      await starter?.stop();
      starter = undefined;
      rounds.push({ idleP95: idle.firstActionP95, fair: fairRun, fifo: fifoRun });
      const r = rounds.at(-1)!;
      log(
        `round ${round}: ratio=${(r.fair.bP95 / Math.max(1, r.idleP95)).toFixed(2)} ` +
          `a_ratio=${(r.fair.aPerS / r.fifo.aPerS).toFixed(2)}`,
      );
    }

    // The median round by each figure (ROUNDS rounds; one round: its own figures).
    const idleP95 = median(rounds.map((r) => r.idleP95));
    const burstP95 = median(rounds.map((r) => r.fair.bP95));
    const ratio = median(rounds.map((r) => r.fair.bP95 / Math.max(1, r.idleP95)));
    const aPerS = median(rounds.map((r) => r.fair.aPerS));
    const basePerS = median(rounds.map((r) => r.fifo.aPerS));
    const aRatio = median(rounds.map((r) => r.fair.aPerS / r.fifo.aPerS));
    const met = (ok: boolean): string => (ok ? 'met' : 'NOT met');
    out.push(
      ...rounds.map(
        (r, i) =>
          `round ${i + 1}: B idle p95 ${r.idleP95} ms; fair sharing on: A ${r.fair.aPerS.toFixed(1)} runs/s, B ` +
          `${r.fair.bCount} events p50 ${r.fair.bP50} ms p95 ${r.fair.bP95} ms; off: A ${r.fifo.aPerS.toFixed(1)} ` +
          `runs/s, B p50 ${r.fifo.bP50} ms p95 ${r.fifo.bP95} ms; ratio ${(r.fair.bP95 / Math.max(1, r.idleP95)).toFixed(2)}` +
          `, a_ratio ${(r.fair.aPerS / r.fifo.aPerS).toFixed(2)}`,
      ),
      `medians of ${ROUNDS} round(s):`,
      `B's p95 during A's burst / idle = ${ratio.toFixed(2)} (target ≤ 2): ${met(ratio <= 2)}`,
      `A's throughput with fair sharing / without = ${aRatio.toFixed(2)} (target ≥ 0.9): ${met(aRatio >= 0.9)}`,
      `RESULT b_idle_p95_ms=${Math.round(idleP95)} b_burst_p95_ms=${Math.round(burstP95)} ratio=${ratio.toFixed(2)} a_exec_per_s=${aPerS.toFixed(1)} a_base_per_s=${basePerS.toFixed(1)} a_ratio=${aRatio.toFixed(2)} rounds=${ROUNDS}`,
    );
  } finally {
    log('stopping and cleaning up…');
    await dispatcher?.stop().catch(() => undefined);
    await starter?.stop().catch(() => undefined);
    if (backlogWorker && backlogWorker.exitCode === null) backlogWorker.kill('SIGTERM');
    if (worker?.getState() === 'RUNNING') worker.shutdown();
    await workerDone?.catch(() => undefined);
    for (const s of sides)
      await deleteWorkspaceRows(pool, s.workspaceId).catch((err: unknown) => log(`cleanup: ${String(err)}`));
    await bench.close();
  }
  return out;
}

runBench('fairness', { postgres: 54379, meilisearch: 7779, temporal: 7279, temporalUi: 8279 }, run);
