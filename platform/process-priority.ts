import fs from 'node:fs';
import os from 'node:os';

/**
 * A CPU priority (nice value) from the environment, 0 to 19: WORKER_NICE (platform/config.ts) and TEMPORAL_NICE
 * (infra/stack.ts). A value outside is a configuration error, said at start-up, not silently clamped.
 */
export function niceEnv(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0 || value > 19)
    throw new Error(`${name} must be an integer from 0 to 19, got "${raw}"`);
  return value;
}

/**
 * Lowers this process's CPU priority to `nice` (0-19) on every thread it has: on Linux a priority is per
 * thread, and `os.setPriority(pid)` alone would reach only the main thread, not V8's, libuv's or the
 * Temporal bridge's threads already running. Threads started later inherit it from the thread that starts
 * them. Never raises a priority (that needs privileges) and never throws: a thread that exits meanwhile,
 * or a platform without /proc, just keeps its priority. Returns how many threads now run at `nice` or
 * lower (a thread already below it is counted and left as it is).
 */
export function lowerProcessPriority(nice: number): number {
  if (nice <= 0) return 0;
  let tids: number[];
  try {
    tids = fs.readdirSync('/proc/self/task').map(Number).filter(Number.isInteger);
  } catch {
    tids = [process.pid];
  }
  let lowered = 0;
  for (const tid of tids) {
    try {
      if (os.getPriority(tid) < nice) os.setPriority(tid, nice);
      lowered++;
    } catch {
      /* the thread ended, or the platform refuses: it keeps its priority */
    }
  }
  return lowered;
}
