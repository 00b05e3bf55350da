/**
 * Environment the worker process is started with (bin/start.ts, docker-compose.yml, the sequence
 * bench). glibc keeps memory the Temporal core (Rust) frees per workflow task in its heaps instead
 * of returning it: with 2,000 parked enrollments that is 100+ MB of RSS that no cache size explains.
 * Lower trim and mmap thresholds hand it back (README "Worker memory"). Values already in the
 * environment win. glibc reads these once at process start, so they cannot be set from inside.
 */
export const WORKER_MALLOC_ENV: Readonly<Record<string, string>> = {
  MALLOC_TRIM_THRESHOLD_: '65536',
  MALLOC_MMAP_THRESHOLD_: '65536',
};

export function workerProcessEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return { ...WORKER_MALLOC_ENV, ...env };
}
