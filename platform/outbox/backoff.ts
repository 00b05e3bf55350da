export type Backoff = (attempts: number) => number;

export interface ExponentialBackoffOptions {
  initialMs?: number;
  maxMs?: number;
  /** Fraction of the delay added at random (0..1) so retries of many events spread out. */
  jitter?: number;
}

/** Delay before the next attempt after `attempts` failed ones: initial · 2^(attempts-1), capped. */
export function exponentialBackoff({
  initialMs = 1000,
  maxMs = 5 * 60_000,
  jitter = 0,
}: ExponentialBackoffOptions = {}): Backoff {
  return (attempts) => {
    const exponent = Math.min(Math.max(attempts, 1) - 1, 30);
    const base = Math.min(maxMs, initialMs * 2 ** exponent);
    return Math.round(Math.min(maxMs, base + base * jitter * Math.random()));
  };
}

/**
 * Delay after `attempts` failed attempts taken from a fixed schedule (the n-th entry after the n-th
 * failure, the last one repeating), with up to `jitter` of it added at random.
 */
export function scheduleBackoff(scheduleMs: readonly number[], jitter = 0): Backoff {
  if (!scheduleMs.length) throw new Error('a retry schedule needs at least one delay');
  return (attempts) => {
    const base = scheduleMs[Math.min(Math.max(attempts, 1), scheduleMs.length) - 1]!;
    return Math.round(base + base * jitter * Math.random());
  };
}

/** 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h: https://www.standardwebhooks.com (retry schedule); the outbox's default. */
export const STANDARD_RETRY_SCHEDULE_MS = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000];
