// `npm run bench:read`: GET /api/v1/companies/:id through the whole API (auth, rate-limit count,
// tenant filter, validation, envelope, request log) against a raw Koa + pg handler doing the same
// key lookup and row select. Each server runs in its own child process; autocannon drives both
// from this process with the same settings (10 connections, 10 s, after a 2 s warm-up). Uses
// DATABASE_URL when set (assumed migrated); otherwise starts an embedded Postgres with the test
// profile (CRM_BENCH_PG_PORT, default 54349) and stops it at the end. CRM_BENCH_DURATION overrides 10 s.
// Last line: RESULT api_rps=<n> raw_rps=<n> ratio=<x> p50_ms=<n> p99_ms=<n> (latencies of the API side)
import { startBenchPostgres } from './bench-stack';
import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import autocannon from 'autocannon';
import { MikroORM } from '@mikro-orm/postgresql';
import pg from 'pg';
import { newId } from '../domain/ids';
import { ormConfig } from '../domain/orm/config';
import { createWorkspace } from '../domain/workspaces/workspaces.service';
import { devDataDir, repoRoot } from '../infra/paths';
import type { ReadChildMessage } from './read.child';

const CONNECTIONS = 10;
const DURATION_S = Number(process.env.CRM_BENCH_DURATION ?? 10);
const WARMUP_S = 2;
const TARGET_RATIO = 0.6;
const log = (line: string): void => void process.stderr.write(`[bench] ${line}\n`);

function start(args: string[], env: NodeJS.ProcessEnv): { proc: ChildProcess; port: Promise<number> } {
  // CRM_BENCH_PROFILE=1 writes a V8 CPU profile of each server to .data/bench/profiles (open in Chrome DevTools).
  const profile =
    process.env.CRM_BENCH_PROFILE === '1'
      ? ['--cpu-prof', `--cpu-prof-dir=${path.join(devDataDir(), 'bench', 'profiles')}`]
      : [];
  const proc = fork(path.join(__dirname, 'read.child.ts'), args, {
    cwd: repoRoot,
    env,
    execArgv: ['--import', 'tsx', ...profile],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const port = new Promise<number>((resolve, reject) => {
    proc.once('message', (message: ReadChildMessage) => resolve(message.type === 'ready' ? message.port : 0));
    proc.once('exit', (code) => reject(new Error(`bench child exited (${code}) before it was ready`)));
  });
  return { proc, port };
}

async function stop(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null) return;
  const exited = new Promise((resolve) => proc.once('exit', resolve));
  proc.send({ type: 'stop' });
  await exited;
}

interface Load {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  requests: number;
  cpuUsPerRequest?: number;
}

function cpuMicros(proc: ChildProcess): Promise<number> {
  return new Promise((resolve) => {
    const onMessage = (message: ReadChildMessage): void => {
      if (message.type !== 'cpu') return;
      proc.off('message', onMessage);
      resolve(message.micros);
    };
    proc.on('message', onMessage);
    proc.send({ type: 'cpu' });
  });
}

async function load(url: string, apiKey: string, duration: number): Promise<Load> {
  const result = await autocannon({
    url,
    connections: CONNECTIONS,
    duration,
    headers: { authorization: `Bearer ${apiKey}` },
  });
  return {
    rps: result.requests.total / duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
    requests: result.requests.total,
  };
}

/** Warm-up then one measured run against one child; refuses a run where any answer was not 2xx. */
async function measure(
  label: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  apiKey: string,
  companyId: string,
): Promise<Load> {
  const child = start(args, env);
  try {
    const port = await child.port;
    const url = `http://127.0.0.1:${port}/api/v1/companies/${companyId}`;
    const probe = await fetch(url, { headers: { authorization: `Bearer ${apiKey}` } });
    if (probe.status !== 200)
      throw new Error(`${label} answered ${probe.status}: ${(await probe.text()).slice(0, 300)}`);
    await load(url, apiKey, WARMUP_S);
    log(`${label}: ${CONNECTIONS} connections for ${DURATION_S} s…`);
    const cpuBefore = await cpuMicros(child.proc);
    const result = await load(url, apiKey, DURATION_S);
    // Server CPU per request: steadier than requests/s when other processes share the cores.
    result.cpuUsPerRequest = ((await cpuMicros(child.proc)) - cpuBefore) / result.requests;
    if (result.non2xx || result.errors)
      throw new Error(
        `${label}: ${result.non2xx} non-2xx answers and ${result.errors} errors in ${result.requests} requests`,
      );
    return result;
  } finally {
    await stop(child.proc);
  }
}

/** Removes every row of the benchmark workspace, so a shared database is left as it was. */
async function cleanup(client: pg.Client, workspaceId: string): Promise<void> {
  const tables = await client.query<{ table_name: string }>(
    `select table_name from information_schema.columns where column_name = 'workspace_id' and table_schema = current_schema()`,
  );
  for (const { table_name } of tables.rows)
    await client.query(`delete from "${table_name}" where workspace_id = $1`, [workspaceId]);
  await client.query(`delete from rate_limit_window where key_id in (select id from api_key where workspace_id = $1)`, [
    workspaceId,
  ]);
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
    const ws = await createWorkspace(orm.em.fork(), { name: 'Read benchmark' });
    await orm.close(true);
    workspaceId = ws.workspaceId;
    const companyId = newId();
    await client.query(
      `insert into company (id, workspace_id, created_at, updated_at, name, email, custom_fields, tags)
       values ($1, $2, now(), now(), 'Nordic Bikes', 'hello@nordic.example', '[]', array['vip'])`,
      [companyId, ws.workspaceId],
    );
    const api = await measure('api', ['api'], env, ws.apiKey, companyId);
    const raw = await measure('raw', ['raw', databaseUrl], env, ws.apiKey, companyId);
    const ratio = api.rps / raw.rps;
    const row = (label: string, a: string, b: string): string =>
      `${label.padEnd(24)}${a.padStart(16)}${b.padStart(16)}`;
    out.push(
      row('', 'API', 'raw Koa + pg'),
      row('requests/s', api.rps.toFixed(0), raw.rps.toFixed(0)),
      row('latency p50 ms', String(api.p50), String(raw.p50)),
      row('latency p99 ms', String(api.p99), String(raw.p99)),
      row('server CPU µs/request', api.cpuUsPerRequest!.toFixed(0), raw.cpuUsPerRequest!.toFixed(0)),
      `ratio ${ratio.toFixed(2)} (target ≥ ${TARGET_RATIO}): ${ratio >= TARGET_RATIO ? 'met' : 'NOT met'}`,
      `RESULT api_rps=${Math.round(api.rps)} raw_rps=${Math.round(raw.rps)} ratio=${ratio.toFixed(2)} p50_ms=${api.p50} p99_ms=${api.p99}`,
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
