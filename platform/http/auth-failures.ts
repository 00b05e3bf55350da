/**
 * Failed authentications per client address (ctx.ip, which honours TRUST_PROXY), counted in
 * memory per API process in fixed one-minute windows. An address over the limit gets 429 for every
 * request that presents a key until its window ends, before any database lookup: guessing keys
 * costs a lookup each, so they must not be free. With N API processes an address gets at most N×
 * the limit (a per-process count is enough to make guessing useless and costs nothing per request).
 */
const WINDOW_MS = 60_000;
/** Bound on tracked addresses; expired windows are swept when it is reached. */
const MAX_TRACKED = 50_000;

export interface AuthFailureLimiter {
  /** Seconds until the address may try again, or undefined when it is under the limit. */
  blockedFor(address: string, now?: number): number | undefined;
  recordFailure(address: string, now?: number): void;
}

export function createAuthFailureLimiter(limitPerMinute: number): AuthFailureLimiter {
  const windows = new Map<string, { start: number; failures: number }>();
  const current = (address: string, now: number) => {
    const w = windows.get(address);
    return w && now - w.start < WINDOW_MS ? w : undefined;
  };
  return {
    blockedFor(address, now = Date.now()) {
      if (limitPerMinute <= 0) return undefined;
      const w = current(address, now);
      if (!w || w.failures < limitPerMinute) return undefined;
      return Math.max(1, Math.ceil((w.start + WINDOW_MS - now) / 1000));
    },
    recordFailure(address, now = Date.now()) {
      if (limitPerMinute <= 0) return;
      const w = current(address, now);
      if (w) {
        w.failures += 1;
        return;
      }
      if (windows.size >= MAX_TRACKED) {
        for (const [addr, old] of windows) if (now - old.start >= WINDOW_MS) windows.delete(addr);
        // Still full of live windows (a wide attack): forget the oldest rather than grow unbounded.
        if (windows.size >= MAX_TRACKED) windows.delete(windows.keys().next().value as string);
      }
      windows.set(address, { start: now, failures: 1 });
    },
  };
}
