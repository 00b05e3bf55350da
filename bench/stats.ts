// Figures and waits the benchmarks share.

/** Nearest-rank percentile (p in 1..100) of the samples; 0 without samples. */
export const percentile = (samples: number[], p: number): number => {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? 0;
};

/** The median; an even count gives the mean of the middle two. */
export const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * The two sides of a round, one after the other: `a` first in even rounds, `b` first in odd ones, so that neither
 * always runs on the machine the other has just warmed (or loaded). Resolves to both results.
 */
export async function alternating<A, B>(round: number, a: () => Promise<A>, b: () => Promise<B>): Promise<[A, B]> {
  if (round % 2 === 0) {
    const first = await a();
    return [first, await b()];
  }
  const first = await b();
  return [await a(), first];
}

/** `until(what, check)`: polls `check` every `everyMs` until it holds; fails after `timeoutMs`, naming `what`. */
export const poller =
  (timeoutMs: number, everyMs: number) =>
  async (what: string, check: () => boolean | Promise<boolean>): Promise<void> => {
    const deadline = Date.now() + timeoutMs;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await sleep(everyMs);
    }
  };

/**
 * Calls `fn(i)` for i < count, call i due at start + i × intervalMs (open loop: a slow call does not push the
 * schedule).
 */
export async function paced(count: number, intervalMs: number, fn: (i: number) => Promise<void>): Promise<void> {
  const t0 = Date.now();
  for (let i = 0; i < count; i++) {
    const wait = t0 + i * intervalMs - Date.now();
    if (wait > 0) await sleep(wait);
    await fn(i);
  }
}

/** A burst's throughput and latencies, from each run's start and end (ms). */
export interface Figures {
  perS: number;
  p50: number;
  p95: number;
  wallMs: number;
}

export function figures(starts: number[], ends: number[]): Figures {
  const first = Math.min(...starts);
  const last = Math.max(...ends);
  const latencies = ends.map((e, i) => e - starts[i]!);
  return {
    perS: starts.length / ((last - first) / 1000),
    p50: percentile(latencies, 50),
    p95: percentile(latencies, 95),
    wallMs: last - first,
  };
}

/** Paced runs: start → done and start → first action. */
export interface Latencies {
  p50: number;
  p95: number;
  firstActionP50: number;
  firstActionP95: number;
}
