// The soak's processes: the stack's services (Postgres, Meilisearch, Temporal) started through infra/stack.ts
// but kept restartable, and the app processes (bin/api.ts, bin/worker.ts) in slots that can be SIGKILLed and
// started again. Every kill is a SIGKILL of the whole process group (Postgres with its backends).
import { closeSync, existsSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import path from 'node:path';
import type { LogFn } from '../../infra/log';
import { startEmbeddedMeilisearch } from '../../infra/meilisearch';
import { startEmbeddedPostgres } from '../../infra/postgres';
import { spawnManaged, type ManagedProcess } from '../../infra/process';
import type { LaunchContext, RunningService, ServiceName } from '../../infra/service';
import { startStack, type RunningStack, type StackPorts } from '../../infra/stack';
import { startTemporalDevServer } from '../../infra/temporal';
import { delay } from '../../infra/wait';
import { repoRoot } from '../../infra/paths';

interface Restartable {
  current: RunningService;
  restart(): Promise<RunningService>;
}

export interface SoakStack {
  stack: RunningStack;
  kill(service: ServiceName): Promise<void>;
  restart(service: ServiceName): Promise<void>;
  pids(): number[];
}

function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
}

/**
 * The stack with a durable Postgres (fsync on: a SIGKILL must not lose acknowledged commits, which
 * the test profile's fsync=off + synchronous_commit=off would) and handles to kill and relaunch each
 * service with the same data folder and ports.
 */
export async function startSoakStack(dataDir: string, ports: StackPorts, log: LogFn): Promise<SoakStack> {
  const services: Partial<Record<ServiceName, Restartable>> = {};
  const keep = <C, S extends RunningService>(
    name: ServiceName,
    launch: (ctx: LaunchContext, config: C) => Promise<S>,
  ) => {
    return async (ctx: LaunchContext, config: C): Promise<S> => {
      const first = await launch(ctx, config);
      const entry: Restartable = {
        current: first,
        restart: async () => (entry.current = await launch(ctx, config)),
      };
      services[name] = entry;
      return first;
    };
  };
  const env = { ...process.env };
  for (const name of ['DATABASE_URL', 'MEILI_URL', 'TEMPORAL_ADDRESS', 'MEILI_MASTER_KEY']) delete env[name];
  const stack = await startStack({
    profile: 'test',
    env,
    dataDir,
    ports,
    log,
    handleSignals: false,
    launchers: {
      postgres: keep('postgres', (ctx, config: Parameters<typeof startEmbeddedPostgres>[1]) =>
        startEmbeddedPostgres(ctx, { ...config, durable: true }),
      ),
      meilisearch: keep('meilisearch', startEmbeddedMeilisearch),
      temporal: keep('temporal', startTemporalDevServer),
    },
  });
  const entry = (name: ServiceName): Restartable => {
    const e = services[name];
    if (!e) throw new Error(`${name} was not started by the soak`);
    return e;
  };
  return {
    stack,
    async kill(name) {
      const procs = entry(name).current.processes;
      for (const p of procs) killGroup(p.pid);
      await Promise.all(procs.map((p) => p.exited));
    },
    async restart(name) {
      await entry(name).restart();
    },
    pids: () => Object.values(services).flatMap((s) => s!.current.processes.map((p) => p.pid)),
  };
}

export type Role = 'api' | 'worker';

/** One API or worker process slot: started, SIGKILLed and started again with the same env and port. */
export class AppSlot {
  proc: ManagedProcess | null = null;
  startedAt = 0;
  readonly logFile: string;

  constructor(
    readonly role: Role,
    readonly index: number,
    private readonly env: NodeJS.ProcessEnv,
    logDir: string,
    readonly port?: number,
  ) {
    this.logFile = path.join(logDir, `${role}${index}.log`);
  }

  get name(): string {
    return `${this.role}${this.index}`;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /**
   * Starts the process and waits until it is ready. The soak's ports lie in Linux's ephemeral range, so a busy
   * machine's outgoing connection may hold one for a moment: a start that dies on EADDRINUSE is tried again.
   */
  async start(timeoutMs = 120_000): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      const offset = existsSync(this.logFile) ? statSync(this.logFile).size : 0;
      try {
        return await this.startOnce(offset, timeoutMs);
      } catch (err) {
        if (attempt >= 5 || !readFrom(this.logFile, offset).includes('EADDRINUSE')) throw err;
        await delay(2000);
      }
    }
  }

  private async startOnce(offset: number, timeoutMs: number): Promise<void> {
    const script = path.join(repoRoot, 'bin', `${this.role}.ts`);
    this.proc = spawnManaged({
      name: this.name,
      command: process.execPath,
      args: ['--import', 'tsx', script],
      cwd: repoRoot,
      env: { ...this.env, ...(this.port ? { PORT: String(this.port) } : {}) },
      logFile: this.logFile,
      stopSignal: 'SIGTERM',
      signalGroup: true,
    });
    this.startedAt = Date.now();
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (this.proc.hasExited()) throw new Error(`${this.name} exited during start-up (see ${this.logFile})`);
      if (await this.ready(offset)) return;
      await delay(250);
    }
    throw new Error(`${this.name} not ready after ${timeoutMs / 1000} s (see ${this.logFile})`);
  }

  private async ready(offset: number): Promise<boolean> {
    if (this.role === 'api') {
      try {
        await fetch(`${this.url}/healthz`, { signal: AbortSignal.timeout(1000) });
        return true;
      } catch {
        return false;
      }
    }
    return readFrom(this.logFile, offset).includes('"worker running"');
  }

  kill(): Promise<unknown> {
    const p = this.proc;
    if (!p) return Promise.resolve();
    killGroup(p.pid);
    return p.exited;
  }

  async stop(): Promise<void> {
    await this.proc?.stop(15_000);
  }
}

function readFrom(file: string, offset: number): string {
  if (!existsSync(file)) return '';
  const size = statSync(file).size;
  if (size <= offset) return '';
  const fd = openSync(file, 'r');
  try {
    const buf = Buffer.alloc(size - offset);
    readSync(fd, buf, 0, buf.length, offset);
    return buf.toString('utf8');
  } finally {
    closeSync(fd);
  }
}

/** Resident set size of a process in MB (Linux /proc), or null when it is gone. */
export function rssMb(pid: number): number | null {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : null;
  } catch {
    return null;
  }
}

/** Waits until `check` holds or the time is up; returns whether it held. */
export async function waitUntil(
  check: () => boolean | Promise<boolean>,
  timeoutMs: number,
  stepMs = 500,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await delay(stepMs);
  }
  return check();
}
