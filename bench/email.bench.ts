// `npm run bench:email`: one 500-recipient bulk send against nodemailer alone.
//
// Product: POST /api/v1/emails/bulk (500 recipients, one connected mailbox) through the real API,
// sent by an in-process Temporal worker (bin/worker.ts startTemporalWorker, the production
// activities): the email-bulk workflow, its batches, one idempotent send per recipient (claim,
// e-mail row, timeline activity and email_sent event per recipient). Timed from the POST to the
// bulk row being completed.
// Raw: nodemailer alone sending the same 500 messages through a pooled transport with the same pool
// settings (5 connections) with all messages queued at once.
// Both send to one SMTP sink in a child process (bench/smtp-sink.child.ts). Pacing is off for the
// product (EMAIL_BULK_PER_ACCOUNT_PER_SECOND=0) so both legs run as fast as they can.
//
// Uses DATABASE_URL / TEMPORAL_ADDRESS / MEILI_URL when all set (database assumed migrated);
// otherwise starts the stack (test profile, fresh .data/bench-email, ports CRM_BENCH_PG_PORT 54389,
// CRM_BENCH_MEILI_PORT 7789, CRM_BENCH_TEMPORAL_PORT 7289, CRM_BENCH_TEMPORAL_UI_PORT 8289).
// A leg lasts about a second, so one of each is noisy: BENCH_ROUNDS (default 5) rounds of raw then
// product; the RESULT compares the median of each leg (every round is printed too).
// BENCH_CPU_PROF=1 writes a CPU profile of the last product leg to /tmp/email-product.cpuprofile.
// Each leg also prints its CPU per message by process (/proc: this process, the sink, Postgres, Temporal).
// Last line: RESULT emails_per_s=<x> raw_smtp_per_s=<x> ratio=<x>
import { fork, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import path from 'node:path';
import { createTransport } from 'nodemailer';
import { buildApi } from '../api/bootstrap';
import { createActivities } from '../app/activities';
import { connectTemporal, startTemporalWorker } from '../bin/temporal-worker';
import { loadConfig } from '../app/config';
import { EmailBulk } from '../modules/email/email-bulk.entity';
import { addEmailAccount } from '../modules/email/email-accounts.service';
import { newId } from '../platform/ids';
import { createLogger } from '../platform/logger';
import { runMigrations } from '../app/migrate';
import { forkForWorkspace } from '../platform/orm/tenant';
import { parseSecretsKey } from '../platform/shared/secret-box';
import { createWorkspace } from '../modules/workspaces/workspaces.service';
import type { RunningStack } from '../infra/stack';
import { benchEnv, benchLog, cpuByGroup, cpuDelta, NO_RATE_LIMITS, runBench } from './bench-stack';
import { createTemporalClient } from '../platform/temporal/client';
import { createWorkflowPort } from '../platform/temporal/workflow-client';
import { median, sleep } from './stats';
import { WORKFLOWS_PATH } from '../platform/temporal/bundle-options';

const RECIPIENTS = 500;
const POOL_CONNECTIONS = 5;
const TIMEOUT_MS = 300_000;
/** One 500-message leg lasts about a second, so a single one is noisy: each leg runs this often, medians compared. */
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 5));
const log = benchLog;

async function startSink(): Promise<{ child: ChildProcess; port: number; count(): Promise<number> }> {
  const child = fork(path.join(__dirname, 'smtp-sink.child.ts'), [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (m) => resolve((m as { port: number }).port));
    child.once('exit', (code) => reject(new Error(`smtp sink exited with ${code}`)));
  });
  const count = () =>
    new Promise<number>((resolve) => {
      child.once('message', (m) => resolve((m as { count: number }).count));
      child.send('count');
    });
  return { child, port, count };
}

const message = (i: number, tag: string) => ({
  from: 'Acme Sales <sales@bench.example>',
  to: `r${i}@bench.example`,
  subject: `Hello R${i} ${tag}`,
  html: `<p>Hi R${i}, this is the ${tag} leg of the bench.</p>`,
  text: `Hi R${i}, this is the ${tag} leg of the bench.`,
});

/** CPU (ms per message) by process over one leg: this process (API, worker, raw nodemailer), the sink, the services. */
function cpuMeter(sinkPid: number): () => string {
  const named = { bench: process.pid, sink: sinkPid };
  const before = cpuByGroup(named);
  const threads0 = threadCpu();
  return () => {
    const t = threadCpu();
    const parts = [...t]
      .map(([k, v]) => [k, (v - (threads0.get(k) ?? 0)) / RECIPIENTS] as const)
      .filter(([, v]) => v > 0.05);
    return `${cpuDelta(before, cpuByGroup(named), RECIPIENTS)}; bench threads ${parts.map(([k, v]) => `${k} ${v.toFixed(2)}`).join(', ')}`;
  };
}
function threadCpu(): Map<string, number> {
  const out = new Map<string, number>();
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      const comm =
        Number(tid) === process.pid ? 'main' : stat.slice(stat.indexOf('(') + 1, close).replace(/[-\d]+$/, '');
      const f = stat.slice(close + 2).split(' ');
      out.set(comm, (out.get(comm) ?? 0) + (Number(f[11]) + Number(f[12])) * 10);
    } catch {
      // exited
    }
  }
  return out;
}

async function rawLeg(port: number, count: () => Promise<number>, sinkPid: number): Promise<number> {
  const transporter = createTransport({
    pool: true,
    maxConnections: POOL_CONNECTIONS,
    host: '127.0.0.1',
    port,
    secure: false,
    auth: { user: 'bench', pass: 'bench' },
  });
  const before = await count();
  const cpu = cpuMeter(sinkPid);
  const started = performance.now();
  await Promise.all(Array.from({ length: RECIPIENTS }, (_, i) => transporter.sendMail(message(i, 'raw'))));
  const ms = performance.now() - started;
  log(`  raw: CPU ms per message ${cpu()}`);
  transporter.close();
  if ((await count()) - before !== RECIPIENTS) throw new Error('raw leg: the sink did not receive every message');
  return (RECIPIENTS / ms) * 1000;
}

async function run(stack: RunningStack | undefined): Promise<string[]> {
  const env = benchEnv(stack);
  const config = loadConfig({
    ...env,
    TEMPORAL_TASK_QUEUE: `bench-email-${newId()}`,
    LOG_LEVEL: 'silent',
    PORT: '0',
    EMAIL_BULK_PER_ACCOUNT_PER_SECOND: env.EMAIL_BULK_PER_ACCOUNT_PER_SECOND ?? '0',
    ...NO_RATE_LIMITS,
  });
  if (stack?.started.includes('postgres')) await runMigrations(config.databaseUrl);
  const appLog = createLogger(process.env.BENCH_LOG_LEVEL ?? 'error', 'bench-email');
  const sink = await startSink();
  const api = await buildApi(config, appLog);
  const server: Server = await new Promise((resolve) => {
    const s = api.app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const connection = await connectTemporal(config, appLog);
  const client = createTemporalClient(connection, config);
  const worker = await startTemporalWorker({
    config,
    connection,
    workflowsPath: WORKFLOWS_PATH,
    log: appLog,
    activities: createActivities({
      orm: api.deps.orm,
      config,
      log: appLog,
      workflows: createWorkflowPort(client, config.temporalTaskQueue),
    }),
  });
  const out: string[] = [];
  try {
    const ws = await createWorkspace(api.deps.orm.em.fork(), { name: 'Bench e-mail' });
    const account = await addEmailAccount(
      api.deps.orm.em.fork(),
      {
        workspaceId: ws.workspaceId,
        name: 'Bench',
        emailAddress: 'sales@bench.example',
        displayName: 'Acme Sales',
        smtp: { host: '127.0.0.1', port: sink.port, secure: false, user: 'bench', password: 'bench' },
      },
      parseSecretsKey(config.secretsKey),
    );
    const post = (body: unknown) =>
      fetch(`${baseUrl}/api/v1/emails/bulk`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ws.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const bulkBody = (tag: string, n: number) => ({
      accountId: account.account._id,
      subject: `Hello {{firstName}} ${tag}`,
      html: `<p>Hi {{firstName}}, this is the ${tag} leg of the bench.</p>`,
      text: `Hi {{firstName}}, this is the ${tag} leg of the bench.`,
      recipients: Array.from({ length: n }, (_, i) => ({ email: `r${i}@bench.example`, name: `R${i} Bench` })),
    });
    const em = forkForWorkspace(api.deps.orm.em, ws.workspaceId);
    /** When (ms after `since`) the sink first saw a message of this leg and when it had all of them. */
    const seen = { first: NaN, all: NaN };
    const waitDone = async (queueId: string, track?: { since: number; before: number; n: number }) => {
      const deadline = Date.now() + TIMEOUT_MS;
      for (;;) {
        // The row cannot be completed before the sink has every message: until then only the sink is asked (the poll
        // runs in the product's process, so it should cost the product as little as possible).
        let all = true;
        if (track) {
          const got = (await sink.count()) - track.before;
          if (got > 0 && Number.isNaN(seen.first)) seen.first = performance.now() - track.since;
          if (got >= track.n && Number.isNaN(seen.all)) seen.all = performance.now() - track.since;
          all = got >= track.n;
        }
        if (all && (await em.fork().findOne(EmailBulk, { _id: queueId }))?.status === 'completed') return;
        if (Date.now() > deadline) throw new Error('the bulk send did not complete in time');
        await sleep(25);
      }
    };
    // Warm-up of both legs (worker bundle, pools, JIT) with a small send each.
    log('warming up…');
    const warm = await post(bulkBody('warm-up', 20));
    await waitDone(((await warm.json()) as { data: { queueId: string } }).data.queueId);
    await rawLeg(sink.port, sink.count, sink.child.pid!);

    /** One product leg: POST → bulk row completed; e-mails per second. */
    const productLeg = async (round: number): Promise<number> => {
      const before = await sink.count();
      seen.first = NaN;
      seen.all = NaN;
      // BENCH_CPU_PROF=1: a CPU profile of this process (API and worker) over the last product leg only.
      const profiler = process.env.BENCH_CPU_PROF && round === ROUNDS - 1 ? new Session() : undefined;
      if (profiler) {
        profiler.connect();
        await new Promise((r) => profiler.post('Profiler.enable', () => profiler.post('Profiler.start', r)));
      }
      const cpu = cpuMeter(sink.child.pid!);
      const started = performance.now();
      const res = await post(bulkBody(`product ${round}`, RECIPIENTS));
      if (res.status !== 201) throw new Error(`POST /emails/bulk answered ${res.status}: ${await res.text()}`);
      const queueId = ((await res.json()) as { data: { queueId: string } }).data.queueId;
      const answered = performance.now() - started;
      await waitDone(queueId, { since: started, before, n: RECIPIENTS });
      const ms = performance.now() - started;
      const cpuUsed = cpu();
      if (profiler)
        await new Promise<void>((r) =>
          profiler.post('Profiler.stop', (_err, { profile }) => {
            writeFileSync('/tmp/email-product.cpuprofile', JSON.stringify(profile));
            r();
          }),
        );
      const delivered = (await sink.count()) - before;
      if (delivered !== RECIPIENTS)
        throw new Error(`product: the sink received ${delivered} messages, not ${RECIPIENTS}`);
      log(
        `  product: answered ${Math.round(answered)} ms after the POST, first message at the sink ${Math.round(seen.first)}, all ${RECIPIENTS} at the sink ${Math.round(seen.all)}, bulk row completed ${Math.round(ms)} (polled every ~25 ms); CPU ms per message ${cpuUsed}`,
      );
      return (RECIPIENTS / ms) * 1000;
    };

    log(
      `${ROUNDS} rounds of: raw nodemailer (${RECIPIENTS} messages, pool of ${POOL_CONNECTIONS}), then POST /emails/bulk with ${RECIPIENTS} recipients (batch ${config.emailBulk.batchSize}, concurrency ${config.emailBulk.concurrency}, pacing ${config.emailBulk.perAccountPerSecond || 'off'})`,
    );
    const raws: number[] = [];
    const products: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      raws.push(await rawLeg(sink.port, sink.count, sink.child.pid!));
      products.push(await productLeg(round));
      log(
        `round ${round + 1}: raw ${raws[round]!.toFixed(1)}/s, product ${products[round]!.toFixed(1)}/s (each also stored with its timeline row and events), ratio ${(products[round]! / raws[round]!).toFixed(2)}`,
      );
    }
    const rawPerS = median(raws);
    const productPerS = median(products);
    out.push(
      `rounds: raw ${raws.map((v) => v.toFixed(0)).join(', ')}/s; product ${products.map((v) => v.toFixed(0)).join(', ')}/s; median of each leg below`,
      `RESULT emails_per_s=${productPerS.toFixed(1)} raw_smtp_per_s=${rawPerS.toFixed(1)} ratio=${(productPerS / rawPerS).toFixed(2)}`,
    );
  } finally {
    await worker.shutdown();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await api.close();
    sink.child.disconnect();
  }
  return out;
}

runBench('email', { postgres: 54389, meilisearch: 7789, temporal: 7289, temporalUi: 8289 }, run);
