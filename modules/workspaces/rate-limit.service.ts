import type { EntityManager } from '@mikro-orm/postgresql';

export interface RateLimitState {
  limitMinute: number;
  remainingMinute: number;
  limitDay: number;
  remainingDay: number;
  /** Seconds until the exhausted window resets; set only when the request is over a limit. */
  retryAfter?: number;
}

/** The minute and UTC-day windows a request at `now` counts in. */
export function rateWindows(now: Date): { minuteStart: Date; dayStart: Date } {
  return {
    minuteStart: new Date(Math.floor(now.getTime() / 60_000) * 60_000),
    dayStart: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate())),
  };
}

/** Remaining budget and, when over a limit, the seconds until the exhausted window resets. */
export function rateLimitState(
  counts: { minute: number; day: number },
  limits: { perMinute: number; perDay: number },
  now: Date,
): RateLimitState {
  const { minuteStart, dayStart } = rateWindows(now);
  const state: RateLimitState = {
    limitMinute: limits.perMinute,
    remainingMinute: Math.max(0, limits.perMinute - counts.minute),
    limitDay: limits.perDay,
    remainingDay: Math.max(0, limits.perDay - counts.day),
  };
  if (counts.day > limits.perDay) {
    state.retryAfter = Math.ceil((dayStart.getTime() + 86_400_000 - now.getTime()) / 1000);
  } else if (counts.minute > limits.perMinute) {
    state.retryAfter = Math.ceil((minuteStart.getTime() + 60_000 - now.getTime()) / 1000);
  }
  return state;
}

/**
 * Counts one request for the key in the current minute and UTC day, atomically in Postgres so
 * every API process shares the count. Requests over the limit are counted too. (API requests use
 * authenticateAndCount, which does this in the same statement as the key lookup.)
 */
export async function consumeRateLimit(
  em: EntityManager,
  keyId: string,
  limits: { perMinute: number; perDay: number },
  now = new Date(),
): Promise<RateLimitState> {
  const { minuteStart, dayStart } = rateWindows(now);
  const rows = await em.getConnection().execute<{ kind: string; count: number }[]>(
    `insert into rate_limit_window (key_id, kind, window_start, count) values (?, 'm', ?, 1), (?, 'd', ?, 1)
     on conflict (key_id, kind, window_start) do update set count = rate_limit_window.count + 1
     returning kind, count`,
    [keyId, minuteStart, keyId, dayStart],
  );
  const minute = rows.find((r) => r.kind.trim() === 'm')?.count ?? 0;
  const day = rows.find((r) => r.kind.trim() === 'd')?.count ?? 0;
  return rateLimitState({ minute, day }, limits, now);
}

/** Housekeeping for the worker: windows older than two days can never matter again. */
export async function pruneRateLimitWindows(em: EntityManager): Promise<number> {
  const res = await em
    .getConnection()
    .execute(`delete from rate_limit_window where window_start < now() - interval '2 days'`, [], 'run');
  return (res as { affectedRows?: number }).affectedRows ?? 0;
}
