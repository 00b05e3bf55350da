// `npm run bench:worker-start`: time from spawning bin/worker.ts (as `npm start` does) to its
// "Temporal worker started" line (the worker polls), with the workflow bundle built at start
// (an empty bundle cache: what every start did before the cache) and with the cached bundle
// (the code unchanged since the last start). Median of BENCH_ROUNDS rounds each, same process.
//   RESULT worker_start_cold_ms=… worker_start_cached_ms=… speedup=…
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../domain/config';
import { runMigrations } from '../domain/orm/migrate';
import { newId } from '../domain/ids';
import { workerProcessEnv } from '../infra/worker-env';
import type { RunningStack } from '../infra/stack';
import { benchLog, runBench } from './bench-stack';

const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));

function startOnce(env: NodeJS.ProcessEnv): Promise<number> {
  const started = Date.now();
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, '../bin/worker.ts')], {
    env: workerProcessEnv({ ...env, LOG_LEVEL: 'info' }),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise<number>((resolve, reject) => {
    let buf = '';
    let polledAfter: number | null = null;
    child.stdout!.on('data', (chunk: Buffer) => {
      buf = (buf + chunk.toString('utf8')).slice(-20_000);
      if (polledAfter === null && buf.includes('"Temporal worker started"')) {
        polledAfter = Date.now() - started;
        if (process.env.BENCH_VERBOSE)
          for (const line of buf.split('\n').filter(Boolean)) {
            const m = /"time":(\d+).*"msg":"([^"]*)"/.exec(line);
            if (m) benchLog(`  +${Number(m[1]) - started} ms ${m[2]}`);
          }
        child.kill('SIGTERM');
      }
    });
    child.once('exit', (code) =>
      polledAfter !== null ? resolve(polledAfter) : reject(new Error(`worker exited with ${code} before polling`)),
    );
  });
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function run(stack: RunningStack | undefined): Promise<string[]> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...(stack ? Object.fromEntries(Object.entries(stack.env).filter(([, v]) => v)) : {}),
    TEMPORAL_TASK_QUEUE: `bench-worker-start-${newId()}`,
  };
  delete env.TEMPORAL_WORKFLOW_BUNDLE;
  const config = loadConfig({ ...env, LOG_LEVEL: 'silent' });
  if (stack?.started.includes('postgres')) await runMigrations(config.databaseUrl);
  const cold: number[] = [];
  const cached: number[] = [];
  const cacheDir = mkdtempSync(path.join(os.tmpdir(), 'bench-bundles-'));
  try {
    for (let i = 0; i < ROUNDS; i++) {
      const fresh = mkdtempSync(path.join(os.tmpdir(), 'bench-bundles-cold-'));
      try {
        cold.push(await startOnce({ ...env, TEMPORAL_BUNDLE_CACHE_DIR: fresh }));
      } finally {
        rmSync(fresh, { recursive: true, force: true });
      }
      benchLog(`cold start ${i + 1}: ${cold.at(-1)} ms`);
    }
    await startOnce({ ...env, TEMPORAL_BUNDLE_CACHE_DIR: cacheDir }); // fills the cache
    for (let i = 0; i < ROUNDS; i++) {
      cached.push(await startOnce({ ...env, TEMPORAL_BUNDLE_CACHE_DIR: cacheDir }));
      benchLog(`cached start ${i + 1}: ${cached.at(-1)} ms`);
    }
  } finally {
    rmSync(cacheDir, { recursive: true, force: true });
  }
  const c = median(cold);
  const h = median(cached);
  return [
    `cold: ${cold.join(', ')} ms; cached: ${cached.join(', ')} ms`,
    `RESULT worker_start_cold_ms=${c} worker_start_cached_ms=${h} speedup=${(c / h).toFixed(1)}`,
  ];
}

runBench('worker-start', { postgres: 44111, meilisearch: 44211, temporal: 44311, temporalUi: 44411 }, run);
