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

/**
 * V8 sizes its heap for the largest burst it has seen and keeps it: after 2,000 enrollments the
 * worker held a 360 MB heap for 90 MB of live objects. A cap on the old generation makes V8 collect
 * instead of growing (`WORKER_MAX_HEAP_MB`, default below; `0` leaves V8's own limit). The live set
 * is bounded by the workflow cache and the activity slots, far below the cap.
 */
export const DEFAULT_WORKER_MAX_HEAP_MB = 256;

export function workerProcessEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = { ...WORKER_MALLOC_ENV, ...env };
  const raw = env.WORKER_MAX_HEAP_MB?.trim();
  const heapMb = raw ? Number(raw) : DEFAULT_WORKER_MAX_HEAP_MB;
  if (!Number.isInteger(heapMb) || heapMb < 0) {
    throw new Error(`WORKER_MAX_HEAP_MB must be a whole number of megabytes (0 = no cap), got ${raw}`);
  }
  const options = env.NODE_OPTIONS ?? '';
  if (heapMb > 0 && !/--max-old-space-size/.test(options)) {
    out.NODE_OPTIONS = `${options} --max-old-space-size=${heapMb}`.trim();
  }
  return out;
}
