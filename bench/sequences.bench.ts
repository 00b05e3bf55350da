// `npm run bench:sequences`: bulk enrollment through the API into `send_email → wait 1 day → send_sms`.
//
// The worker is the real process (bin/worker.ts as a child, bounded workflow cache) so its memory
// can be measured; the API runs in this process on an ephemeral port; e-mail goes to a local SMTP
// server. 2,000 leads (each with an e-mail address) are enrolled with 4 bulk calls of 500; the run
// ends when every enrollment has sent its e-mail and is parked on its one-day timer.
//   enroll_per_s  = 2,000 / (first enroll call → last enrollment parked on its wait)
//   bare_per_s    = 2,000 / (first start → last first-activity) of a bare workflow with one activity
//                   and a one-day timer on the same server, started 16 at a time (as the API does)
//   p50_first_email_ms / p95_ms = enrolled → e-mail handed to SMTP, median and 95th percentile
//   parked        = enrollments waiting on the timer (Postgres mirror and Temporal agree)
//   worker_rss_mb = the worker process's resident memory with the 2,000 parked runs
// Uses its own stack (fresh .data/bench-sequences; ports CRM_BENCH_PG_PORT 54379, CRM_BENCH_MEILI_PORT
// 7779, CRM_BENCH_TEMPORAL_PORT 7279, CRM_BENCH_TEMPORAL_UI_PORT 8279) unless DATABASE_URL,
// TEMPORAL_ADDRESS and MEILI_URL are all set. Options: BENCH_ENROLLMENTS (default 2000); BENCH_CPU_PROF=1 writes
// a CPU profile of the worker process (node --cpu-prof) to /tmp/wprof when it exits.
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { MikroORM } from '@mikro-orm/postgresql';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import pg from 'pg';
import { loadConfig } from '../app/config';
import { SCOPES } from '../platform/context';
import { newId } from '../platform/ids';
import { createLead } from '../modules/leads/leads.service';
import { createLogger } from '../platform/logger';
import { ormConfig } from '../app/orm';
import { runMigrations } from '../app/migrate';
import { forkForWorkspace } from '../platform/orm/tenant';
import { createWorkspace } from '../modules/workspaces/workspaces.service';
import type { RunningStack } from '../infra/stack';
import { workerProcessEnv } from '../infra/worker-env';
import { listenApi, startWorkerProcess } from './app-processes';
import { benchEnv, benchLog, cpuByGroup, cpuDelta, mailAppEnv, runBench } from './bench-stack';
import { startSmtp } from '../test/unit/messaging/local-smtp';
import type { bareSequenceWorkflow } from './bare-sequence.workflow';
import { percentile, poller, sleep } from './stats';
import { graphNode } from '../test/support/definitions';

const N = Math.max(100, Number(process.env.BENCH_ENROLLMENTS ?? 2000));
const PER_CALL = 500;
const START_CONCURRENCY = 16;
/** Parking 2,000 enrollments on a loaded 2-core machine can take many minutes. */
const TIMEOUT_MS = 1_800_000;
const TARGET_RATIO = 0.5;
const TARGET_RSS_MB = 400;
const BARE_TABLE = 'bench_bare_send';
const log = benchLog;

const until = poller(TIMEOUT_MS, 250);

/** The worker's last log lines (its memory report, SIGUSR2, lands here). */
let workerOut = '';

/** What the worker's own memory report says (JS heap vs the rest), or '' when it did not answer. */
async function workerMemory(child: ChildProcess): Promise<string> {
  const before = workerOut.length;
  child.kill('SIGUSR2');
  for (let i = 0; i < 100 && !workerOut.slice(before).includes('"worker memory"'); i++) await sleep(100);
  const line = workerOut
    .slice(before)
    .split('\n')
    .find((l) => l.includes('"worker memory"'));
  if (!line) return '';
  const { memory: m, afterGc: g } = JSON.parse(line) as {
    memory: Record<string, number>;
    afterGc?: Record<string, number>;
  };
  const mb = (n: number | undefined) => Math.round((n ?? 0) / 1048576);
  return `heap used ${mb(m.heapUsed)} MB of ${mb(m.heapTotal)} MB${g ? ` (${mb(g.heapUsed)} MB live after a full GC)` : ''}, external ${mb(m.external)} MB, rest (native: Temporal core, malloc, code) ${mb(m.rss) - mb(m.heapTotal) - mb(m.external)} MB`;
}

const rssMb = (pid: number): number =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

async function run(stack: RunningStack | undefined): Promise<string[]> {
  const env = benchEnv(stack);
  const smtp = await startSmtp();
  // The SMS step is a day away; a gateway is configured so the sequence is realistic.
  const gateway = http.createServer((_req, res) =>
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"id":"x"}'),
  );
  await new Promise<void>((r) => gateway.listen(0, '127.0.0.1', () => r()));
  const appEnv = {
    ...mailAppEnv(env, 'sequences', smtp.port),
    SMS_GATEWAY_URL: `http://127.0.0.1:${(gateway.address() as AddressInfo).port}/sms`,
    SMS_GATEWAY_TOKEN: 't',
    SMS_DEFAULT_FROM: 'Bench',
    OUTBOUND_ALLOW_HOSTS: '127.0.0.1',
  };
  const taskQueue = appEnv.TEMPORAL_TASK_QUEUE;
  const config = loadConfig({ ...appEnv, LOG_LEVEL: 'silent' });
  if (stack?.started.includes('postgres')) await runMigrations(config.databaseUrl);
  Runtime.install({ logger: new DefaultLogger('WARN'), shutdownSignals: [] });
  const pool = new pg.Pool({ connectionString: config.databaseUrl, max: 4 });
  // An idle client cut off when the stack stops must not crash the run before it reports.
  pool.on('error', () => undefined);
  const orm = await MikroORM.init(ormConfig(config.databaseUrl));
  const api = await listenApi(config, createLogger('error', 'bench-api'));
  const { base } = api;
  const client = new Client({
    connection: await Connection.connect({ address: config.temporalAddress }),
    namespace: config.temporalNamespace,
  });
  let worker: ChildProcess | undefined;
  let bare: { worker: Worker; done: Promise<void>; native: NativeConnection } | undefined;
  const out: string[] = [];
  try {
    log('starting the worker process…');
    // Started like bin/start.ts and docker-compose start it (workerProcessEnv: the malloc settings), at the bench's own
    // CPU priority (WORKER_NICE 0 unless set), as the bare side runs: this bench compares the engine with bare
    // workflows, not the intake.
    worker = await startWorkerProcess(workerProcessEnv({ WORKER_NICE: '0', ...appEnv, LOG_LEVEL: 'info' }), {
      nodeArgs: process.env.BENCH_CPU_PROF ? ['--cpu-prof', '--cpu-prof-dir=/tmp/wprof'] : [],
      onOutput: (chunk) => (workerOut = (workerOut + chunk).slice(-50_000)),
    });
    const idleRss = rssMb(worker.pid!);
    log(`worker RSS at start (idle, workflows bundled): ${idleRss.toFixed(0)} MB; ${await workerMemory(worker)}`);
    const ws = await createWorkspace(orm.em.fork(), { name: 'Sequence benchmark' });
    const actor = { workspaceId: ws.workspaceId, userId: ws.userId, role: 'owner' as const, scopes: [...SCOPES] };
    const call = async (method: string, p: string, body?: unknown) => {
      const res = await fetch(base + p, {
        method,
        headers: { authorization: `Bearer ${ws.apiKey}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const json = (await res.json()) as { data: Record<string, unknown> };
      if (res.status >= 300) throw new Error(`${method} ${p}: ${res.status} ${JSON.stringify(json)}`);
      return json.data;
    };

    log(`creating ${N} leads…`);
    const leads: string[] = [];
    for (let done = 0; done < N; done += 500) {
      const em = forkForWorkspace(orm.em, ws.workspaceId);
      await em.transactional(async (tem) => {
        for (let i = done; i < Math.min(N, done + 500); i++) {
          const lead = (await createLead(
            { em: tem, actor },
            { title: `Bench lead ${i}`, email: `lead${i}@bench.test` },
            { preview: false },
          )) as { _id: string };
          leads.push(lead._id);
        }
      });
    }
    await until(
      'the outbox to drain',
      async () =>
        (await pool.query<{ n: number }>('select count(*)::int as n from outbox_event where processed_at is null'))
          .rows[0]!.n === 0,
    );

    const seq = await call('POST', '/api/v1/sequences', {
      name: 'Bench outreach',
      nodes: [
        graphNode('start', 'start', [0, 0], {}),
        graphNode('mail', 'send_email', [300, 0], {
          subject: 'Hello {{lead.title}}',
          body: '<p>Hi from {{workspace.name}}</p>',
        }),
        graphNode('wait', 'wait', [600, 0], { delayAmount: 1, delayUnit: 'days' }),
        graphNode('sms', 'send_sms', [900, 0], { message: 'Did you see my e-mail?', phoneField: 'primary' }),
      ],
      edges: [
        { id: 'e1', source: 'start', target: 'mail' },
        { id: 'e2', source: 'mail', target: 'wait' },
        { id: 'e3', source: 'wait', target: 'sms' },
      ],
    });
    const seqId = seq._id as string;
    await call('POST', `/api/v1/sequences/${seqId}/toggle`);
    const parkedCount = async (): Promise<number> =>
      (
        await pool.query<{ n: number }>(
          `select count(*)::int as n from sequence_step where sequence_id = $1 and node_id = 'wait' and status = 'waiting'`,
          [seqId],
        )
      ).rows[0]!.n;

    log(`enrolling ${N} leads in ${Math.ceil(N / PER_CALL)} bulk calls…`);
    const named = { worker: worker.pid!, 'bench (API, SMTP sink, bare worker)': process.pid };
    const cpu0 = cpuByGroup(named);
    const t0 = Date.now();
    let enrolled = 0;
    for (let i = 0; i < N; i += PER_CALL) {
      const r = await call('POST', `/api/v1/sequences/${seqId}/enroll`, {
        entityType: 'Lead',
        entityIds: leads.slice(i, i + PER_CALL),
      });
      enrolled += Number(r.enrolled);
    }
    const apiMs = Date.now() - t0;
    if (enrolled !== N) throw new Error(`only ${enrolled} of ${N} enrolled`);
    log(`enroll calls answered in ${apiMs} ms; waiting for every enrollment to send and park…`);
    await until(`${N} parked enrollments`, async () => (await parkedCount()) >= N);
    const enrollCpu = cpuDelta(cpu0, cpuByGroup(named), N);
    const { rows } = await pool.query<{ enrolled_at: Date; sent_at: Date; parked_at: Date }>(
      `select e.enrolled_at, m.sent_at, w.started_at as parked_at from sequence_enrollment e
       join sequence_step m on m.enrollment_id = e.id and m.node_id = 'mail' join sequence_step w on w.enrollment_id = e.id and w.node_id = 'wait'
       where e.sequence_id = $1`,
      [seqId],
    );
    const lastParked = Math.max(...rows.map((r) => r.parked_at.getTime()));
    const enrollPerS = N / ((lastParked - t0) / 1000);
    const firstEmail = rows.map((r) => r.sent_at.getTime() - r.enrolled_at.getTime());
    const p50 = percentile(firstEmail, 50);
    const p95 = percentile(firstEmail, 95);
    await sleep(3000);
    const parked = await parkedCount();
    const running = await client.workflow.count(
      `WorkflowType = 'sequenceEnrollmentWorkflow' AND TaskQueue = '${taskQueue}' AND ExecutionStatus = 'Running'`,
    );
    const rss = rssMb(worker.pid!);
    const memory = await workerMemory(worker);
    log(
      `engine: ${enrollPerS.toFixed(1)} enrollments/s, first e-mail p50 ${p50} ms p95 ${p95} ms, parked ${parked} (Temporal running ${running.count}), e-mails received ${smtp.received.length}, worker RSS ${rss.toFixed(0)} MB (${memory})`,
    );

    log(`bare: ${N} workflows (one activity, one-day timer), ${START_CONCURRENCY} starts at a time…`);
    await pool.query(
      `create unlogged table if not exists ${BARE_TABLE} (run_id varchar(24) primary key, done_at timestamptz not null)`,
    );
    const native = await NativeConnection.connect({ address: config.temporalAddress });
    const bareQueue = `${taskQueue}-bare`;
    const bareWorker = await Worker.create({
      connection: native,
      namespace: config.temporalNamespace,
      taskQueue: bareQueue,
      workflowsPath: require.resolve('./bare-sequence.workflow'),
      maxCachedWorkflows: config.temporalMaxCachedWorkflows,
      activities: {
        async bareSend(input: { runId: string }): Promise<void> {
          await pool.query(`insert into ${BARE_TABLE} (run_id, done_at) values ($1, now()) on conflict do nothing`, [
            input.runId,
          ]);
        },
      },
    });
    bare = { worker: bareWorker, done: bareWorker.run(), native };
    // The bare leg starts on a quiet machine: Temporal (and Postgres) may still be working through what the engine
    // leg left (history and visibility tasks); that CPU must not be counted against the bare workflows.
    const settleStart = Date.now();
    for (let quiet = 0; quiet < 2 && Date.now() - settleStart < 60_000;) {
      const before = cpuByGroup(named);
      await sleep(1000);
      const after = cpuByGroup(named);
      const busy = ['temporal', 'postgres'].reduce((ms, g) => ms + (after.get(g) ?? 0) - (before.get(g) ?? 0), 0);
      quiet = busy < 50 ? quiet + 1 : 0;
    }
    log(`services quiet after ${Date.now() - settleStart} ms`);
    const bareCpu0 = cpuByGroup(named);
    const b0 = Date.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: START_CONCURRENCY }, async () => {
        while (next < N) {
          next += 1;
          const runId = newId();
          await client.workflow.start<typeof bareSequenceWorkflow>('bareSequenceWorkflow', {
            workflowId: `bench-bare-seq-${runId}`,
            taskQueue: bareQueue,
            args: [{ runId }],
          });
        }
      }),
    );
    await until(
      `${N} bare activities`,
      async () => (await pool.query<{ n: number }>(`select count(*)::int as n from ${BARE_TABLE}`)).rows[0]!.n >= N,
    );
    const bareCpu = cpuDelta(bareCpu0, cpuByGroup(named), N);
    const bareLast = (
      await pool.query<{ t: Date }>(`select max(done_at) as t from ${BARE_TABLE}`)
    ).rows[0]!.t.getTime();
    const barePerS = N / ((bareLast - b0) / 1000);
    const ratio = enrollPerS / barePerS;
    const met = (ok: boolean): string => (ok ? 'met' : 'NOT met');
    out.push(
      `enrollment: ${N} leads in ${Math.ceil(N / PER_CALL)} bulk API calls (answered in ${apiMs} ms), sequence send_email → wait 1 day → send_sms`,
      `  ${enrollPerS.toFixed(1)} enrollments/s to parked; e-mails received ${smtp.received.length}; enrolled → first e-mail p50 ${p50} ms, p95 ${p95} ms`,
      `  CPU ms per enrollment: ${enrollCpu}`,
      `bare: ${N} workflows with one activity and a one-day timer: ${barePerS.toFixed(1)}/s`,
      `  CPU ms per bare workflow: ${bareCpu}`,
      `ratio ${ratio.toFixed(2)} (target ≥ ${TARGET_RATIO}): ${met(ratio >= TARGET_RATIO)}`,
      `parked ${parked} of ${N} (Temporal: ${running.count} running): ${met(parked === N && running.count === N)}`,
      `worker RSS ${rss.toFixed(0)} MB with ${N} parked enrollments (${memory}; idle after start: ${idleRss.toFixed(0)} MB), maxCachedWorkflows ${config.temporalMaxCachedWorkflows} (target ≤ ${TARGET_RSS_MB} MB): ${met(rss <= TARGET_RSS_MB)}`,
      `RESULT enroll_per_s=${enrollPerS.toFixed(1)} bare_per_s=${barePerS.toFixed(1)} ratio=${ratio.toFixed(2)} p50_first_email_ms=${Math.round(p50)} p95_ms=${Math.round(p95)} parked=${parked} worker_rss_mb=${Math.round(rss)}`,
    );
  } finally {
    log('stopping…');
    if (bare) {
      if (bare.worker.getState() === 'RUNNING') bare.worker.shutdown();
      await bare.done.catch(() => undefined);
      await bare.native.close().catch(() => undefined);
    }
    if (worker && worker.exitCode === null) {
      worker.kill('SIGTERM');
      await new Promise((r) => worker!.once('exit', r));
    }
    await api.close();
    await client.connection.close().catch(() => undefined);
    await pool.end();
    await orm.close(true);
    await smtp.close();
    await new Promise((r) => gateway.close(r));
  }
  return out;
}

runBench('sequences', { postgres: 54379, meilisearch: 7779, temporal: 7279, temporalUi: 8279 }, run);
