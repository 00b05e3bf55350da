// `npm run bench:envelopes`: contract signing envelopes end to end.
//
// 200 contracts with 3 parallel signers each are created and sent through the API (one envelope
// workflow each, run by bin/worker.ts as a child process, invitations e-mailed to a local SMTP
// receiver, the only place the signing links exist). Once every invitation has arrived, all 600
// signatures are POSTed at once to the public signing endpoint. Measured per contract: its last
// signature (signed_at) → its completion committed (completed_at, the transaction that stores the
// signed PDF and the contract.completed event). envelopes_per_s: contracts completed per second
// from the first signature POST to the last completion. Target p95 ≤ 1 s.
//
// Uses DATABASE_URL / TEMPORAL_ADDRESS / MEILI_URL when all set (database assumed migrated);
// otherwise starts the stack (test profile, fresh .data/bench-envelopes, ports CRM_BENCH_PG_PORT 54379,
// CRM_BENCH_MEILI_PORT 7779, CRM_BENCH_TEMPORAL_PORT 7279, CRM_BENCH_TEMPORAL_UI_PORT 8279).
// Last line: RESULT envelopes_per_s=<x> p50_complete_ms=<n> p95_complete_ms=<n>
import type { ChildProcess } from 'node:child_process';
import { simpleParser } from 'mailparser';
import pg from 'pg';
import { loadConfig } from '../app/config';
import { createLogger } from '../platform/logger';
import { runMigrations } from '../app/migrate';
import { mapLimited } from '../platform/shared/concurrency';
import { createWorkspace } from '../modules/workspaces/workspaces.service';
import { MikroORM } from '@mikro-orm/postgresql';
import { ormConfig } from '../app/orm';
import type { RunningStack } from '../infra/stack';
import { listenApi, startWorkerProcess } from './app-processes';
import { benchEnv, benchLog, mailAppEnv, runBench } from './bench-stack';
import { startSmtp } from '../test/unit/messaging/local-smtp';
import { percentile, poller } from './stats';

const CONTRACTS = Math.max(10, Number(process.env.BENCH_CONTRACTS ?? 200));
const SIGNERS = 3;
const TARGET_P95_MS = 1000;
const TIMEOUT_MS = 600_000;
const log = benchLog;

const until = poller(TIMEOUT_MS, 100);

async function run(stack: RunningStack | undefined): Promise<string[]> {
  const env = benchEnv(stack);
  const smtp = await startSmtp();
  const appEnv = mailAppEnv(env, 'envelopes', smtp.port);
  const config = loadConfig({ ...appEnv, LOG_LEVEL: 'silent' });
  if (stack?.started.includes('postgres')) await runMigrations(config.databaseUrl);
  const pool = new pg.Pool({ connectionString: config.databaseUrl, max: 4 });
  const orm = await MikroORM.init(ormConfig(config.databaseUrl));
  const api = await listenApi(config, createLogger('error', 'bench-api'));
  const { base } = api;
  let worker: ChildProcess | undefined;
  const out: string[] = [];
  try {
    log('starting the worker process…');
    // At the bench's own CPU priority (WORKER_NICE 0 unless set): this bench measures the engine, not the intake.
    worker = await startWorkerProcess({ WORKER_NICE: '0', ...appEnv, LOG_LEVEL: 'info' });
    const ws = await createWorkspace(orm.em.fork(), { name: 'Envelope benchmark' });
    const call = async (p: string, body: unknown): Promise<{ status: number; data: Record<string, unknown> }> => {
      const res = await fetch(base + p, {
        method: 'POST',
        headers: { authorization: `Bearer ${ws.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: res.status, data: ((await res.json()) as { data: Record<string, unknown> }).data };
    };

    log(`creating and sending ${CONTRACTS} contracts with ${SIGNERS} parallel signers each…`);
    const ids: string[] = [];
    await mapLimited(
      Array.from({ length: CONTRACTS }, (_, i) => i),
      16,
      async (i) => {
        const created = await call('/api/v1/contracts', {
          title: `Bench contract ${i}`,
          mode: 'parallel',
          signers: Array.from({ length: SIGNERS }, (_, s) => ({
            name: `Signer ${s + 1}`,
            email: `c${i}-s${s}@bench.example`,
          })),
          lineItems: [{ name: 'Service', quantity: 12, unitPrice: 999.5 }],
        });
        if (created.status !== 201) throw new Error(`create answered ${created.status}`);
        const sent = await call(`/api/v1/contracts/${String(created.data._id)}/send`, { reminderIntervalHours: null });
        if (sent.status !== 200) throw new Error(`send answered ${sent.status}`);
        ids.push(String(created.data._id));
      },
    );
    const want = CONTRACTS * SIGNERS;
    log(`waiting for ${want} invitations at the SMTP receiver…`);
    await until(`${want} invitations`, () => smtp.received.length >= want);
    const tokens: string[] = [];
    for (const m of smtp.received) {
      const text = (await simpleParser(m.raw)).text ?? '';
      const match = /\/public\/contracts\/sign\/([A-Za-z0-9_-]{43})/.exec(text);
      if (match) tokens.push(match[1]!);
    }
    if (tokens.length !== want) throw new Error(`expected ${want} links, got ${tokens.length}`);

    log(`posting ${want} signatures at once…`);
    const t0 = Date.now();
    const statuses = await Promise.all(
      tokens.map(async (token, i) => {
        const res = await fetch(`${base}/public/contracts/sign/${token}/sign`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'user-agent': 'bench' },
          body: JSON.stringify({ typedName: `Signer ${i}` }),
        });
        await res.arrayBuffer();
        return res.status;
      }),
    );
    const failed = statuses.filter((s) => s !== 200).length;
    if (failed) throw new Error(`${failed} signatures failed`);
    log(`signatures accepted in ${Date.now() - t0} ms; waiting for completion…`);
    await until(
      `${CONTRACTS} completed`,
      async () =>
        Number(
          (await pool.query(`select count(*) from contracts where id = any($1) and status = 'accepted'`, [ids])).rows[0]
            .count,
        ) === CONTRACTS,
    );
    const rows = (
      await pool.query<{ ms: string; done: Date }>(
        `select extract(epoch from (c.completed_at - max(s.signed_at))) * 1000 as ms, c.completed_at as done
       from contracts c join contract_signers s on s.contract_id = c.id where c.id = any($1) group by c.id, c.completed_at`,
        [ids],
      )
    ).rows;
    const samples = rows.map((r) => Number(r.ms));
    const last = Math.max(...rows.map((r) => new Date(r.done).getTime()));
    const perS = CONTRACTS / ((last - t0) / 1000);
    const p50 = Math.round(percentile(samples, 50));
    const p95 = Math.round(percentile(samples, 95));
    log(
      `completed ${CONTRACTS} envelopes; p50 ${p50} ms, p95 ${p95} ms (target p95 ≤ ${TARGET_P95_MS} ms: ${p95 <= TARGET_P95_MS ? 'met' : 'NOT met'})`,
    );
    out.push(`RESULT envelopes_per_s=${perS.toFixed(1)} p50_complete_ms=${p50} p95_complete_ms=${p95}`);
  } finally {
    worker?.kill('SIGTERM');
    await api.close();
    await pool.end();
    await orm.close(true);
    await smtp.close();
  }
  return out;
}

runBench('envelopes', { postgres: 54379, meilisearch: 7779, temporal: 7279, temporalUi: 8279 }, run);
