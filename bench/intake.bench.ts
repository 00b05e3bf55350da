// `npm run bench:intake`: the durable intake of webhook-triggered automations from outside.
//
// The production API (bin/api.ts) and worker (bin/worker.ts: Temporal worker, outbox dispatcher and
// the run starter) run as child processes; autocannon drives 50 connections POSTing the webhook
// trigger of an active automation (one create_task action). Each round has two phases: throughput
// (the connections send as fast as they are answered, DURATION_S) gives accepted/s; latency (the
// connections together offer BENCH_RATE requests/s, 1,000 by default, for BENCH_LATENCY_S) gives
// p50/p99, counted from each request's scheduled send time. With 50 connections always busy, a
// closed loop's latency is 50 / throughput by construction (50 ms at 1,000/s), so the latency
// targets are read at the target rate. Each round has its own automation; after the load the bench
// waits until every accepted run finished.
// Counted from the database: `lost` = 202 answers without a finished run (or without a row), and
// `duplicated` = tasks created beyond one per accepted run (each run creates exactly one task).
// Figures are the median of ROUNDS rounds (lost and duplicated are summed).
//
// Uses DATABASE_URL / TEMPORAL_ADDRESS / MEILI_URL when all set (database assumed migrated);
// otherwise starts the stack (test profile, fresh data folder; ports CRM_BENCH_PG_PORT 42101,
// CRM_BENCH_MEILI_PORT 42102, CRM_BENCH_TEMPORAL_PORT 42103, CRM_BENCH_TEMPORAL_UI_PORT 42104).
// CPU priorities as under npm start (WORKER_NICE and TEMPORAL_NICE 10; see below).
// Options: BENCH_CPU_PROF=1 (CPU profiles of the API and worker), BENCH_ROUNDS (3), BENCH_DURATION_S (3),
// BENCH_RATE (1000), BENCH_LATENCY_S (2), BENCH_CONNECTIONS (50), CRM_BENCH_API_PORT (42110).
// Last line: RESULT accepted_per_s=… p50_ms=… p99_ms=… completed_per_s=… lost=… duplicated=…
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import autocannon from 'autocannon';
import { MikroORM } from '@mikro-orm/postgresql';
import pg from 'pg';
import { createAutomation, toggleAutomation } from '../modules/automations/automations.service';
import { automationCreateBody } from '../modules/automations/definition.schemas';
import { SCOPES, type Ctx } from '../platform/context';
import { ormConfig } from '../app/orm';
import { runMigrations } from '../app/migrate';
import { forkForWorkspace } from '../platform/orm/tenant';
import { createWorkspace } from '../modules/workspaces/workspaces.service';
import { repoRoot } from '../infra/paths';
import type { RunningStack } from '../infra/stack';
import { benchEnv, benchLog as log, cpuByGroup, cpuDelta, runBench } from './bench-stack';
import { median, sleep } from './stats';

// The processes at the CPU priorities `npm start` gives them on one machine: the worker lowers its own (WORKER_NICE,
// default 10) and the embedded Temporal server runs at TEMPORAL_NICE, 10 under npm start (the dev profile) but 0 in
// the test profile the bench's stack uses, hence set here; TEMPORAL_NICE=0 WORKER_NICE=0 measures without.
process.env.TEMPORAL_NICE ??= '10';
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));
const DURATION_S = Math.max(1, Number(process.env.BENCH_DURATION_S ?? 3));
const RATE = Math.max(1, Number(process.env.BENCH_RATE ?? 1000));
const LATENCY_S = Math.max(1, Number(process.env.BENCH_LATENCY_S ?? 2));
const CONNECTIONS = Math.max(1, Number(process.env.BENCH_CONNECTIONS ?? 50));
const API_PORT = Number(process.env.CRM_BENCH_API_PORT ?? 42110);
const SECRET = 'bench-intake-secret';
const DRAIN_TIMEOUT_MS = 600_000;
const TARGETS = { acceptedPerS: 1000, p50: 10, p99: 50 };

function child(script: string, env: NodeJS.ProcessEnv, ready: RegExp): Promise<ChildProcess> {
  // BENCH_CPU_PROF=1: each child writes a V8 CPU profile (.data/bench/profiles) when it exits.
  const prof = process.env.BENCH_CPU_PROF
    ? ['--cpu-prof', `--cpu-prof-dir=${path.join(repoRoot, '.data', 'bench', 'profiles')}`]
    : [];
  const proc = spawn(process.execPath, [...prof, '--import', 'tsx', path.join(repoRoot, script)], {
    cwd: repoRoot,
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let seen = '';
    const onData = (chunk: Buffer): void => {
      if (!ready.test(seen)) seen = (seen + chunk.toString()).slice(-4000);
      if (ready.test(seen)) resolve(proc);
    };
    // Keep reading (the request log goes here) so the child never blocks on a full pipe.
    proc.stdout!.on('data', onData);
    proc.once('exit', (code) => reject(new Error(`${script} exited (${code}) before it was ready`)));
  });
}

async function stopChild(proc: ChildProcess | undefined): Promise<void> {
  if (!proc || proc.exitCode !== null) return;
  const exited = new Promise((r) => proc.once('exit', r));
  proc.kill('SIGTERM');
  const timer = setTimeout(() => proc.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

async function webhookAutomation(ctx: Ctx, round: number): Promise<string> {
  const nodes = [
    { id: 'trigger', type: 'trigger', data: { triggerType: 'webhook', config: { secret: SECRET } } },
    {
      id: 'n1',
      type: 'action',
      data: {
        actionType: 'create_task',
        // Every run books the same owner at the same time: find_next (the default) would search that
        // calendar for a free slot, a cost growing with the runs, which is not what this bench measures.
        config: { title: `Intake bench ${round}`, conflictPolicy: 'create_anyway' },
      },
    },
  ].map((n, i) => ({ ...n, position: { x: 500, y: i * 200 } }));
  const edges = [{ id: 'e1', source: 'trigger', target: 'n1', sourceHandle: null }];
  const saved = await createAutomation(
    ctx,
    automationCreateBody.parse({ name: `Intake bench ${round}`, nodes, edges }),
  );
  const id = saved.data._id as string;
  const toggled = await toggleAutomation({ ...ctx, em: ctx.em.fork() }, id);
  if (!toggled.isActive) throw new Error('the bench automation could not be activated');
  return id;
}

interface Round {
  acceptedPerS: number;
  /** Answered per second at the offered RATE (the latency phase). */
  pacedPerS: number;
  p50: number;
  p99: number;
  completedPerS: number;
  lost: number;
  duplicated: number;
  other: number;
}

interface Procs {
  api: ChildProcess;
  worker: ChildProcess;
}
const snapshot = (p: Procs) => cpuByGroup({ api: p.api.pid!, worker: p.worker.pid!, bench: process.pid });

async function round(pool: pg.Pool, ctx: Ctx, procs: Procs, n: number, durationS = DURATION_S): Promise<Round> {
  const automationId = await webhookAutomation(ctx, n);
  const url = `http://127.0.0.1:${API_PORT}/api/webhooks/automation/${automationId}`;
  // One request first: a misconfigured run fails here, loudly, instead of measuring nothing.
  const probe = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-webhook-secret': SECRET },
    body: JSON.stringify({ source: 'probe' }),
    signal: AbortSignal.timeout(10_000),
  });
  if (probe.status !== 202) throw new Error(`the webhook answered ${probe.status}: ${await probe.text()}`);
  const load = (opts: { duration: number; overallRate?: number }) =>
    autocannon({
      url,
      method: 'POST',
      connections: CONNECTIONS,
      headers: { 'content-type': 'application/json', 'x-webhook-secret': SECRET },
      body: JSON.stringify({ source: 'bench' }),
      ...opts,
    });
  log(`round ${n}: throughput, ${CONNECTIONS} connections as fast as answered, ${durationS} s…`);
  const t0 = Date.now();
  const cpu0 = snapshot(procs);
  const result = await load({ duration: durationS });
  const cpu1 = snapshot(procs);
  log(`round ${n}: latency, ${CONNECTIONS} connections offering ${RATE}/s together, ${LATENCY_S} s…`);
  // A fixed arrival rate, latency counted from each request's scheduled time (no coordinated omission).
  const paced = await load({ duration: LATENCY_S, overallRate: RATE });
  const accepted = result['2xx'] + paced['2xx'];
  const other = result.non2xx + result.errors + result.timeouts + paced.non2xx + paced.errors + paced.timeouts;
  log(`round ${n}: ${accepted} accepted, ${other} other answers or errors; waiting for the runs…`);
  log(
    `round ${n}: CPU ms per 1,000 accepted during the load (machine-wide groups): ${cpuDelta(cpu0, cpu1, result['2xx'] / 1000)}`,
  );
  const counts = async () =>
    (
      await pool.query<{ rows: number; done: number; first: Date | null; last: Date | null }>(
        `select count(*)::int as rows, (count(*) filter (where status in ('completed', 'failed', 'cancelled')))::int as done,
                min(started_at) as first, max(finished_at) as last
           from automation_execution where automation_id = $1`,
        [automationId],
      )
    ).rows[0]!;
  const deadline = Date.now() + DRAIN_TIMEOUT_MS;
  let c = await counts();
  while (c.done < c.rows && Date.now() < deadline) {
    await sleep(500);
    c = await counts();
  }
  const completed = (
    await pool.query<{ n: number }>(
      `select count(*)::int as n from automation_execution where automation_id = $1 and status = 'completed'`,
      [automationId],
    )
  ).rows[0]!.n;
  const tasks = (
    await pool.query<{ n: number }>(`select count(*)::int as n from task where workspace_id = $1 and title = $2`, [
      ctx.actor.workspaceId,
      `Intake bench ${n}`,
    ])
  ).rows[0]!.n;
  log(
    `round ${n}: CPU ms per 1,000 runs while draining: ${cpuDelta(cpu1, snapshot(procs), Math.max(1, c.rows) / 1000)}`,
  );
  const wallS = ((c.last?.getTime() ?? Date.now()) - t0) / 1000;
  return {
    acceptedPerS: result['2xx'] / durationS,
    pacedPerS: paced['2xx'] / LATENCY_S,
    p50: paced.latency.p50,
    p99: paced.latency.p99,
    completedPerS: completed / wallS,
    lost: Math.max(0, accepted - completed),
    duplicated: Math.max(0, tasks - completed),
    other,
  };
}

async function run(stack: RunningStack | undefined): Promise<string[]> {
  const env = benchEnv(stack);
  const databaseUrl = env.DATABASE_URL!;
  if (stack?.started.includes('postgres')) await runMigrations(databaseUrl);
  const childEnv: NodeJS.ProcessEnv = {
    ...env,
    PORT: String(API_PORT),
    LOG_LEVEL: env.BENCH_LOG_LEVEL ?? 'info',
    // The bench measures intake, not the per-automation rate limit or the queue cap.
    RATE_LIMIT_PER_MINUTE: '100000000',
    RATE_LIMIT_PER_DAY: '1000000000',
    INTAKE_MAX_QUEUED_PER_WORKSPACE: '1000000',
    TEMPORAL_TASK_QUEUE: `bench-intake-${Date.now()}`,
  };
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 4 });
  const orm = await MikroORM.init(ormConfig(databaseUrl));
  let api: ChildProcess | undefined;
  let worker: ChildProcess | undefined;
  try {
    log('starting the worker (bundles the workflows) and the API…');
    worker = await child('bin/worker.ts', childEnv, /Temporal worker started/);
    api = await child('bin/api.ts', childEnv, /API listening/);
    const ws = await createWorkspace(orm.em.fork(), { name: 'Intake benchmark' });
    const ctx: Ctx = {
      em: forkForWorkspace(orm.em, ws.workspaceId),
      actor: { workspaceId: ws.workspaceId, userId: ws.userId, role: 'owner', scopes: [...SCOPES] },
    };
    // Warm-up: connections, JIT, the worker's first workflow tasks.
    await round(pool, ctx, { api: api!, worker: worker! }, 0, 1);
    const rounds: Round[] = [];
    for (let i = 1; i <= ROUNDS; i++) {
      const r = await round(pool, ctx, { api: api!, worker: worker! }, i);
      log(
        `round ${i}: accepted ${r.acceptedPerS.toFixed(0)}/s; at ${RATE}/s offered: ${r.pacedPerS.toFixed(0)}/s answered, p50 ${r.p50} ms, p99 ${r.p99} ms; completed ${r.completedPerS.toFixed(1)}/s, lost ${r.lost}, duplicated ${r.duplicated}, other ${r.other}`,
      );
      rounds.push(r);
    }
    const m = {
      acceptedPerS: median(rounds.map((r) => r.acceptedPerS)),
      p50: median(rounds.map((r) => r.p50)),
      p99: median(rounds.map((r) => r.p99)),
      completedPerS: median(rounds.map((r) => r.completedPerS)),
      lost: rounds.reduce((s, r) => s + r.lost, 0),
      duplicated: rounds.reduce((s, r) => s + r.duplicated, 0),
    };
    const met = (ok: boolean): string => (ok ? 'met' : 'NOT met');
    return [
      `webhook intake, ${CONNECTIONS} connections, median of ${ROUNDS} rounds: throughput as fast as answered (${DURATION_S} s), latency at ${RATE}/s offered (${LATENCY_S} s)`,
      `  accepted/s ${m.acceptedPerS.toFixed(0)} (target ≥ ${TARGETS.acceptedPerS}): ${met(m.acceptedPerS >= TARGETS.acceptedPerS)}`,
      `  p50 ${m.p50} ms (target ≤ ${TARGETS.p50}): ${met(m.p50 <= TARGETS.p50)}; p99 ${m.p99} ms (target ≤ ${TARGETS.p99}): ${met(m.p99 <= TARGETS.p99)}`,
      `  completed/s ${m.completedPerS.toFixed(1)} (engine speed, from the first accept to the last completion)`,
      `  lost ${m.lost}, duplicated ${m.duplicated} (summed over the rounds)`,
      `RESULT accepted_per_s=${m.acceptedPerS.toFixed(0)} p50_ms=${m.p50} p99_ms=${m.p99} completed_per_s=${m.completedPerS.toFixed(1)} lost=${m.lost} duplicated=${m.duplicated}`,
    ];
  } finally {
    await stopChild(api);
    await stopChild(worker);
    await pool.end();
    await orm.close(true);
  }
}

runBench('intake', { postgres: 42101, meilisearch: 42102, temporal: 42103, temporalUi: 42104 }, run);
