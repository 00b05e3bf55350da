// `npm run bench:automations`: the automation engine against a bare Temporal workflow, on one server.
//
// Engine: one active automation (record_created, entityTypes ['lead'], ACTIONS create_note actions
// in a chain). Leads are created through the leads service; their record_created events go through
// the outbox to the real subscribers (search indexing included) and start executions on an
// in-process Temporal worker with the real workflows and activities, wired as in the worker
// process (bin/worker.ts: starts through the worker's own connection, eagerly). Bare: a workflow
// (bench/bare.workflow.ts) with as many activities as an execution runs (ACTIONS + 1), each one
// small Postgres insert, started 8 at a time on the same server. The engine runs its create_note actions as
// local activities (engine version 3: CRM-only actions); the bare workflow's inserts are regular activities, i.e.
// what a plain one-activity-per-step Temporal design costs the server.
//
// Two phases each, every phase starting on a settled system (search tasks and outbox drained):
//  - throughput: BENCH_ROUNDS (default 3) rounds of one engine and one bare burst (alternating which
//    goes first), each EVENTS (500) runs, the leads committed in BATCHES transactions; runs/s from the
//    first commit (start) to the last completion; medians of the rounds, ratio = median of the rounds'
//    ratios; latencies printed but queue-dominated (an event waits for the ones committed before it);
//  - latency: PACED_EVENTS runs, one lead per transaction (one start) at PACED_LOAD (50%) of the
//    engine's measured throughput, below saturation: event → first action and event → done.
// Each run is timed from its rows (commit time, step start, finished_at), not from polling.
//
// Uses DATABASE_URL / TEMPORAL_ADDRESS / MEILI_URL when all set (database assumed migrated);
// otherwise starts the stack (test profile, a fresh .data/bench-automations, own ports: CRM_BENCH_PG_PORT
// 54369, CRM_BENCH_MEILI_PORT 7769, CRM_BENCH_TEMPORAL_PORT 7269, CRM_BENCH_TEMPORAL_UI_PORT 8269),
// migrates it and stops it at the end. Options: BENCH_EVENTS (≥ 500), BENCH_PACED_EVENTS (≥ 20),
// BENCH_PACED_RATE (events/s instead of 50% of the throughput), BENCH_KEEP_DATA=1 (keep the rows).
// Last line: RESULT exec_per_s=<x> bare_per_s=<x> ratio=<x> p50_first_action_ms=<n> p95_ms=<n>
// (throughput figures from the throughput phase; p50 first action and p95 event → done from the
// latency phase).
import { MikroORM } from '@mikro-orm/postgresql';
import { Worker } from '@temporalio/worker';
import { loadavg } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { crmDataConverter } from '../platform/temporal/codec';
import { createWorkflowPort } from '../platform/temporal/workflow-client';
import { type AppConfig } from '../platform/config';
import { createSearchIndexSubscriber } from '../search/index-subscriber';
import { createMeiliClient } from '../search/meili';
import { SCOPES, type Ctx } from '../platform/context';
import { forkForWorkspace } from '../platform/orm/tenant';
import { createOutboxDispatcher, type OutboxDispatcher } from '../platform/outbox/dispatcher';
import { buildSubscribers } from '../app/subscribers';
import { createWorkspace } from '../modules/workspaces/workspaces.service';
import { devDataDir } from '../infra/paths';
import type { RunningStack } from '../infra/stack';
import { benchLog, runBench, stackCpu, deleteWorkspaceRows } from './bench-stack';
import { createEngineWorker, openEngineBench } from './engine-bench';
import {
  createBenchAutomation,
  createLeads,
  engineLatencies,
  completedExecutions,
  latencyLegs,
} from './automation-runs';
import { measureBare, measureBarePaced, type BareSetup } from './bare-runs';
import { alternating, figures, median, poller, sleep, type Figures, type Latencies } from './stats';

const EVENTS = Math.max(500, Number(process.env.BENCH_EVENTS ?? 500));
const ACTIONS = 2;
/** Leads are created in this many transactions (all events of one commit become visible at once). */
const BATCHES = 5;
const WARMUP = 5;
/** The dispatcher's parallel deliveries (each a workflow start); the bare side starts as many at once. */
const CONCURRENCY = 8;
const TIMEOUT_MS = 180_000;
/** Latency phase: this many events, one per transaction, at this share of the measured throughput. */
const PACED_EVENTS = Math.max(20, Number(process.env.BENCH_PACED_EVENTS ?? 100));
const PACED_LOAD = 0.5;
const TARGET_RATIO = 0.6;
/** Throughput rounds of one engine burst and one bare burst each; medians compared. */
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));
const TARGET_FIRST_ACTION_MS = 300;
const BARE_TABLE = 'bench_bare_step';
const log = benchLog;

// Figures come from the rows' timestamps, not from this poll: it only needs to notice the end.
const until = poller(TIMEOUT_MS, 200);

/** One throughput round: EVENTS leads in BATCHES transactions, after `before` completed executions. */
async function measureEngine(orm: MikroORM, pool: pg.Pool, ctx: Omit<Ctx, 'em'>, automationId: string, before: number) {
  log(`engine: ${EVENTS} leads in ${BATCHES} transactions…`);
  const committed = await createLeads(orm, ctx, EVENTS, { batches: BATCHES });
  await completedExecutions(until, pool, automationId, before + EVENTS);
  const burst = await engineLatencies(pool, automationId, committed);
  const result = figures(burst.starts, burst.ends);
  return { ...result, firstActionP50: burst.firstActionP50, firstActionP95: burst.firstActionP95 };
}

/** The latency phase: PACED_EVENTS leads at a steady rate below saturation. */
async function measureEnginePaced(
  orm: MikroORM,
  pool: pg.Pool,
  ctx: Omit<Ctx, 'em'>,
  automationId: string,
  ratePerS: number,
  before: number,
): Promise<Latencies> {
  log(`engine latency: ${PACED_EVENTS} leads, one per transaction, ${ratePerS.toFixed(1)}/s…`);
  const committed = await createLeads(orm, ctx, PACED_EVENTS, { everyMs: 1000 / ratePerS });
  await completedExecutions(until, pool, automationId, before + PACED_EVENTS);
  log(`engine latency, median per leg (ms): ${await latencyLegs(pool, automationId, committed)}`);
  return engineLatencies(pool, automationId, committed);
}

/**
 * Waits until the work the engine phase left behind is done (search index tasks, outbox events of
 * the workspace) and the machine had a second to settle, so the bare phase starts as idle as the
 * engine phase did.
 */
async function settle(pool: pg.Pool, config: AppConfig, workspaceId: string): Promise<void> {
  const meili = createMeiliClient(config.meiliUrl, config.meiliMasterKey, { timeoutMs: 10_000 });
  await until(
    'Meilisearch to finish its tasks',
    async () => (await meili.tasks.getTasks({ statuses: ['enqueued', 'processing'], limit: 1 })).results.length === 0,
  );
  await until('the outbox to drain', async () => {
    const { rows } = await pool.query<{ n: number }>(
      'select count(*)::int as n from outbox_event where workspace_id = $1 and processed_at is null',
      [workspaceId],
    );
    return rows[0]!.n === 0;
  });
  await sleep(1000);
}

/** Removes every row of the bench workspace, so a shared database is left as it was. */
async function cleanup(pool: pg.Pool, workspaceId: string | undefined): Promise<void> {
  await pool.query(`drop table if exists ${BARE_TABLE}`);
  if (workspaceId) await deleteWorkspaceRows(pool, workspaceId);
}

async function run(stack: RunningStack | undefined): Promise<string[]> {
  const bench = await openEngineBench(stack, 'automations');
  const { config, taskQueue, appLog, pool, orm, native, localClient } = bench;
  // As in the worker process (bin/worker.ts): starts go through the worker's own connection, eagerly.
  const workflows = createWorkflowPort(localClient, taskQueue, { eagerStart: true });
  const running: { worker: Worker; done: Promise<void> }[] = [];
  let dispatcher: OutboxDispatcher | undefined;
  let workspaceId: string | undefined;
  const out: string[] = [];
  try {
    await pool.query(
      `create unlogged table if not exists ${BARE_TABLE} (run_id varchar(24) not null, step int not null, done_at timestamptz not null, primary key (run_id, step))`,
    );
    log('bundling workflows and starting the engine and bare workers…');
    const engineWorker = await createEngineWorker(bench, workflows);
    const bareQueue = `${taskQueue}-bare`;
    const bareWorker = await Worker.create({
      connection: native,
      namespace: config.temporalNamespace,
      taskQueue: bareQueue,
      workflowsPath: require.resolve('./bare.workflow'),
      dataConverter: crmDataConverter(config.temporalCodec.payloadKeys),
      activities: {
        async bareStep(input: { runId: string; step: number }): Promise<void> {
          await pool.query(
            `insert into ${BARE_TABLE} (run_id, step, done_at) values ($1, $2, $3) on conflict do nothing`,
            [input.runId, input.step, new Date()],
          );
        },
      },
    });
    for (const worker of [engineWorker, bareWorker]) running.push({ worker, done: worker.run() });
    const bareSide: BareSetup = {
      client: localClient,
      pool,
      taskQueue: bareQueue,
      steps: ACTIONS + 1,
      table: BARE_TABLE,
    };

    const ws = await createWorkspace(orm.em.fork(), { name: 'Automation benchmark' });
    workspaceId = ws.workspaceId;
    const actor = { workspaceId, userId: ws.userId, role: 'owner' as const, scopes: [...SCOPES] };
    const automationId = await createBenchAutomation({ em: forkForWorkspace(orm.em, workspaceId), actor }, ACTIONS);
    dispatcher = createOutboxDispatcher({
      pgConnectionString: config.databaseUrl,
      workspaceIds: [workspaceId],
      log: appLog,
      concurrency: CONCURRENCY,
      parallelBatches: Number(process.env.BENCH_PARALLEL_BATCHES ?? 1),
      subscribers: buildSubscribers(
        { orm, config, log: appLog, workflows, searchIndex: createSearchIndexSubscriber },
        { without: ['webhooks', 'sequences'] },
      ),
    });
    await dispatcher.start();

    const quiet = (): Promise<void> => settle(pool, config, workspaceId!);
    const ctx = { actor };
    log(`warm-up: ${WARMUP} leads, ${WARMUP} bare workflows…`);
    await createLeads(orm, ctx, WARMUP, { batches: 1 });
    await completedExecutions(until, pool, automationId, WARMUP);
    await measureBare(bareSide, WARMUP, CONCURRENCY);
    await quiet();
    let executions = WARMUP;
    // Rounds of one engine burst and one bare burst (alternating which goes first, so a change of the
    // machine's load hits both); the figures are the medians, the ratio the median of the rounds' ratios.
    const rounds: { engine: Awaited<ReturnType<typeof measureEngine>>; bare: Figures; load: number }[] = [];
    // CPU by process of this stack only (the machine is shared): ms per run, summed over the rounds; a
    // Postgres backend that closes during a burst takes its CPU with it (lower bounds, never below 0).
    const dataDir = path.join(devDataDir(), 'bench-automations');
    const cpu = { engine: new Map<string, number>(), bare: new Map<string, number>() };
    const addCpu = (into: Map<string, number>, a: Map<string, number>, b: Map<string, number>): void => {
      for (const [label, ms] of b) into.set(label, (into.get(label) ?? 0) + Math.max(0, ms - (a.get(label) ?? 0)));
    };
    const perRun = (m: Map<string, number>): string => {
      const rows = [...m].map(([label, ms]) => [label, ms / (ROUNDS * EVENTS)] as const).sort((x, y) => y[1] - x[1]);
      const total = rows.reduce((sum, [, ms]) => sum + ms, 0);
      return `${rows.map(([label, ms]) => `${label} ${ms.toFixed(1)}`).join(', ')} (total ${total.toFixed(1)})`;
    };
    for (let round = 0; round < ROUNDS; round++) {
      log(`round ${round + 1}/${ROUNDS} (load ${loadavg()[0]!.toFixed(2)})…`);
      const engineBurst = async () => {
        const before = stackCpu(dataDir);
        const e = await measureEngine(orm, pool, ctx, automationId, executions);
        executions += EVENTS;
        await quiet(); // the round's search indexing and outbox tail count as its work
        addCpu(cpu.engine, before, stackCpu(dataDir));
        return e;
      };
      const bareBurst = async () => {
        const before = stackCpu(dataDir);
        const b = await measureBare(bareSide, EVENTS, CONCURRENCY);
        await quiet();
        addCpu(cpu.bare, before, stackCpu(dataDir));
        return b;
      };
      const [e, b] = await alternating(round, engineBurst, bareBurst);
      rounds.push({ engine: e, bare: b, load: loadavg()[0]! });
      log(
        `round ${round + 1}: engine ${e.perS.toFixed(1)}/s, bare ${b.perS.toFixed(1)}/s, ratio ${(e.perS / b.perS).toFixed(2)}`,
      );
    }
    const mid = (pick: (r: (typeof rounds)[number]) => number): number => median(rounds.map(pick));
    const engine = {
      perS: mid((r) => r.engine.perS),
      wallMs: mid((r) => r.engine.wallMs),
      p50: mid((r) => r.engine.p50),
      p95: mid((r) => r.engine.p95),
      firstActionP50: mid((r) => r.engine.firstActionP50),
      firstActionP95: mid((r) => r.engine.firstActionP95),
    };
    const bare = {
      perS: mid((r) => r.bare.perS),
      wallMs: mid((r) => r.bare.wallMs),
      p50: mid((r) => r.bare.p50),
      p95: mid((r) => r.bare.p95),
    };
    const ratio = median(rounds.map((r) => r.engine.perS / r.bare.perS));

    // Latency is measured below saturation: in the burst every event also waits for the ones committed before it.
    const pacedRate = Number(process.env.BENCH_PACED_RATE) || Math.max(1, engine.perS * PACED_LOAD);
    const enginePaced = await measureEnginePaced(orm, pool, ctx, automationId, pacedRate, executions);
    log(
      `engine latency: p50 ${enginePaced.p50} ms, p95 ${enginePaced.p95} ms, first action p50 ${enginePaced.firstActionP50} ms, p95 ${enginePaced.firstActionP95} ms`,
    );
    await quiet();
    await dispatcher.stop();
    dispatcher = undefined;
    log(`bare latency: ${PACED_EVENTS} workflows at ${pacedRate.toFixed(1)}/s…`);
    const barePaced = await measureBarePaced(bareSide, PACED_EVENTS, 1000 / pacedRate);
    log(
      `bare latency: p50 ${barePaced.p50} ms, p95 ${barePaced.p95} ms, first activity p50 ${barePaced.firstActionP50} ms`,
    );

    const row = (label: string, a: string, b: string): string =>
      `${label.padEnd(36)}${a.padStart(22)}${b.padStart(22)}`;
    const met = (ok: boolean): string => (ok ? 'met' : 'NOT met');
    out.push(
      row('', 'automation engine', 'bare workflow'),
      row('activities per run', `${ACTIONS} create_note + finish (all local)`, `${ACTIONS + 1} pg inserts`),
      `throughput: ${ROUNDS} rounds of ${EVENTS} runs each side, events committed in ${BATCHES} transactions (bare: ${CONCURRENCY} starts at a time); medians of the rounds`,
      `  rounds: engine ${rounds.map((r) => r.engine.perS.toFixed(1)).join(', ')}/s; bare ${rounds.map((r) => r.bare.perS.toFixed(1)).join(', ')}/s; ratio ${rounds.map((r) => (r.engine.perS / r.bare.perS).toFixed(2)).join(', ')}; load average after each ${rounds.map((r) => r.load.toFixed(1)).join(', ')}`,
      row('  wall time ms (first start → last done)', String(engine.wallMs), String(bare.wallMs)),
      row('  runs/s', engine.perS.toFixed(1), bare.perS.toFixed(1)),
      `  CPU ms per run by process (this stack only; bench = worker + dispatcher in-process): engine ${perRun(cpu.engine)}; bare ${perRun(cpu.bare)}`,
      row('  latency p50 / p95 ms (→ done)', `${engine.p50} / ${engine.p95}`, `${bare.p50} / ${bare.p95}`),
      row('  → first action p50 / p95 ms', `${engine.firstActionP50} / ${engine.firstActionP95}`, '-'),
      `latency: ${PACED_EVENTS} runs, one event (start) every ${Math.round(1000 / pacedRate)} ms = ${Math.round((pacedRate / engine.perS) * 100)}% of the engine's throughput`,
      row(
        '  latency p50 / p95 ms (→ done)',
        `${enginePaced.p50} / ${enginePaced.p95}`,
        `${barePaced.p50} / ${barePaced.p95}`,
      ),
      row(
        '  → first action p50 / p95 ms',
        `${enginePaced.firstActionP50} / ${enginePaced.firstActionP95}`,
        `${barePaced.firstActionP50} / ${barePaced.firstActionP95}`,
      ),
      `ratio ${ratio.toFixed(2)} (median of the rounds' ratios, target ≥ ${TARGET_RATIO}): ${met(ratio >= TARGET_RATIO)}`,
      `p50 event → first action ${enginePaced.firstActionP50} ms (target < ${TARGET_FIRST_ACTION_MS} ms): ${met(enginePaced.firstActionP50 < TARGET_FIRST_ACTION_MS)}`,
      `RESULT exec_per_s=${engine.perS.toFixed(1)} bare_per_s=${bare.perS.toFixed(1)} ratio=${ratio.toFixed(2)} p50_first_action_ms=${Math.round(enginePaced.firstActionP50)} p95_ms=${Math.round(enginePaced.p95)}`,
    );
  } finally {
    log('stopping and cleaning up…');
    await dispatcher?.stop().catch(() => undefined);
    for (const { worker } of running) if (worker.getState() === 'RUNNING') worker.shutdown();
    await Promise.all(running.map((r) => r.done.catch(() => undefined)));
    if (process.env.BENCH_KEEP_DATA === '1')
      log(`BENCH_KEEP_DATA=1: workspace ${workspaceId} and the bench tables are kept`);
    else await cleanup(pool, workspaceId).catch((err: unknown) => log(`cleanup failed: ${String(err)}`));
    await bench.close();
  }
  return out;
}

runBench('automations', { postgres: 54369, meilisearch: 7769, temporal: 7269, temporalUi: 8269 }, run);
