// `npm run bench:search`: bulk-inserts 100,000 companies and people (half each; BENCH_DOCS to
// change) into Postgres for a fresh workspace, indexes them through the search module (the same
// document builders and batches as `crm search reindex`), then times realistic queries through the
// search module, once over HTTP, and the same queries against Postgres (the degraded ILIKE path).
// Uses DATABASE_URL / MEILI_URL when set; otherwise starts what is missing with the test profile
// (own data folder and ports) and stops it at the end. Last line:
// RESULT docs_per_s=<x> p50_ms=<x> p95_ms=<x> pg_p95_ms=<x> speedup=<x>
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { MikroORM } from '@mikro-orm/postgresql';
import pg from 'pg';
import { buildApi } from '../api/bootstrap';
import { loadConfig } from '../app/config';
import { createCompany } from '../modules/companies/companies.service';
import { newId } from '../platform/ids';
import { createLogger } from '../platform/logger';
import { createOutboxDispatcher } from '../platform/outbox/dispatcher';
import { buildSubscribers } from '../app/subscribers';
import { ormConfig } from '../app/orm';
import { runMigrations } from '../app/migrate';
import { forkForWorkspace } from '../platform/orm/tenant';
import { createWorkspace } from '../modules/workspaces/workspaces.service';
import { devDataDir } from '../infra/paths';
import { startStack, type RunningStack } from '../infra/stack';
import { searchPostgres } from '../search/fallback';
import { createSearchIndexSubscriber } from '../search/index-subscriber';
import { createMeiliClient } from '../search/meili';
import { searchIndexes, type SearchRequest } from '../search/query';
import { reindex } from '../search/reindex';
import { benchEnv } from './bench-stack';
import { BENCH_QUERIES, insertBenchRows } from './search-data';
import { percentile } from './stats';

const DOCS = Number(process.env.BENCH_DOCS ?? 100_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 10);
const PG_ROUNDS = Number(process.env.BENCH_PG_ROUNDS ?? 3);
const TYPES = ['company', 'person'];
const log = (line: string): void => void process.stderr.write(`[bench] ${line}\n`);

const fmt = (n: number): string => (n >= 100 ? n.toFixed(0) : n.toFixed(2));

async function time<T>(fn: () => Promise<T>): Promise<[number, T]> {
  const started = process.hrtime.bigint();
  const value = await fn();
  return [Number(process.hrtime.bigint() - started) / 1e6, value];
}

async function measure(label: string, rounds: number, run: (q: string) => Promise<unknown>): Promise<number[]> {
  for (const q of BENCH_QUERIES) await run(q); // warm-up: caches, connections, JIT
  const samples: number[] = [];
  for (let r = 0; r < rounds; r++) for (const q of BENCH_QUERIES) samples.push((await time(() => run(q)))[0]);
  log(
    `${label}: ${samples.length} queries, p50 ${fmt(percentile(samples, 50))} ms, p95 ${fmt(percentile(samples, 95))} ms, max ${fmt(Math.max(...samples))} ms`,
  );
  return samples;
}

/** Write → searchable through the real path: service write, outbox, dispatcher, search subscriber. */
async function measureFreshness(
  orm: MikroORM,
  config: ReturnType<typeof loadConfig>,
  workspaceId: string,
  userId: string,
  writes = 20,
): Promise<number[]> {
  const log = createLogger('silent', 'bench-outbox');
  const subscribers = buildSubscribers(
    { orm, config, log, searchIndex: createSearchIndexSubscriber },
    { without: ['automations', 'contract-envelopes', 'webhooks', 'sequences'] },
  ).filter((s) => s.name === 'search-index');
  const dispatcher = createOutboxDispatcher({
    pgConnectionString: config.databaseUrl,
    subscribers,
    log,
    workspaceIds: [workspaceId],
  });
  await dispatcher.start();
  const client = createMeiliClient(config.meiliUrl, config.meiliMasterKey);
  const samples: number[] = [];
  try {
    for (let i = 0; i < writes; i++) {
      const name = `Freshprobe${newId().slice(-8)}`;
      const ctx = {
        em: forkForWorkspace(orm.em, workspaceId),
        actor: { workspaceId, userId, role: 'owner' as const, scopes: ['write' as const] },
      };
      const started = performance.now();
      await createCompany(ctx, { name }, { preview: false, images: async () => null });
      for (;;) {
        const res = await searchIndexes(client, config.meiliIndexPrefix, {
          workspaceId,
          q: name,
          types: ['company'],
          limit: 1,
        });
        if (res.results.company.total > 0) break;
        if (performance.now() - started > 30_000) throw new Error(`${name} not searchable after 30 s`);
        await new Promise((r) => setTimeout(r, 10));
      }
      samples.push(performance.now() - started);
    }
  } finally {
    await dispatcher.stop();
  }
  process.stderr.write(
    `[bench] freshness (write → searchable, ${writes} sequential writes): p50 ${fmt(percentile(samples, 50))} ms, p95 ${fmt(percentile(samples, 95))} ms\n`,
  );
  return samples;
}

async function startMissingServices(): Promise<RunningStack | undefined> {
  if (process.env.DATABASE_URL?.trim() && process.env.MEILI_URL?.trim()) return undefined;
  log('DATABASE_URL or MEILI_URL not set: starting the missing services (test profile, own data folder)…');
  // Temporal is never contacted here: marking it external keeps the stack from starting it.
  return startStack({
    profile: 'test',
    env: { ...process.env, TEMPORAL_ADDRESS: '127.0.0.1:9' },
    dataDir: path.join(devDataDir(), 'bench-search'),
    ports: {
      postgres: Number(process.env.CRM_BENCH_PG_PORT ?? 54359),
      meilisearch: Number(process.env.CRM_BENCH_MEILI_PORT ?? 7759),
    },
    log,
  });
}

async function main(): Promise<void> {
  const stack = await startMissingServices();
  const env: NodeJS.ProcessEnv = {
    ...benchEnv(stack),
    TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS ?? '127.0.0.1:9',
  };
  const prefix = `bench_${Date.now().toString(36)}_`;
  const config = loadConfig({
    ...env,
    MEILI_INDEX_PREFIX: prefix,
    LOG_LEVEL: 'silent',
    RATE_LIMIT_PER_MINUTE: '1000000',
  });
  if (stack) await runMigrations(config.databaseUrl);
  const pool = new pg.Pool({ connectionString: config.databaseUrl, max: 2 });
  const orm = await MikroORM.init(ormConfig(config.databaseUrl, { pool: { min: 0, max: 4 } }));
  const client = createMeiliClient(config.meiliUrl, config.meiliMasterKey, { timeoutMs: 30_000 });
  let workspaceId: string | undefined;
  let result = '';
  try {
    const ws = await createWorkspace(orm.em.fork(), { name: 'Search benchmark' });
    workspaceId = ws.workspaceId;
    const companies = Math.floor(DOCS / 2);
    log(`inserting ${companies} companies and ${DOCS - companies} people into Postgres…`);
    const [insertMs] = await time(() =>
      insertBenchRows(pool, ws.workspaceId, companies, DOCS - companies, () => undefined),
    );
    await pool.query('analyze company; analyze person');
    log(`inserted in ${(insertMs / 1000).toFixed(1)} s`);

    log(
      `indexing into ${prefix}company and ${prefix}person (settings first, batches of 1000, waiting until Meilisearch applied them)…`,
    );
    let lastLogged = 0;
    const [indexMs, indexed] = await time(() =>
      reindex({
        em: orm.em,
        client,
        prefix,
        workspaceId: ws.workspaceId,
        types: TYPES,
        onProgress: (p) => {
          if (p.phase === 'load' && p.done - lastLogged >= 10_000)
            log(`  ${p.type}: ${(lastLogged = p.done)} documents sent`);
          if (p.phase === 'index' && p.done === p.total) lastLogged = 0;
        },
      }),
    );
    const docs = indexed.reduce((n, r) => n + r.documents, 0);
    const docsPerS = docs / (indexMs / 1000);
    log(`indexed ${docs} documents in ${(indexMs / 1000).toFixed(1)} s: ${docsPerS.toFixed(0)} docs/s`);

    const request = (q: string): SearchRequest => ({ workspaceId: ws.workspaceId, q, types: TYPES, limit: 10 });
    const meili = await measure('meilisearch (search module, one multi-search for both types)', ROUNDS, (q) =>
      searchIndexes(client, prefix, request(q)),
    );
    const postgres = await measure('postgres (ILIKE over the same fields, degraded path)', PG_ROUNDS, (q) =>
      searchPostgres(forkForWorkspace(orm.em, ws.workspaceId), request(q)),
    );

    // One pass through the real HTTP API (auth, rate limit, validation, envelope included).
    const api = await buildApi(config, createLogger('silent', 'bench-api'));
    const server = api.app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    await measure('http GET /api/v1/search', 1, async (q) => {
      const res = await fetch(`${base}/api/v1/search?q=${encodeURIComponent(q)}&types=company,person`, {
        headers: { authorization: `Bearer ${ws.apiKey}` },
      });
      const body = (await res.json()) as { data?: { degraded?: boolean } };
      if (res.status !== 200 || body.data?.degraded)
        throw new Error(`HTTP search failed: ${res.status} ${JSON.stringify(body)}`);
    });
    server.close();
    server.closeAllConnections();
    await api.close();

    await measureFreshness(orm, config, ws.workspaceId, ws.userId);

    const example = await searchIndexes(client, prefix, request('jens hansen'));
    log(
      `example "jens hansen": ${example.results.person.total} people, first: ${JSON.stringify(example.results.person.hits[0])}`,
    );
    const p95 = percentile(meili, 95);
    const pgP95 = percentile(postgres, 95);
    log(
      `targets: p95 < 50 ms (${p95 < 50 ? 'met' : 'NOT met'}), at least 5x faster than Postgres (${pgP95 / p95 >= 5 ? 'met' : 'NOT met'})`,
    );
    result = `RESULT docs_per_s=${docsPerS.toFixed(0)} p50_ms=${fmt(percentile(meili, 50))} p95_ms=${fmt(p95)} pg_p95_ms=${fmt(pgP95)} speedup=${(pgP95 / p95).toFixed(1)}`;
  } finally {
    log('cleaning up (bench indexes and rows)…');
    const { results } = await client.getRawIndexes({ limit: 1000 }).catch(() => ({ results: [] as { uid: string }[] }));
    for (const index of results.filter((i) => i.uid.startsWith(prefix)))
      await client
        .deleteIndex(index.uid)
        .waitTask({ timeout: 120_000 })
        .catch(() => undefined);
    if (workspaceId && process.env.BENCH_KEEP !== '1') {
      for (const table of ['outbox_event', 'activity', 'person', 'company', 'api_key', 'app_user'])
        await pool.query(`delete from ${table} where workspace_id = $1`, [workspaceId]);
      await pool.query('delete from workspace where id = $1', [workspaceId]);
    }
    await pool.end();
    await orm.close(true);
    await stack?.stop();
  }
  process.stdout.write(`${result}\n`);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    log(`failed: ${err instanceof Error ? err.stack : String(err)}`);
    process.exit(1);
  },
);
