// Shared scaffolding of the benches that need Postgres, Meilisearch and Temporal: start what the
// environment does not provide (test profile, a fresh data folder per bench), run, stop, then print
// the bench's lines so that its RESULT line is the last line of the output.
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import type pg from 'pg';
import { runMigrations } from '../app/migrate';
import { newId } from '../platform/ids';
import { devDataDir } from '../infra/paths';
import { startStack, type RunningStack } from '../infra/stack';
import { procStat } from '../test/support/api-process';

/** Progress lines go to stderr; stdout carries only the figures. */
export const benchLog = (line: string): void => void process.stderr.write(`[bench] ${line}\n`);

export interface BenchPorts {
  postgres: number;
  meilisearch: number;
  temporal: number;
  temporalUi: number;
}

/**
 * Starts the services DATABASE_URL, TEMPORAL_ADDRESS and MEILI_URL do not name (undefined when all are
 * set). The data folder `<dev data>/bench-<name>` is recreated each run: Temporal's SQLite file grows
 * with every run and slows the next one down. `CRM_BENCH_*_PORT` override the default ports.
 */
export async function startBenchStack(name: string, defaults: BenchPorts): Promise<RunningStack | undefined> {
  const env = process.env;
  if (env.DATABASE_URL?.trim() && env.TEMPORAL_ADDRESS?.trim() && env.MEILI_URL?.trim()) return undefined;
  benchLog(
    'DATABASE_URL, TEMPORAL_ADDRESS or MEILI_URL not set: starting the missing services (test profile, fresh data folder)…',
  );
  const dataDir = path.join(devDataDir(), `bench-${name}`);
  rmSync(dataDir, { recursive: true, force: true });
  return startStack({
    profile: 'test',
    dataDir,
    log: benchLog,
    ports: {
      postgres: Number(env.CRM_BENCH_PG_PORT ?? defaults.postgres),
      meilisearch: Number(env.CRM_BENCH_MEILI_PORT ?? defaults.meilisearch),
      temporal: Number(env.CRM_BENCH_TEMPORAL_PORT ?? defaults.temporal),
      temporalUi: Number(env.CRM_BENCH_TEMPORAL_UI_PORT ?? defaults.temporalUi),
    },
  });
}

/**
 * For the benches that need only Postgres (Meilisearch and Temporal count as external and are never
 * contacted): DATABASE_URL when set, otherwise an embedded Postgres (test profile, data folder
 * `<dev data>/<dataFolder>`, port `CRM_BENCH_PG_PORT` or the default), migrated. Stop `stack` when done.
 */
export async function startBenchPostgres(
  dataFolder: string,
  defaultPort: number,
): Promise<{ databaseUrl: string; stack?: RunningStack }> {
  const configured = process.env.DATABASE_URL?.trim();
  if (configured) return { databaseUrl: configured };
  benchLog('DATABASE_URL not set: starting an embedded Postgres (test profile)…');
  const stack = await startStack({
    profile: 'test',
    env: { ...process.env, MEILI_URL: 'http://127.0.0.1:9', TEMPORAL_ADDRESS: '127.0.0.1:9' },
    dataDir: path.join(devDataDir(), dataFolder),
    ports: { postgres: Number(process.env.CRM_BENCH_PG_PORT ?? defaultPort) },
    log: benchLog,
  });
  const databaseUrl = stack.env.DATABASE_URL!;
  await runMigrations(databaseUrl);
  return { databaseUrl, stack };
}

/** This process's environment with the settings of the services `stack` started over it (its empty ones left out). */
export function benchEnv(stack: RunningStack | undefined): NodeJS.ProcessEnv {
  return { ...process.env, ...(stack ? Object.fromEntries(Object.entries(stack.env).filter(([, v]) => v)) : {}) };
}

/** Rate limits no bench reaches: the API's limits are not what a bench measures. */
export const NO_RATE_LIMITS = { RATE_LIMIT_PER_MINUTE: '1000000', RATE_LIMIT_PER_DAY: '100000000' };

/**
 * The settings of an API and worker that send mail: `env` with a task queue of the bench's own (`bench-<name>-…`),
 * mail to the local SMTP server on `smtpPort` from bench@example.test, and NO_RATE_LIMITS.
 */
export function mailAppEnv(env: NodeJS.ProcessEnv, name: string, smtpPort: number) {
  return {
    ...env,
    TEMPORAL_TASK_QUEUE: `bench-${name}-${newId()}`,
    SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
    MAIL_FROM: 'Bench <bench@example.test>',
    ...NO_RATE_LIMITS,
  };
}

/** What deleteWorkspaceRows needs of a pool or a client. */
interface Queryable {
  query<R extends pg.QueryResultRow>(text: string, values?: unknown[]): Promise<pg.QueryResult<R>>;
}

/**
 * Removes every row of a bench workspace (each table with a workspace_id column, then the workspace),
 * so a shared database is left as it was.
 */
export async function deleteWorkspaceRows(db: Queryable, workspaceId: string): Promise<void> {
  const tables = await db.query<{ table_name: string }>(
    `select table_name from information_schema.columns where column_name = 'workspace_id' and table_schema = current_schema()`,
  );
  for (const { table_name } of tables.rows)
    await db.query(`delete from "${table_name}" where workspace_id = $1`, [workspaceId]);
  await db.query('delete from workspace where id = $1', [workspaceId]);
}

/**
 * Runs a bench's `main`, which stops its services before it answers its lines, then prints them (so that the RESULT
 * line is the last line of the output) and exits: 0, or 1 on failure.
 */
export function finishBench(main: () => Promise<string[]>): void {
  main().then(
    (out) => {
      process.stdout.write(`${out.join('\n')}\n`);
      process.exit(0);
    },
    (err: unknown) => {
      benchLog(`failed: ${err instanceof Error ? err.stack : String(err)}`);
      process.exit(1);
    },
  );
}

/** Runs one bench with its services (started as startBenchStack says, stopped after it) through finishBench. */
export function runBench(
  name: string,
  defaults: BenchPorts,
  run: (stack: RunningStack | undefined) => Promise<string[]>,
): void {
  finishBench(async () => {
    const stack = await startBenchStack(name, defaults);
    try {
      return await run(stack);
    } finally {
      await stack?.stop();
    }
  });
}

/** The pids in /proc; none when not Linux. */
function procPids(): number[] {
  try {
    return readdirSync('/proc')
      .filter((e) => /^\d+$/.test(e))
      .map(Number);
  } catch {
    return [];
  }
}

/**
 * CPU time (user + system, ms) used so far by the processes on this machine, grouped: `named` pids
 * under their own label, then Temporal (`temporal`), Postgres (`postgres` and its backends),
 * Meilisearch and everything else. Two snapshots around a phase show where its CPU went; a process
 * that exits between them (a closed Postgres backend) drops out, so the figures are lower bounds.
 */
export function cpuByGroup(named: Record<string, number>): Map<string, number> {
  const groups = new Map<string, number>();
  const byPid = new Map(Object.entries(named).map(([label, pid]) => [pid, label]));
  for (const pid of procPids()) {
    const p = procStat(pid);
    if (!p) continue; // exited meanwhile
    const label =
      byPid.get(pid) ??
      (p.comm === 'temporal'
        ? 'temporal'
        : p.comm.startsWith('postgres')
          ? 'postgres'
          : p.comm.startsWith('meilisearch')
            ? 'meilisearch'
            : 'other');
    groups.set(label, (groups.get(label) ?? 0) + p.ms);
  }
  return groups;
}

/** `label a ms, label b ms, …` per `per` units of work between two cpuByGroup snapshots. */
export function cpuDelta(before: Map<string, number>, after: Map<string, number>, per: number): string {
  const rows = [...after]
    .map(([label, ms]) => [label, (ms - (before.get(label) ?? 0)) / per] as const)
    .filter(([, ms]) => ms > 0.05)
    .sort((a, b) => b[1] - a[1]);
  const total = rows.reduce((s, [, ms]) => s + ms, 0);
  return `${rows.map(([label, ms]) => `${label} ${ms.toFixed(1)}`).join(', ')} (total ${total.toFixed(1)} ms)`;
}

/**
 * CPU time (ms) used so far by this process and by the services of the stack whose data folder is
 * `dataDir` only (other stacks on a shared machine are not counted): `bench` (this process: API or
 * worker code run in-process), `postgres` (its postmaster and every backend), `temporal`, `meilisearch`.
 * Processes that exited between two snapshots (closed backends) drop out: lower bounds.
 */
export function stackCpu(dataDir: string): Map<string, number> {
  const out = new Map<string, number>();
  const procs: { pid: number; ppid: number; comm: string; ms: number; cmd: string }[] = [];
  for (const pid of procPids()) {
    try {
      const p = procStat(pid);
      if (p) procs.push({ pid, ...p, cmd: readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ') });
    } catch {
      continue; // exited meanwhile
    }
  }
  const add = (label: string, ms: number): void => void out.set(label, (out.get(label) ?? 0) + ms);
  const postmasters = new Set(procs.filter((p) => p.comm === 'postgres' && p.cmd.includes(dataDir)).map((p) => p.pid));
  for (const p of procs) {
    if (p.pid === process.pid) add('bench', p.ms);
    else if (postmasters.has(p.pid) || postmasters.has(p.ppid)) add('postgres', p.ms);
    else if (p.cmd.includes(dataDir) && p.comm.startsWith('temporal')) add('temporal', p.ms);
    else if (p.cmd.includes(dataDir) && p.comm.startsWith('meilisearch')) add('meilisearch', p.ms);
  }
  return out;
}
