// `npm run bench:export`: exports 10,000 deals through the real HTTP API and streams the same rows
// with a raw pg query, each side in its own child process, in BENCH_ROUNDS (default 5) rounds of one
// of each (alternating which goes first, so a change of machine load hits both), and prints the
// medians, the median of the rounds' ratios, CPU per row by process and peak memory side by side.
// Uses DATABASE_URL when set (assumed migrated); otherwise starts an embedded Postgres with the test
// profile (own data folder and port, CRM_BENCH_PG_PORT, default 54349), migrates it and stops it at
// the end. Last line: RESULT export_ms=<n> raw_ms=<n> ratio=<x> extra_mb=<n>
import { benchLog, deleteWorkspaceRows, finishBench, startBenchPostgres } from './bench-stack';
import { fork, type ChildProcess } from 'node:child_process';
import { loadavg } from 'node:os';
import path from 'node:path';
import { MikroORM } from '@mikro-orm/postgresql';
import pg from 'pg';
import { DEAL_FIELDS } from '../modules/deals/deals.schemas';
import { newId } from '../platform/ids';
import { ormConfig } from '../app/orm';
import { createWorkspace } from '../modules/workspaces/workspaces.service';
import { repoRoot } from '../infra/paths';
import type { ChildMessage } from './export.child';
import { procCpuMs } from '../test/support/api-process';
import { alternating } from './stats';

const ROWS = 10_000;
/** Rounds of one export and one raw stream each (alternating which goes first); medians compared. */
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 5));
const TARGET_RATIO = 1.5;
const TARGET_EXTRA_MB = 150;
const log = benchLog;

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

const cpuOf = (pids: number[]): number => pids.reduce((sum, pid) => sum + procCpuMs(pid), 0);

interface Sides {
  /** One export of `limit` rows through HTTP: wall time and rows. */
  exportOnce: (limit: number) => Promise<{ ms: number; rows: () => number }>;
  rawOnce: () => Promise<{ ms: number; rows: number }>;
  server: ChildProcess;
  raw: ChildProcess;
  rawBackend: number;
}

async function startSides(
  env: NodeJS.ProcessEnv,
  apiKey: string,
  databaseUrl: string,
  workspaceId: string,
  sql: string,
): Promise<Sides> {
  const server = child(['server'], env);
  const raw = child(['raw', databaseUrl, workspaceId, sql], env);
  const [{ port }, { backendPid }] = await Promise.all([next(server, 'ready'), next(raw, 'raw-ready')]);
  const exportOnce = async (limit: number): Promise<{ ms: number; rows: () => number }> => {
    const started = process.hrtime.bigint();
    const res = await fetch(`http://127.0.0.1:${port}/api/v1/export/deals?limit=${limit}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: '{}',
    });
    // The clock stops when the last byte is in (the raw side stops at its last row); decoding and
    // parsing the page happen after it (and after the CPU window of a timed round).
    const body = Buffer.from(await res.arrayBuffer());
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    if (res.status !== 200) throw new Error(`export answered ${res.status}: ${body.toString().slice(0, 300)}`);
    return { ms, rows: () => (JSON.parse(body.toString('utf8')) as { data: unknown[] }).data.length };
  };
  const rawOnce = async (): Promise<{ ms: number; rows: number }> => {
    raw.send({ type: 'run' });
    const { ms, rows } = await next(raw, 'ran');
    return { ms, rows };
  };
  return { exportOnce, rawOnce, server, raw, rawBackend: backendPid };
}

async function stopChild(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null) return;
  proc.send({ type: 'stop' });
  await new Promise((resolve) => proc.once('exit', resolve));
}

/** The Postgres backends of the database other than `except` (the API's pool, once it is warm). */
async function backendsOf(client: pg.Client, except: number[]): Promise<number[]> {
  const { rows } = await client.query<{ pid: number }>(
    'select pid from pg_stat_activity where datname = current_database() and pid <> all($1::int[])',
    [except],
  );
  return rows.map((r) => r.pid);
}

async function main(): Promise<string[]> {
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
    log(`export side: POST /api/v1/export/deals?limit=${ROWS}; raw side: ${sql.replace(/\s+/g, ' ').slice(0, 60)}…`);
    const sides = await startSides(env, ws.apiKey, databaseUrl, ws.workspaceId, sql);
    try {
      await sides.exportOnce(10); // loads the code paths and the connection pool
      // The memory windows open before the first big read, so heap growth it causes is counted.
      sides.server.send({ type: 'mark' });
      sides.raw.send({ type: 'mark' });
      const [apiMark, rawMark] = await Promise.all([next(sides.server, 'marked'), next(sides.raw, 'marked')]);
      for (let i = 0; i < 2; i++) {
        await sides.exportOnce(ROWS); // warm-up: JIT, plan cache, buffers
        await sides.rawOnce();
      }
      // The API's pool has grown by now: its backends are the database's others.
      const own = (await client.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid;
      const apiBackends = await backendsOf(client, [own, sides.rawBackend]);
      log(
        `${ROUNDS} rounds of one export and one raw stream, alternating which goes first (load ${loadavg()
          .map((l) => l.toFixed(2))
          .join(' ')})…`,
      );
      const rounds: { exp: number; raw: number; rows: [number, number] }[] = [];
      const cpu = { api: 0, apiPg: 0, client: 0, raw: 0, rawPg: 0 };
      for (let round = 0; round < ROUNDS; round++) {
        const timeExport = async () => {
          const a = [procCpuMs(sides.server.pid!), cpuOf(apiBackends), process.cpuUsage()] as const;
          const r = await sides.exportOnce(ROWS);
          const used = process.cpuUsage(a[2]);
          cpu.api += procCpuMs(sides.server.pid!) - a[0];
          cpu.apiPg += cpuOf(apiBackends) - a[1];
          cpu.client += (used.user + used.system) / 1000;
          return { ms: r.ms, rows: r.rows() };
        };
        const timeRaw = async () => {
          const a = [procCpuMs(sides.raw.pid!), procCpuMs(sides.rawBackend)] as const;
          const r = await sides.rawOnce();
          cpu.raw += procCpuMs(sides.raw.pid!) - a[0];
          cpu.rawPg += procCpuMs(sides.rawBackend) - a[1];
          return r;
        };
        const [e, r] = await alternating(round, timeExport, timeRaw);
        rounds.push({ exp: e.ms, raw: r.ms, rows: [e.rows, r.rows] });
      }
      sides.server.send({ type: 'peak' });
      sides.raw.send({ type: 'peak' });
      const [apiPeak, rawPeak] = await Promise.all([next(sides.server, 'peak'), next(sides.raw, 'peak')]);

      const exportMs = median(rounds.map((r) => r.exp));
      const rawMs = median(rounds.map((r) => r.raw));
      const ratio = median(rounds.map((r) => r.exp / r.raw));
      const extraMb = mb(apiPeak.peak - apiMark.rss);
      const perRow = (ms: number): string => ((ms * 1000) / (ROUNDS * ROWS)).toFixed(1);
      const row = (label: string, a: string, b: string): string =>
        `${label.padEnd(34)}${a.padStart(26)}${b.padStart(26)}`;
      out.push(
        row('', 'export (HTTP)', 'raw pg stream'),
        row('rows', String(rounds[0]!.rows[0]), String(rounds[0]!.rows[1])),
        row(`time ms (median of ${ROUNDS} rounds)`, exportMs.toFixed(1), rawMs.toFixed(1)),
        row(
          'time ms (each round)',
          rounds.map((r) => r.exp.toFixed(0)).join('/'),
          rounds.map((r) => r.raw.toFixed(0)).join('/'),
        ),
        row('CPU µs per row: node', `${perRow(cpu.api)} + client ${perRow(cpu.client)}`, perRow(cpu.raw)),
        row('CPU µs per row: postgres', perRow(cpu.apiPg), perRow(cpu.rawPg)),
        row('peak RSS over idle baseline, MB', extraMb.toFixed(1), mb(rawPeak.peak - rawMark.rss).toFixed(1)),
        ...(!apiMark.exactPeak || !rawMark.exactPeak
          ? ['note: peak RSS could not be reset (not Linux): memory includes start-up peaks']
          : []),
        `ratio per round ${rounds.map((r) => (r.exp / r.raw).toFixed(2)).join(', ')}; load average ${loadavg()
          .map((l) => l.toFixed(2))
          .join(' ')}`,
        `ratio ${ratio.toFixed(2)} (median of the rounds' ratios, target ≤ ${TARGET_RATIO}): ${ratio <= TARGET_RATIO ? 'met' : 'NOT met'}`,
        `extra memory ${extraMb.toFixed(1)} MB (target < ${TARGET_EXTRA_MB} MB): ${extraMb < TARGET_EXTRA_MB ? 'met' : 'NOT met'}`,
        `RESULT export_ms=${Math.round(exportMs)} raw_ms=${Math.round(rawMs)} ratio=${ratio.toFixed(2)} extra_mb=${extraMb.toFixed(1)}`,
      );
    } finally {
      await Promise.all([stopChild(sides.server), stopChild(sides.raw)]);
    }
  } finally {
    if (workspaceId)
      await deleteWorkspaceRows(client, workspaceId).catch((error: unknown) => log(`cleanup failed: ${String(error)}`));
    await client.end();
    await stack?.stop();
  }
  return out;
}

finishBench(main);
