/** Webhook settings from the environment (read once by domain/config.ts; listed in the README). */
import { STANDARD_RETRY_SCHEDULE_MS } from '../../platform/outbox/backoff';

export interface WebhookEnv {
  /** Delays before the 2nd, 3rd, … attempt (WEBHOOK_RETRY_SCHEDULE); default the Standard Webhooks schedule. */
  retryScheduleMs: number[];
  /** Share of each delay added or removed at random (0.1 = ±10%). */
  retryJitter: number;
  /** Subscriptions are disabled after this many deliveries in a row failed every attempt (WEBHOOK_DISABLE_AFTER). */
  disableAfterFailedDeliveries: number;
  /** First attempts in flight at once per worker process (WEBHOOK_CONCURRENCY). */
  concurrency: number;
  /** Per-attempt timeout (the guarded client's 10 s unless WEBHOOK_TIMEOUT_MS is lower). */
  timeoutMs: number;
  /**
   * SECRETS_ENCRYPTION_KEY: AES-256-GCM key for subscription secrets at rest; falls back to CRM_SECRETS_KEY (generated
   * by npm start/test); neither set = stored as plain text.
   */
  encryptionKey?: string;
}

/** The outbox's retry schedule (Standard Webhooks) is webhooks' default too. */
export { STANDARD_RETRY_SCHEDULE_MS };

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** `5s,5m,30m,2h` (units ms, s, m, h; a bare number is milliseconds) → milliseconds. */
export function parseSchedule(raw: string): number[] {
  const parts = raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (!parts.length || parts.length > 20) throw new Error(`WEBHOOK_RETRY_SCHEDULE must list 1–20 delays, got "${raw}"`);
  return parts.map((part) => {
    const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(part);
    if (!m) throw new Error(`WEBHOOK_RETRY_SCHEDULE: cannot read "${part}" (use e.g. 5s, 5m, 2h)`);
    return Math.round(Number(m[1]) * UNITS[m[2] ?? 'ms']!);
  });
}

function positiveInt(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a positive integer, got "${raw}"`);
  return n;
}

export function webhookEnv(env: NodeJS.ProcessEnv): WebhookEnv {
  const jitterRaw = env.WEBHOOK_RETRY_JITTER?.trim();
  const jitter = jitterRaw ? Number(jitterRaw) : 0.1;
  if (!(jitter >= 0 && jitter < 1)) throw new Error(`WEBHOOK_RETRY_JITTER must be in [0, 1), got "${jitterRaw}"`);
  return {
    retryScheduleMs: env.WEBHOOK_RETRY_SCHEDULE?.trim()
      ? parseSchedule(env.WEBHOOK_RETRY_SCHEDULE)
      : STANDARD_RETRY_SCHEDULE_MS,
    retryJitter: jitter,
    disableAfterFailedDeliveries: positiveInt(env, 'WEBHOOK_DISABLE_AFTER', 5),
    concurrency: positiveInt(env, 'WEBHOOK_CONCURRENCY', 32),
    timeoutMs: Math.min(10_000, positiveInt(env, 'WEBHOOK_TIMEOUT_MS', 10_000)),
    encryptionKey: env.SECRETS_ENCRYPTION_KEY?.trim() || env.CRM_SECRETS_KEY?.trim() || undefined,
  };
}

// This module's section of AppConfig (platform/config.ts), loaded by its `settings` (webhooks.module.ts).
declare module '../../platform/config' {
  interface ModuleSettings {
    /** Outbound webhooks (WEBHOOK_*, SECRETS_ENCRYPTION_KEY). */
    webhooks: WebhookEnv;
  }
}
