// `npm run soak [-- --minutes N | --short] [--seed S] [--rate R] [--port P] [--settle S] [--keep-data]`:
// the chaos soak (docs/soak.md). Loopback only: the stack (durable Postgres, Meilisearch, Temporal dev
// server), two API and two worker processes, a mail sink and a webhook receiver on ports P…P+30 (default
// 46000). Drives every workflow kind while SIGKILLing an API, a worker, Temporal, Meilisearch and Postgres
// at random points (and stopping the mail server for a while), settles, then counts.
// Last line: RESULT lost=… duplicated=… stuck=… late_timers=… rss_growth_mb=…  (exit 1 when off target)
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { runMigrations } from '../../infra/node-scripts';
import { devDataDir, repoRoot } from '../../infra/paths';
import { delay } from '../../infra/wait';
import { workerProcessEnv } from '../../infra/worker-env';
import { audit, hookObservations, mailObservations } from './audit';
import { countEffects, lateTimers, meetsTargets, resultLine, rssGrowth, type RssSample, type Window } from './count';
import { drive, ratesFor, SoakClient } from './driver';
import { createFixtures, createWorkspaceAndMailbox, SEQUENCE_WAIT_MINUTES } from './fixtures';
import { parseSoakArgs, planFaults, rng, type Fault } from './plan';
import { workersPollingAgain } from './pollers';
import { AppSlot, rssMb, startSoakStack, type SoakStack } from './processes';
import { startMailSink, startWebhookReceiver, type MailSink } from './sinks';

const log = (line: string): void => void process.stderr.write(`[soak] ${line}\n`);
/** The sequence wait and the booking approval deadline, in seconds of real time. */
const WAIT_S = 20;
const DEADLINE_S = 30;

interface FaultRecord extends Fault {
  killedAt: number;
  backAt: number;
  /** Temporal faults: when the server answered again (backAt is when every worker polled again). */
  serverBackAt?: number;
}

async function runFault(
  f: Fault,
  s: { stack: SoakStack; apis: AppSlot[]; workers: AppSlot[]; sink: MailSink; env: NodeJS.ProcessEnv },
): Promise<FaultRecord> {
  const killedAt = Date.now();
  const restart = async (what: string, start: () => Promise<unknown>): Promise<void> => {
    for (let attempt = 1; ; attempt++) {
      try {
        return void (await start());
      } catch (err) {
        if (attempt >= 3) throw new Error(`${what} did not come back: ${String(err)}`);
        log(`${what} restart failed (${String(err)}); retrying`);
        await delay(3000);
      }
    }
  };
  switch (f.kind) {
    case 'api':
    case 'worker': {
      // Slot 2 of each role is the one killed; slot 1 lives the whole run (its RSS is the growth witness).
      const slot = (f.kind === 'api' ? s.apis : s.workers)[1]!;
      await slot.kill();
      await delay(f.downMs);
      await restart(slot.name, () => slot.start());
      break;
    }
    case 'mail':
      await s.sink.stop();
      await delay(f.downMs);
      await s.sink.start();
      break;
    default:
      await s.stack.kill(f.kind);
      await delay(f.downMs);
      await restart(f.kind, () => s.stack.restart(f.kind as 'postgres'));
      if (f.kind === 'temporal') {
        const serverBackAt = Date.now();
        const polling = await workersPollingAgain({
          address: s.env.TEMPORAL_ADDRESS!,
          namespace: s.env.TEMPORAL_NAMESPACE ?? 'default',
          taskQueue: s.env.TEMPORAL_TASK_QUEUE ?? 'crm',
          pids: s.workers.flatMap((w) => (w.proc?.pid ? [w.proc.pid] : [])),
          capMs: 15_000,
        });
        if (!polling.allPolling) log('temporal: not every worker polled again within 15 s of the restart');
        return { ...f, killedAt, backAt: polling.at, serverBackAt };
      }
  }
  return { ...f, killedAt, backAt: Date.now() };
}

/** The ports lie in Linux's ephemeral range: a busy machine's outgoing connection may hold one for a moment. */
async function startWithRetry<T>(start: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start();
    } catch (err) {
      if (attempt >= 5 || !/already in use/.test(String(err))) throw err;
      log(`${String(err)}: trying again`);
      await delay(3000);
    }
  }
}

async function main(): Promise<void> {
  const opts = parseSoakArgs(process.argv.slice(2));
  const P = opts.basePort;
  const dataDir = path.join(devDataDir(), 'soak');
  rmSync(dataDir, { recursive: true, force: true });
  const logDir = path.join(dataDir, 'logs');
  mkdirSync(logDir, { recursive: true });
  log(
    `seed ${opts.seed}, ${opts.minutes} min driving, ${opts.rounds} round(s) of faults, settle ≤ ${opts.settleSeconds} s, data ${dataDir}`,
  );

  // One prebuilt workflow bundle for every worker start (a restart then polls within seconds).
  const bundle = path.join(dataDir, 'workflows.js');
  const built = spawnSync(
    process.execPath,
    ['--import', 'tsx', path.join(repoRoot, 'bin/bundle-workflows.ts'), bundle],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  if (built.status !== 0) throw new Error('building the workflow bundle failed');

  const ports = { postgres: P + 1, meilisearch: P + 2, temporal: P + 3, temporalUi: P + 4 };
  const stack = await startWithRetry(() => startSoakStack(dataDir, ports, log));
  const cleanup: (() => Promise<unknown>)[] = [() => stack.stack.stop()];
  try {
    const env: NodeJS.ProcessEnv = { ...process.env, ...stack.stack.env };
    await runMigrations(env, log);
    const sink = await startMailSink(P + 10);
    const receiver = await startWebhookReceiver(P + 11);
    cleanup.unshift(
      () => sink.close(),
      () => receiver.close(),
    );
    const appEnv: NodeJS.ProcessEnv = {
      ...env,
      CRM_TEST: '1',
      SEQUENCE_WAIT_SCALE: String(WAIT_S / (SEQUENCE_WAIT_MINUTES * 60)),
      BOOKING_TIME_SCALE: String(DEADLINE_S / 3600),
      SMTP_URL: `smtp://127.0.0.1:${sink.port}`,
      MAIL_FROM: 'Soak <crm@soak.test>',
      OUTBOUND_ALLOW_HOSTS: '127.0.0.1',
      RATE_LIMIT_PER_MINUTE: '1000000',
      RATE_LIMIT_PER_DAY: '100000000',
      LOG_LEVEL: 'info',
      IMAP_POLL_SECONDS: '0',
      TEMPORAL_WORKFLOW_BUNDLE: bundle,
      PUBLIC_BASE_URL: `http://127.0.0.1:${P + 20}`,
    };
    const apis = [0, 1].map((i) => new AppSlot('api', i + 1, appEnv, logDir, P + 20 + i));
    const workers = [0, 1].map((i) => new AppSlot('worker', i + 1, workerProcessEnv(appEnv), logDir));
    cleanup.unshift(() => Promise.allSettled([...apis, ...workers].map((a) => a.stop())));
    for (const slot of [...apis, ...workers]) await slot.start();
    log('API and worker processes ready');

    const base = await createWorkspaceAndMailbox({
      databaseUrl: env.DATABASE_URL!,
      secretsKey: env.CRM_SECRETS_KEY!,
      smtpPort: sink.port,
    });
    const client = new SoakClient(apis, base.apiKey);
    const fixtures = await createFixtures(client, base, `http://127.0.0.1:${receiver.port}`);

    const samples: RssSample[] = [];
    const sampler = setInterval(() => {
      for (const slot of [...apis, ...workers]) {
        const pid = slot.proc?.pid;
        const mb = pid && !slot.proc!.hasExited() ? rssMb(pid) : null;
        if (mb !== null) samples.push({ series: `${slot.name}:${pid}`, at: Date.now(), rssMb: mb });
      }
    }, 5_000);
    cleanup.unshift(async () => clearInterval(sampler));

    const durationMs = opts.minutes * 60_000;
    const faults = planFaults(rng(opts.seed), { durationMs, rounds: opts.rounds, restartAllowanceMs: 15_000 });
    const t0 = Date.now();
    const rel = (t: number): string => `+${((t - t0) / 1000).toFixed(1)}s`;
    const records: FaultRecord[] = [];
    const chaos = (async () => {
      for (const f of faults) {
        await delay(Math.max(0, t0 + f.at - Date.now()));
        log(`fault ${f.kind}: down for ${(f.downMs / 1000).toFixed(1)} s from ${rel(Date.now())}`);
        const r = await runFault(f, { stack, apis, workers, sink, env });
        log(
          r.serverBackAt === undefined
            ? `fault ${f.kind}: back at ${rel(r.backAt)}`
            : `fault ${f.kind}: server back at ${rel(r.serverBackAt)}, every worker polling at ${rel(r.backAt)}`,
        );
        records.push(r);
      }
    })();
    const requests = await drive({
      client,
      fixtures,
      sink,
      tag: String(opts.seed),
      until: t0 + durationMs,
      rates: ratesFor(opts.rate),
      log,
    });
    await chaos;
    log(`driving done at ${rel(Date.now())}: ${requests.length} requests; settling (≤ ${opts.settleSeconds} s)…`);

    // Settle: until sinks stay quiet for 30 s and nothing is open, or the settle time is up.
    const settleEnd = Date.now() + opts.settleSeconds * 1000;
    let last = -1;
    let quietSince = Date.now();
    while (Date.now() < settleEnd) {
      await delay(5_000);
      const n = sink.received.length + receiver.received.length;
      if (n !== last) {
        last = n;
        quietSince = Date.now();
      } else if (Date.now() - quietSince > 30_000) {
        const a = await audit(env.DATABASE_URL!, base.workspaceId, requests);
        if (Object.values(a.stuck).every((v) => v <= 0)) break;
      }
    }
    clearInterval(sampler);

    const a = await audit(env.DATABASE_URL!, base.workspaceId, requests);
    const effects = countEffects(a.expected, [
      ...mailObservations(sink.received),
      ...hookObservations(receiver.received),
    ]);
    const windows: Window[] = records
      .filter((r) => ['worker', 'temporal', 'postgres'].includes(r.kind))
      .map((r) => ({ start: r.killedAt, end: r.backAt }));
    const late = lateTimers(a.timers, windows);
    const growth = rssGrowth(samples, 30_000, durationMs * 0.5);
    const stuck = Object.values(a.stuck).reduce((s, v) => s + Math.max(0, v), 0);
    const lost = effects.lost + a.recordsLost.length;
    const result = {
      lost,
      duplicated: effects.duplicated,
      stuck,
      lateTimers: late.length,
      rssGrowthMb: Math.max(0, ...growth.map((g) => g.growthMb)),
    };

    const outcomes = new Map<string, number>();
    for (const r of requests) outcomes.set(`${r.what} ${r.outcome}`, (outcomes.get(`${r.what} ${r.outcome}`) ?? 0) + 1);
    const lines = [
      `requests: ${[...outcomes]
        .sort()
        .map(([k, v]) => `${k}×${v}`)
        .join(', ')}`,
      `faults: ${records.map((r) => `${r.kind} ${rel(r.killedAt)}→${rel(r.backAt)}`).join(', ')}`,
      `received: ${sink.received.length} mails, ${receiver.received.length} webhook calls; expected effects ${a.expected.length}`,
      ...Object.entries(effects.byKind).map(
        ([k, v]) => `  ${k}: expected ${v.expected}, lost ${v.lost}, duplicated ${v.duplicated}`,
      ),
      `lost ${effects.lost} effects + ${a.recordsLost.length} acknowledged records missing${a.recordsLost.length ? ` (${a.recordsLost.slice(0, 10).join(', ')})` : ''}`,
      ...(effects.examples.lost.length ? [`  lost e.g.: ${effects.examples.lost.join(' | ')}`] : []),
      `duplicated ${effects.duplicated}${effects.examples.duplicated.length ? `: ${effects.examples.duplicated.join(' | ')}` : ''}; redelivered (same id) ${effects.redelivered}`,
      `unexpected ${effects.unexpected}${effects.examples.unexpected.length ? `: ${effects.examples.unexpected.join(' | ')}` : ''}`,
      `stuck: ${Object.entries(a.stuck)
        .map(([k, v]) => `${k}=${v}`)
        .join(', ')}`,
      `timers: ${a.timers.length} fired; late ${late.length}${
        late.length
          ? ` (worst ${late
              .slice(0, 5)
              .map((l) => `${l.id} +${(l.lateMs / 1000).toFixed(1)}s`)
              .join(', ')})`
          : ''
      }`,
      `rss: ${growth.map((g) => `${g.series} ${g.baselineMb.toFixed(0)}→${g.endMb.toFixed(0)} MB`).join(', ') || 'no process lived long enough'}`,
      ...a.notes,
      resultLine(result),
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
    process.exitCode = meetsTargets(result) ? 0 : 1;
  } finally {
    for (const step of cleanup) await step().catch((err: unknown) => log(`cleanup: ${String(err)}`));
    if (!opts.keepData && process.exitCode === 0) rmSync(dataDir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(process.exitCode ?? 0),
  (err: unknown) => {
    log(`failed: ${err instanceof Error ? err.stack : String(err)}`);
    process.exit(2);
  },
);
