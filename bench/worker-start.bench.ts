// `npm run bench:worker-start`: time from spawning the worker as `npm start` does (the precompiled
// entry, infra/worker-build.ts, with infra/worker-env.ts) to its "Temporal worker started" line (it
// polls), and the worker's CPU until then. Medians of BENCH_ROUNDS (5) starts with the workflow
// bundle cached (the code unchanged since the last start), plus BENCH_TSX_ROUNDS (3) starts of
// bin/worker.ts through tsx (as before the precompiled entry) and BENCH_COLD_ROUNDS (1) with an
// empty bundle cache (webpack at start), same process. Prints the worker's start-up marks (ms since
// its process started: modules loaded, ORM ready, Temporal connected, bundle found, polling).
//   RESULT worker_start_ms=… cached=true cpu_ms=… tsx_ms=… cold_ms=… build_ms=… load1=…
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../app/config';
import { runMigrations } from '../app/migrate';
import { newId } from '../platform/ids';
import { buildWorkerEntry, workerNodeArgs, type WorkerBuild } from '../infra/worker-build';
import { workerProcessEnv } from '../infra/worker-env';
import type { RunningStack } from '../infra/stack';
import { benchEnv, benchLog, cpuByGroup, runBench } from './bench-stack';

const rounds = (name: string, fallback: number): number => Math.max(0, Number(process.env[name] ?? fallback));
const ROUNDS = Math.max(1, rounds('BENCH_ROUNDS', 5));
const TSX_ROUNDS = rounds('BENCH_TSX_ROUNDS', 3);
const COLD_ROUNDS = rounds('BENCH_COLD_ROUNDS', 1);

interface Start {
  ms: number;
  cpuMs: number;
  marks: Record<string, number>;
}

function startOnce(env: NodeJS.ProcessEnv, build: WorkerBuild | null): Promise<Start> {
  const started = Date.now();
  const child = spawn(process.execPath, workerNodeArgs(build), {
    cwd: path.join(__dirname, '..'),
    env: workerProcessEnv({ ...env, LOG_LEVEL: 'info' }),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise<Start>((resolve, reject) => {
    let buf = '';
    let result: Start | null = null;
    child.stdout!.on('data', (chunk: Buffer) => {
      buf = (buf + chunk.toString('utf8')).slice(-20_000);
      if (result) return;
      const line = buf.split('\n').find((l) => l.includes('"Temporal worker started"'));
      if (!line) return;
      const ms = Date.now() - started;
      const cpuMs = cpuByGroup({ worker: child.pid! }).get('worker') ?? NaN;
      const marks = (JSON.parse(line) as { startup?: Record<string, number> }).startup ?? {};
      result = { ms, cpuMs, marks };
      child.kill('SIGTERM');
    });
    child.once('exit', (code) =>
      result ? resolve(result) : reject(new Error(`worker exited with ${code} before polling`)),
    );
  });
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function series(label: string, n: number, start: () => Promise<Start>): Promise<Start[]> {
  const out: Start[] = [];
  for (let i = 0; i < n; i++) {
    out.push(await start());
    const s = out.at(-1)!;
    benchLog(`${label} ${i + 1}: ${s.ms} ms (worker CPU ${s.cpuMs} ms) ${JSON.stringify(s.marks)}`);
  }
  return out;
}

function summary(label: string, starts: Start[]): string {
  if (!starts.length) return `${label}: not run`;
  const names = Object.keys(starts[0]!.marks);
  const marks = names.map((k) => `${k} ${median(starts.map((s) => s.marks[k] ?? NaN))}`).join(', ');
  return (
    `${label}: median ${median(starts.map((s) => s.ms))} ms to polling, worker CPU ${median(starts.map((s) => s.cpuMs))} ms` +
    ` (${starts.map((s) => s.ms).join(', ')} ms); marks (median ms since process start): ${marks}`
  );
}

async function run(stack: RunningStack | undefined): Promise<string[]> {
  const env: NodeJS.ProcessEnv = {
    ...benchEnv(stack),
    TEMPORAL_TASK_QUEUE: `bench-worker-start-${newId()}`,
  };
  delete env.TEMPORAL_WORKFLOW_BUNDLE;
  const config = loadConfig({ ...env, LOG_LEVEL: 'silent' });
  if (stack?.started.includes('postgres')) await runMigrations(config.databaseUrl);
  // As `npm start` does before spawning the worker (there overlapped with the services' start).
  const build = await buildWorkerEntry();
  benchLog(`worker precompiled in ${build.ms} ms: ${build.file}`);
  const cacheDir = mkdtempSync(path.join(os.tmpdir(), 'bench-bundles-'));
  const cachedEnv = { ...env, TEMPORAL_BUNDLE_CACHE_DIR: cacheDir };
  let cold: Start[] = [];
  let cached: Start[];
  let tsx: Start[];
  try {
    cold = await series('cold (empty bundle cache)', COLD_ROUNDS, async () => {
      const fresh = mkdtempSync(path.join(os.tmpdir(), 'bench-bundles-cold-'));
      try {
        return await startOnce({ ...env, TEMPORAL_BUNDLE_CACHE_DIR: fresh }, build);
      } finally {
        rmSync(fresh, { recursive: true, force: true });
      }
    });
    await startOnce(cachedEnv, build); // fills the cache
    cached = await series('cached', ROUNDS, () => startOnce(cachedEnv, build));
    tsx = await series('cached, through tsx', TSX_ROUNDS, () => startOnce(cachedEnv, null));
  } finally {
    rmSync(cacheDir, { recursive: true, force: true });
  }
  const load1 = os.loadavg()[0]!.toFixed(1);
  const value = (starts: Start[]): string => (starts.length ? String(median(starts.map((s) => s.ms))) : 'n/a');
  return [
    `load average ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')} on ${os.cpus().length} cores; worker precompile ${build.ms} ms`,
    summary('cached bundle, precompiled worker (npm start)', cached),
    summary('cached bundle, bin/worker.ts through tsx', tsx),
    summary('empty bundle cache (webpack in a child)', cold),
    `RESULT worker_start_ms=${value(cached)} cached=true cpu_ms=${median(cached.map((s) => s.cpuMs))} tsx_ms=${value(tsx)} cold_ms=${value(cold)} build_ms=${build.ms} load1=${load1}`,
  ];
}

runBench('worker-start', { postgres: 44111, meilisearch: 44211, temporal: 44311, temporalUi: 44411 }, run);
