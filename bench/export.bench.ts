// `npm run bench:export`: exports 10,000 deals through the real HTTP API and streams the same rows
// with a raw pg query, each side in its own child process, and prints time and peak memory side by
// side. Uses DATABASE_URL when set (assumed migrated); otherwise starts an embedded Postgres with
// the test profile (own data folder and port, CRM_BENCH_PG_PORT, default 54349), migrates it and
// stops it at the end. Last line: RESULT export_ms=<n> raw_ms=<n> ratio=<x> extra_mb=<n>
import { startBenchPostgres } from './bench-stack';
import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { MikroORM } from '@mikro-orm/postgresql';
import pg from 'pg';
import { DEAL_FIELDS } from '../domain/deals/deals.schemas';
import { newId } from '../domain/ids';
import { ormConfig } from '../domain/orm/config';
import { createWorkspace } from '../domain/workspaces/workspaces.service';
import { repoRoot } from '../infra/paths';
import type { ChildMessage } from './export.child';

const ROWS = 10_000;
const RUNS = 5;
const TARGET_RATIO = 1.5;
const TARGET_EXTRA_MB = 150;
const log = (line: string): void => void process.stderr.write(`[bench] ${line}\n`);

function child(args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  return fork(path.join(__dirname, 'export.child.ts'), args, {
    cwd: repoRoot,
    env,
    execArgv: ['--import', 'tsx', '--expose-gc'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
}

function next<T extends ChildMessage['type']>(
  proc: ChildProcess,
  type: T,
): Promise<Extract<ChildMessage, { type: T }>> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: ChildMessage): void => {
      if (message.type !== type) return;
      proc.off('message', onMessage);
      proc.off('exit', onExit);
      resolve(message as Extract<ChildMessage, { type: T }>);
    };
    const onExit = (code: number | null): void =>
      reject(new Error(`bench child exited (${code}) before sending ${type}`));
    proc.on('message', onMessage);
    proc.once('exit', onExit);
  });
}

/** 10,000 deals in one statement (ids made here: time-ordered object ids like the API's). */
async function seed(client: pg.Client, workspaceId: string, ownerId: string): Promise<void> {
  const ids = Array.from({ length: ROWS }, () => newId());
  await client.query(
    `insert into deal (id, workspace_id, created_at, updated_at, title, value, priority, probability, custom_fields, tags, status, owner_id)
     select t.id, $2, now() - (${ROWS} - t.i) * interval '1 second', now(), 'Benchmark deal ' || t.i, (t.i % 997) * 125.5,
            (array['low','medium','high'])[1 + t.i % 3], t.i % 100, jsonb_build_object('source', 'bench', 'n', t.i::int),
            array['bench', 'tag' || (t.i % 10)], 'open', $3
     from unnest($1::varchar[]) with ordinality as t(id, i)`,
    [ids, workspaceId, ownerId],
  );
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const mb = (bytes: number): number => Math.max(0, bytes) / 1024 / 1024;

async function measureExport(env: NodeJS.ProcessEnv, apiKey: string) {
  const proc = child(['server'], env);
  try {
    const { port } = await next(proc, 'ready');
    const call = async (limit: number): Promise<{ ms: number; rows: number }> => {
      const started = process.hrtime.bigint();
      const res = await fetch(`http://127.0.0.1:${port}/api/v1/export/deals?limit=${limit}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        body: '{}',
      });
      const text = await res.text();
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      if (res.status !== 200) throw new Error(`export answered ${res.status}: ${text.slice(0, 300)}`);
      return { ms, rows: (JSON.parse(text) as { data: unknown[] }).data.length };
    };
    await call(10); // loads the code paths and the connection pool
    // The memory window opens before the first big export, so heap growth it causes is counted.
    proc.send({ type: 'mark' });
    const { rss, exactPeak } = await next(proc, 'marked');
    for (let i = 0; i < 2; i++) await call(ROWS); // timing warm-up: JIT, plan cache
    const results: { ms: number; rows: number }[] = [];
    for (let i = 0; i < RUNS; i++) results.push(await call(ROWS));
    proc.send({ type: 'peak' });
    const { peak } = await next(proc, 'peak');
    return { times: results.map((r) => r.ms), rows: results[0]!.rows, extra: peak - rss, exactPeak };
  } finally {
    proc.send({ type: 'stop' });
    await new Promise((resolve) => proc.once('exit', resolve));
  }
}

async function measureRaw(env: NodeJS.ProcessEnv, databaseUrl: string, workspaceId: string, sql: string) {
  const proc = child(['raw', databaseUrl, workspaceId, sql, String(RUNS)], env);
  const result = await next(proc, 'raw');
  return { times: result.times, rows: result.rows, extra: result.peak - result.rss, exactPeak: result.exactPeak };
}

/** Removes every row of the benchmark workspace, so a shared database is left as it was. */
async function cleanup(client: pg.Client, workspaceId: string): Promise<void> {
  const tables = await client.query<{ table_name: string }>(
    `select table_name from information_schema.columns where column_name = 'workspace_id' and table_schema = current_schema()`,
  );
  for (const { table_name } of tables.rows)
    await client.query(`delete from "${table_name}" where workspace_id = $1`, [workspaceId]);
  await client.query('delete from workspace where id = $1', [workspaceId]);
}

async function main(): Promise<void> {
  const { databaseUrl, stack } = await startBenchPostgres('bench', 54349);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: databaseUrl,
    MEILI_URL: process.env.MEILI_URL ?? 'http://127.0.0.1:9',
    TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS ?? '127.0.0.1:9',
  };
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  let workspaceId: string | undefined;
  const out: string[] = [];
  try {
    const orm = await MikroORM.init(ormConfig(databaseUrl));
    const meta = orm.getMetadata().get('Deal');
    const columns = DEAL_FIELDS.map((f) => `"${meta.properties[f]!.fieldNames[0]}"`).join(', ');
    const ws = await createWorkspace(orm.em.fork(), { name: 'Export benchmark' });
    await orm.close(true);
    workspaceId = ws.workspaceId;
    const seeded = Date.now();
    await seed(client, ws.workspaceId, ws.userId);
    log(`seeded ${ROWS} deals in workspace ${ws.workspaceId} in ${Date.now() - seeded} ms`);
    const sql = `select ${columns} from deal where workspace_id = $1 order by id asc limit ${ROWS}`;
    log(`export side: POST /api/v1/export/deals?limit=${ROWS}, ${RUNS} timed runs after a warm-up…`);
    const exp = await measureExport(env, ws.apiKey);
    log(`raw side: ${sql.replace(/\s+/g, ' ').slice(0, 80)}…`);
    const raw = await measureRaw(env, databaseUrl, ws.workspaceId, sql);

    const exportMs = median(exp.times);
    const rawMs = median(raw.times);
    const ratio = exportMs / rawMs;
    const extraMb = mb(exp.extra);
    const row = (label: string, a: string, b: string): string =>
      `${label.padEnd(32)}${a.padStart(26)}${b.padStart(26)}`;
    out.push(
      row('', 'export (HTTP)', 'raw pg stream'),
      row('rows', String(exp.rows), String(raw.rows)),
      row(`time ms (median of ${RUNS})`, exportMs.toFixed(1), rawMs.toFixed(1)),
      row(
        'time ms (all runs)',
        exp.times.map((t) => t.toFixed(0)).join('/'),
        raw.times.map((t) => t.toFixed(0)).join('/'),
      ),
      row('peak RSS over idle baseline, MB', mb(exp.extra).toFixed(1), mb(raw.extra).toFixed(1)),
      ...(!exp.exactPeak || !raw.exactPeak
        ? ['note: peak RSS could not be reset (not Linux): memory includes start-up peaks']
        : []),
      `ratio ${ratio.toFixed(2)} (target ≤ ${TARGET_RATIO}): ${ratio <= TARGET_RATIO ? 'met' : 'NOT met'}`,
      `extra memory ${extraMb.toFixed(1)} MB (target < ${TARGET_EXTRA_MB} MB): ${extraMb < TARGET_EXTRA_MB ? 'met' : 'NOT met'}`,
      `RESULT export_ms=${Math.round(exportMs)} raw_ms=${Math.round(rawMs)} ratio=${ratio.toFixed(2)} extra_mb=${extraMb.toFixed(1)}`,
    );
  } finally {
    if (workspaceId)
      await cleanup(client, workspaceId).catch((error: unknown) => log(`cleanup failed: ${String(error)}`));
    await client.end();
    await stack?.stop();
  }
  // Printed after shutdown so that the RESULT line is the last line of the output.
  process.stdout.write(`${out.join('\n')}\n`);
}

main().catch((error: unknown) => {
  log(`failed: ${error instanceof Error ? error.stack : String(error)}`);
  process.exit(1);
});
