// `npm run bench:reports`: one workspace with 100,000 deals and 200,000 activities (BENCH_DEALS,
// BENCH_ACTIVITIES to change) and a custom object with 100,000 records (BENCH_RECORDS), bulk-inserted
// with generate_series, then times through the whole API (auth, tenant filter, validation, envelope):
// GET /reports/pipeline, GET /reports/history (stat=activities, 90 days), GET /metrics/query
// (deals.created by day over a year, with the owner dimension) and GET /custom-objects/:slug/records
// filtered by a select field value and sorted by a number field. Uses DATABASE_URL when set (assumed
// migrated); otherwise starts an embedded Postgres (test profile, CRM_BENCH_PG_PORT, default 54353)
// and stops it at the end. Meilisearch and Temporal are not needed. Target: each p95 ≤ 100 ms.
// Last line: RESULT pipeline_p95_ms=<n> history_p95_ms=<n> metrics_query_p95_ms=<n> records_list_p95_ms=<n>
import { benchLog, deleteWorkspaceRows, finishBench, startBenchPostgres } from './bench-stack';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { MikroORM } from '@mikro-orm/postgresql';
import pg from 'pg';
import { buildApi } from '../api/bootstrap';
import { loadConfig } from '../app/config';
import { newId } from '../platform/ids';
import { createLogger } from '../platform/logger';
import { ormConfig } from '../app/orm';
import { createWorkspace } from '../modules/workspaces/workspaces.service';
import { percentile } from './stats';

const DEALS = Number(process.env.BENCH_DEALS ?? 100_000);
const ACTIVITIES = Number(process.env.BENCH_ACTIVITIES ?? 200_000);
const RECORDS = Number(process.env.BENCH_RECORDS ?? 100_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 30);
const TARGET_MS = 100;
const log = benchLog;

/**
 * Deals spread over 2 years, 5 stages, 4 owners; activities linked to deals; custom records with a select, a number and
 * a text field.
 */
async function seed(client: pg.Client, workspaceId: string, ownerId: string): Promise<{ slug: string }> {
  const flowId = newId();
  const stages = ['Lead', 'Qualified', 'Proposal', 'Won', 'Lost'].map((title, i) => ({
    id: newId(),
    title,
    type: title === 'Won' ? 'won' : title === 'Lost' ? 'lost' : 'open',
    order: i,
  }));
  const owners = [ownerId, newId(), newId(), newId()];
  await client.query(
    `insert into flow (id, workspace_id, created_at, updated_at, title, is_default) values ($1, $2, now(), now(), 'Bench pipeline', false)`,
    [flowId, workspaceId],
  );
  for (const s of stages) {
    await client.query(
      `insert into flow_stage (id, workspace_id, created_at, updated_at, flow_id, title, "order", type, probability) values ($1, $2, now(), now(), $3, $4, $5, $6, $7)`,
      [s.id, workspaceId, flowId, s.title, s.order, s.type, s.type === 'open' ? 20 * (s.order + 1) : null],
    );
  }
  let started = Date.now();
  // Ids: 24 hex characters, unique per row (md5 of a per-run prefix and the series number).
  const run = newId();
  await client.query(
    `insert into deal (id, workspace_id, created_at, updated_at, title, value, flow_id, stage_id, priority, custom_fields, tags, status, won_date, lost_date, owner_id)
     select substr(md5($1 || 'd' || g), 1, 24), $2, now() - (g % 730) * interval '1 day' - (g % 1440) * interval '1 minute', now(),
            'Deal ' || g, (g % 1000) * 100, $3, ($4::text[])[1 + g % 5], (array['low','medium','high'])[1 + g % 3], '{}', '{}',
            case g % 5 when 3 then 'won' when 4 then 'lost' else 'open' end,
            case when g % 5 = 3 then now() - (g % 700) * interval '1 day' end,
            case when g % 5 = 4 then now() - (g % 700) * interval '1 day' end,
            ($5::text[])[1 + g % 4]
       from generate_series(1, $6::int) g`,
    [run, workspaceId, flowId, stages.map((s) => s.id), owners, DEALS],
  );
  log(`${DEALS} deals in ${Date.now() - started} ms`);
  started = Date.now();
  await client.query(
    `insert into activity (id, workspace_id, created_at, updated_at, type, system, summary, deal_id, date, metadata, user_id, owner_id)
     select substr(md5($1 || 'a' || g), 1, 24), $2, now() - (g % 730) * interval '1 day', now(),
            (array['call','meeting','email','note'])[1 + g % 4], false, 'Activity ' || g,
            substr(md5($1 || 'd' || (1 + g % $4::int)), 1, 24), now() - (g % 730) * interval '1 day' - (g % 600) * interval '1 minute', '{}',
            ($3::text[])[1 + g % 4], ($3::text[])[1 + g % 4]
       from generate_series(1, $5::int) g`,
    [run, workspaceId, owners, DEALS, ACTIVITIES],
  );
  log(`${ACTIVITIES} activities in ${Date.now() - started} ms`);
  started = Date.now();
  const objectId = newId();
  const slug = 'assets';
  await client.query(
    `insert into custom_object (id, workspace_id, created_at, updated_at, slug, singular, plural, use_accent_nav_icon, searchable, show_in_sidebar, favorite_field_keys, searchable_fields, pii_fields, last_record_number, created_by)
     values ($1, $2, now(), now(), $3, 'Asset', 'Assets', false, true, true, '{}', '{}', '{}', $4, $5)`,
    [objectId, workspaceId, slug, RECORDS, ownerId],
  );
  const fields = [
    { slug: 'name', type: 'text', options: [] },
    {
      slug: 'kind',
      type: 'select',
      options: ['laptop', 'phone', 'desk', 'car', 'licence', 'monitor', 'chair', 'server', 'printer', 'tablet'].map(
        (v) => ({ value: v, label: v }),
      ),
    },
    { slug: 'price', type: 'number', options: [] },
  ];
  for (const [i, f] of fields.entries()) {
    await client.query(
      `insert into custom_object_field (id, workspace_id, created_at, updated_at, object_id, slug, label, type, is_required, is_unique, options, "order") values ($1, $2, now(), now(), $3, $4, $4, $5, false, false, $6, $7)`,
      [newId(), workspaceId, objectId, f.slug, f.type, JSON.stringify(f.options), i],
    );
  }
  await client.query(
    `insert into custom_object_record (id, workspace_id, created_at, updated_at, object_id, record_number, data, created_by, updated_by)
     select substr(md5($1 || 'r' || g), 1, 24), $2, now() - g * interval '1 second', now(), $3, g,
            jsonb_build_object('name', 'Asset ' || g, 'kind', (array['laptop','phone','desk','car','licence','monitor','chair','server','printer','tablet'])[1 + g % 10], 'price', (g * 7919) % 100000),
            $4, $4
       from generate_series(1, $5::int) g`,
    [run, workspaceId, objectId, ownerId, RECORDS],
  );
  log(`${RECORDS} custom object records in ${Date.now() - started} ms`);
  // As autovacuum would after a bulk load: statistics and the visibility map (index-only scans).
  await client.query('vacuum analyze deal, activity, custom_object_record, flow_stage');
  return { slug };
}

/** Removes every row of the benchmark workspace and the rate-limit windows of its keys. */
async function cleanup(client: pg.Client, workspaceId: string): Promise<void> {
  // Before the keys go (rate_limit_window has no workspace_id of its own).
  await client.query(`delete from rate_limit_window where key_id in (select id from api_key where workspace_id = $1)`, [
    workspaceId,
  ]);
  await deleteWorkspaceRows(client, workspaceId);
}

async function timeGets(label: string, baseUrl: string, apiKey: string, paths: string[]): Promise<number> {
  const get = async (p: string): Promise<number> => {
    const started = process.hrtime.bigint();
    const res = await fetch(baseUrl + p, { headers: { authorization: `Bearer ${apiKey}` } });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`${label}: GET ${p} answered ${res.status}: ${text.slice(0, 300)}`);
    return Number(process.hrtime.bigint() - started) / 1e6;
  };
  for (const p of paths) await get(p); // warm-up: plans, caches, connections
  const samples: number[] = [];
  for (let r = 0; r < ROUNDS; r++) for (const p of paths) samples.push(await get(p));
  const p95 = percentile(samples, 95);
  log(
    `${label}: ${samples.length} requests, p50 ${percentile(samples, 50).toFixed(1)} ms, p95 ${p95.toFixed(1)} ms, max ${Math.max(...samples).toFixed(1)} ms`,
  );
  return p95;
}

async function main(): Promise<string[]> {
  const { databaseUrl, stack } = await startBenchPostgres('bench-reports', 54353);
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  let workspaceId: string | undefined;
  let server: Server | undefined;
  let runtime: Awaited<ReturnType<typeof buildApi>> | undefined;
  const out: string[] = [];
  try {
    const orm = await MikroORM.init(ormConfig(databaseUrl));
    const ws = await createWorkspace(orm.em.fork(), { name: 'Reports benchmark' });
    await orm.close(true);
    workspaceId = ws.workspaceId;
    const { slug } = await seed(client, ws.workspaceId, ws.userId);

    const config = loadConfig({
      ...process.env,
      DATABASE_URL: databaseUrl,
      MEILI_URL: process.env.MEILI_URL ?? 'http://127.0.0.1:9',
      TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS ?? '127.0.0.1:9',
      RATE_LIMIT_PER_MINUTE: '100000000',
      RATE_LIMIT_PER_DAY: '1000000000',
      LOG_LEVEL: 'warn',
    });
    runtime = await buildApi(config, createLogger('silent', 'bench-reports'));
    server = await new Promise<Server>((resolve) => {
      const s = runtime!.app.listen(0, '127.0.0.1', () => resolve(s));
    });
    const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const day = (offset: number): string => new Date(Date.now() - offset * 86_400_000).toISOString().slice(0, 10);

    const pipeline = await timeGets('pipeline', baseUrl, ws.apiKey, [
      '/api/v1/reports/pipeline',
      `/api/v1/reports/pipeline?startDate=${day(365)}&endDate=${day(0)}`,
    ]);
    const history = await timeGets('history', baseUrl, ws.apiKey, [
      `/api/v1/reports/history?stat=activities&startDate=${day(90)}&endDate=${day(0)}`,
      `/api/v1/reports/history?stat=deals&startDate=${day(90)}&endDate=${day(0)}`,
    ]);
    const metrics = await timeGets('metrics query', baseUrl, ws.apiKey, [
      `/api/v1/metrics/query?metricKey=deals.created&from=${day(365)}&to=${day(0)}&granularity=day`,
      `/api/v1/metrics/query?metricKey=deals.won_value&from=${day(365)}&to=${day(0)}&granularity=week&dimension=owner`,
    ]);
    const records = await timeGets('records list', baseUrl, ws.apiKey, [
      `/api/v1/custom-objects/${slug}/records?q=laptop&sort=price&dir=desc&limit=50`,
      `/api/v1/custom-objects/${slug}/records?q=server&sort=price&dir=asc&limit=50&page=3`,
    ]);
    const met = (n: number): string => (n <= TARGET_MS ? 'met' : 'NOT met');
    out.push(
      `pipeline p95 ${pipeline.toFixed(1)} ms (${met(pipeline)}), history p95 ${history.toFixed(1)} ms (${met(history)}), metrics query p95 ${metrics.toFixed(1)} ms (${met(metrics)}), records list p95 ${records.toFixed(1)} ms (${met(records)}); target ≤ ${TARGET_MS} ms each`,
      `RESULT pipeline_p95_ms=${pipeline.toFixed(1)} history_p95_ms=${history.toFixed(1)} metrics_query_p95_ms=${metrics.toFixed(1)} records_list_p95_ms=${records.toFixed(1)}`,
    );
  } finally {
    if (server) await new Promise<void>((resolve) => server!.close(() => resolve()));
    await runtime?.close().catch(() => undefined);
    if (workspaceId)
      await cleanup(client, workspaceId).catch((error: unknown) => log(`cleanup failed: ${String(error)}`));
    await client.end();
    await stack?.stop();
  }
  return out;
}

finishBench(main);
