// `npm run bench:webhooks`: outbound webhook deliveries against a bare signer-and-POSTer.
//
// Product: 3 subscriptions (company.created) on a local receiver that verifies every signature with
// the standardwebhooks library (Webhook.verify). Companies are created through the companies
// service; their events go through the outbox to the real subscribers, wired as in the worker
// (bin/worker.ts: search indexing and automations included), and the `webhooks` subscriber signs
// and POSTs each delivery through the guarded client (first attempts, WEBHOOK_CONCURRENCY in flight).
// Bare: the same 3 × EVENTS bodies signed with standardwebhooks and POSTed with node:http to the same
// receiver, as many in flight as the product allows, one connection per POST like the guarded client
// (it connects to the address it vetted, so it keeps no pool).
//
// Two phases, as bench:automations:
//  - throughput: EVENTS (2,000) companies committed in BATCHES transactions while no dispatcher runs,
//    then one is started: deliveries/s from its start to the last delivery received;
//  - latency: PACED_EVENTS companies, one per transaction, at PACED_LOAD (50%) of the measured
//    rate: event commit → delivery received (p50, p95 over every delivery).
//
// Uses DATABASE_URL / TEMPORAL_ADDRESS / MEILI_URL when all set (database assumed migrated);
// otherwise starts the stack (test profile, fresh .data/bench-webhooks, ports CRM_BENCH_PG_PORT 54379,
// CRM_BENCH_MEILI_PORT 7779, CRM_BENCH_TEMPORAL_PORT 7279, CRM_BENCH_TEMPORAL_UI_PORT 8279).
// Last line: RESULT deliveries_per_s=<x> bare_per_s=<x> ratio=<x> p50_ms=<n> p95_ms=<n>
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { MikroORM } from '@mikro-orm/postgresql';
import { Connection } from '@temporalio/client';
import { createTemporalClient } from '../platform/temporal/client';
import pg from 'pg';
import { Webhook } from 'standardwebhooks';
import { createWorkflowPort } from '../platform/temporal/workflow-client';
import { createWebhookRetryPort } from '../modules/webhooks/webhook-client';
import { createCompany } from '../modules/companies/companies.service';
import { loadConfig } from '../app/config';
import { SCOPES, type Ctx } from '../platform/context';
import { newId } from '../platform/ids';
import { createLogger } from '../platform/logger';
import { ormConfig } from '../app/orm';
import { runMigrations } from '../app/migrate';
import { forkForWorkspace } from '../platform/orm/tenant';
import { createOutboxDispatcher, WORKER_PARALLEL_BATCHES, type OutboxDispatcher } from '../platform/outbox/dispatcher';
import { buildSubscribers } from '../app/subscribers';
import { createSearchIndexSubscriber } from '../search/index-subscriber';
import { mapLimited } from '../platform/shared/concurrency';
import { signedHeaders } from '../platform/shared/webhook-sender';
import { createSubscription } from '../modules/webhooks/subscriptions.service';
import { createWorkspace } from '../modules/workspaces/workspaces.service';
import type { RunningStack } from '../infra/stack';
import { benchEnv, benchLog, runBench, deleteWorkspaceRows } from './bench-stack';
import { commitRecords, type Pacing } from './record-commits';
import { percentile, poller, sleep } from './stats';

const EVENTS = Math.max(2000, Number(process.env.BENCH_EVENTS ?? 2000));
const SUBSCRIPTIONS = 3;
const BATCHES = 20;
const PACED_EVENTS = Math.max(50, Number(process.env.BENCH_PACED_EVENTS ?? 200));
const PACED_LOAD = 0.5;
const TIMEOUT_MS = 180_000;
const log = benchLog;

interface Hit {
  path: string;
  webhookId: string;
  companyId: string;
  at: number;
}

/**
 * The receiver: verifies every request with Webhook.verify (secret by path); a failed verification is counted, answered
 * 400.
 */
async function startReceiver(): Promise<{
  url: string;
  secrets: Map<string, Webhook>;
  hits: Hit[];
  bad: number[];
  close(): Promise<void>;
}> {
  const secrets = new Map<string, Webhook>();
  const hits: Hit[] = [];
  const bad = [0];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const path = req.url ?? '';
      try {
        const payload = secrets.get(path)!.verify(body, req.headers as Record<string, string>) as {
          data: { company?: { _id: string }; id?: string };
        };
        hits.push({
          path,
          webhookId: String(req.headers['webhook-id']),
          companyId: payload.data.company?._id ?? payload.data.id ?? '',
          at: Date.now(),
        });
        res.writeHead(204).end();
      } catch {
        bad[0]! += 1;
        res.writeHead(400).end();
      }
    });
  });
  server.keepAliveTimeout = 5000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    secrets,
    hits,
    bad,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

const until = poller(TIMEOUT_MS, 20);

/** Creates `count` companies (`${label} ${i}`) as `pacing` says; company id → commit time. */
const createCompanies = (orm: MikroORM, ctx: Omit<Ctx, 'em'>, count: number, pacing: Pacing, label: string) =>
  commitRecords(orm, ctx.actor.workspaceId, count, pacing, async (em, i) => {
    const company = await createCompany(
      { ...ctx, em },
      { name: `${label} ${i}` },
      { preview: false, images: async () => null },
    );
    return (company as { _id: string })._id;
  });

function latencies(hits: Hit[], committed: Map<string, number>): number[] {
  return hits.filter((h) => committed.has(h.companyId)).map((h) => h.at - committed.get(h.companyId)!);
}

/** The same signing and POSTs outside the product: node:http, one connection per POST, `concurrency` in flight. */
async function bare(
  url: string,
  bodies: { path: string; secret: string; body: string }[],
  concurrency: number,
): Promise<number> {
  const started = Date.now();
  await mapLimited(
    bodies,
    concurrency,
    (b) =>
      new Promise<void>((resolve, reject) => {
        const headers = signedHeaders(`msg_${newId()}`, b.body, [b.secret]);
        const req = http.request(
          `${url}${b.path}`,
          {
            method: 'POST',
            headers: { ...headers, 'content-length': Buffer.byteLength(b.body) },
            agent: false,
            timeout: 10_000,
          },
          (res) => {
            res.resume();
            res.on('end', () =>
              res.statusCode === 204 ? resolve() : reject(new Error(`bare POST answered ${res.statusCode}`)),
            );
          },
        );
        req.on('error', reject);
        req.end(b.body);
      }),
  );
  return bodies.length / ((Date.now() - started) / 1000);
}

async function run(stack: RunningStack | undefined): Promise<string[]> {
  const env = benchEnv(stack);
  const receiver = await startReceiver();
  const config = loadConfig({
    ...env,
    TEMPORAL_TASK_QUEUE: `bench-webhooks-${newId()}`,
    LOG_LEVEL: 'silent',
    OUTBOUND_ALLOW_HOSTS: '127.0.0.1',
  });
  if (stack?.started.includes('postgres')) await runMigrations(config.databaseUrl);
  const appLog = createLogger(process.env.BENCH_LOG_LEVEL ?? 'error', 'bench-webhooks');
  const pool = new pg.Pool({ connectionString: config.databaseUrl, max: 4 });
  // Its idle connections see the stack stop (57P01) after the run: not a failure of the bench.
  pool.on('error', () => undefined);
  const orm = await MikroORM.init(ormConfig(config.databaseUrl));
  const client = createTemporalClient(await Connection.connect({ address: config.temporalAddress }), config);
  let dispatcher: OutboxDispatcher | undefined;
  let workspaceId: string | undefined;
  const out: string[] = [];
  try {
    const ws = await createWorkspace(orm.em.fork(), { name: 'Webhook benchmark' });
    workspaceId = ws.workspaceId;
    const actor = { workspaceId, userId: ws.userId, role: 'owner' as const, scopes: [...SCOPES] };
    const secrets: { path: string; secret: string }[] = [];
    for (let i = 0; i < SUBSCRIPTIONS; i++) {
      const path = `/hook-${i}`;
      const sub = await createSubscription({ em: forkForWorkspace(orm.em, workspaceId), actor }, config, {
        url: `${receiver.url}${path}`,
        events: ['company.created'],
      });
      receiver.secrets.set(path, new Webhook(sub.secret));
      secrets.push({ path, secret: sub.secret });
    }
    const newDispatcher = () =>
      createOutboxDispatcher({
        pgConnectionString: config.databaseUrl,
        workspaceIds: [workspaceId!],
        log: appLog,
        parallelBatches: WORKER_PARALLEL_BATCHES,
        subscribers: buildSubscribers(
          {
            orm,
            config,
            log: appLog,
            workflows: createWorkflowPort(client, config.temporalTaskQueue),
            searchIndex: createSearchIndexSubscriber,
            webhookRetries: createWebhookRetryPort(client, config.temporalTaskQueue),
          },
          { without: ['sequences'] },
        ),
      });
    dispatcher = newDispatcher();
    await dispatcher.start();
    const expectHits = (n: number) =>
      until(`${n} deliveries`, () => {
        if (receiver.bad[0]) throw new Error(`${receiver.bad[0]} deliveries failed verification`);
        return receiver.hits.length >= n;
      });

    log('warm-up: 10 companies…');
    await createCompanies(orm, { actor }, 10, { batches: 1 }, 'Warm-up');
    await expectHits(10 * SUBSCRIPTIONS);
    await dispatcher.stop();

    // The events are committed while no dispatcher runs, so the figure is the delivery pipeline's
    // (outbox claim → subscribers → signed POSTs), not the speed of creating companies.
    log(
      `throughput: ${EVENTS} companies committed in ${BATCHES} transactions, then ${EVENTS * SUBSCRIPTIONS} deliveries…`,
    );
    await createCompanies(orm, { actor }, EVENTS, { batches: BATCHES }, 'Bench');
    await sleep(1000);
    const before = receiver.hits.length;
    dispatcher = newDispatcher();
    const burstStart = Date.now();
    await dispatcher.start();
    await expectHits(before + EVENTS * SUBSCRIPTIONS);
    const burstHits = receiver.hits.slice(before);
    const wallMs = Math.max(...burstHits.map((h) => h.at)) - burstStart;
    const perS = (EVENTS * SUBSCRIPTIONS) / (wallMs / 1000);
    const ids = new Set(burstHits.map((h) => h.webhookId));
    if (ids.size !== EVENTS * SUBSCRIPTIONS)
      throw new Error(`expected ${EVENTS * SUBSCRIPTIONS} distinct webhook-ids, got ${ids.size}`);
    out.push(
      `product: ${EVENTS * SUBSCRIPTIONS} deliveries (all verified) from a backlog of ${EVENTS} events in ${wallMs} ms = ${perS.toFixed(0)}/s`,
    );
    const { rows } = await pool.query<{ status: string; n: number }>(
      `select status, count(*)::int as n from webhook_delivery where workspace_id = $1 group by status`,
      [workspaceId],
    );
    out.push(`delivery rows: ${rows.map((r) => `${r.status} ${r.n}`).join(', ')}`);
    await until(
      'the outbox to drain',
      async () =>
        (
          await pool.query(`select 1 from outbox_event where workspace_id = $1 and processed_at is null limit 1`, [
            workspaceId,
          ])
        ).rowCount === 0,
    );
    await sleep(1000);

    const rate = (perS / SUBSCRIPTIONS) * PACED_LOAD;
    log(`latency: ${PACED_EVENTS} companies, one per transaction, ${rate.toFixed(0)}/s…`);
    const beforePaced = receiver.hits.length;
    const pacedCommitted = await createCompanies(orm, { actor }, PACED_EVENTS, { everyMs: 1000 / rate }, 'Paced');
    await expectHits(beforePaced + PACED_EVENTS * SUBSCRIPTIONS);
    const pacedLat = latencies(receiver.hits.slice(beforePaced), pacedCommitted);
    const p50 = percentile(pacedLat, 50);
    const p95 = percentile(pacedLat, 95);
    out.push(
      `product paced: ${PACED_EVENTS} events at ${rate.toFixed(0)}/s → commit → delivery p50 ${p50} ms, p95 ${p95} ms, max ${Math.max(...pacedLat)} ms`,
    );
    await dispatcher.stop();
    dispatcher = undefined;

    await sleep(1000);
    log(`bare: ${EVENTS * SUBSCRIPTIONS} signed POSTs, ${config.webhooks.concurrency} in flight…`);
    const bodies = Array.from({ length: EVENTS * SUBSCRIPTIONS }, (_, i) => {
      const s = secrets[i % SUBSCRIPTIONS]!;
      return {
        ...s,
        body: JSON.stringify({
          type: 'company.created',
          timestamp: new Date().toISOString(),
          data: { id: `bare-${i}`, name: `Bare ${i}` },
        }),
      };
    });
    const bareStartHits = receiver.hits.length;
    const barePerS = await bare(receiver.url, bodies, config.webhooks.concurrency);
    if (receiver.hits.length - bareStartHits !== bodies.length)
      throw new Error('bare deliveries missing at the receiver');
    out.push(`bare: ${bodies.length} POSTs at ${barePerS.toFixed(0)}/s`);
    const ratio = perS / barePerS;
    out.push(
      `targets: ratio ≥ 0.5 (${ratio >= 0.5 ? 'met' : 'missed'}), event-commit → delivery p95 ≤ 1000 ms (${p95 <= 1000 ? 'met' : 'missed'})`,
    );
    out.push(
      `RESULT deliveries_per_s=${perS.toFixed(1)} bare_per_s=${barePerS.toFixed(1)} ratio=${ratio.toFixed(2)} p50_ms=${p50} p95_ms=${p95}`,
    );
  } finally {
    await dispatcher?.stop();
    if (workspaceId && !process.env.BENCH_KEEP_DATA) await deleteWorkspaceRows(pool, workspaceId);
    await receiver.close();
    await client.connection.close().catch(() => undefined);
    await orm.close(true);
    await pool.end();
  }
  return out;
}

runBench('webhooks', { postgres: 54379, meilisearch: 7779, temporal: 7279, temporalUi: 8279 }, run);
