// The outbox dispatcher's settings with their defaults, its subscriber list check and its pg pool
// (createOutboxDispatcher in dispatcher.ts).
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { Pool } from 'pg';
import type { Logger } from '../logger';
import { scheduleBackoff, STANDARD_RETRY_SCHEDULE_MS } from './backoff';
import type { OutboxDispatcherOptions } from './dispatcher.types';
import type { Subscriber } from './subscriber';

export function dispatcherSettings(opts: OutboxDispatcherOptions) {
  return {
    batchSize: opts.batchSize ?? 100,
    concurrency: Math.max(1, opts.concurrency ?? 8),
    parallelBatches: Math.max(1, opts.parallelBatches ?? 1),
    pollIntervalMs: opts.pollIntervalMs ?? 2000,
    slowBatchMs: opts.slowBatchMs ?? 50,
    claimIntervalMs: Math.max(0, opts.claimIntervalMs ?? 100),
    leaseMs: opts.leaseMs ?? 30_000,
    backoff: opts.backoff ?? scheduleBackoff(STANDARD_RETRY_SCHEDULE_MS, 0.2),
    maxAttempts: opts.maxAttempts ?? (opts.backoff ? undefined : STANDARD_RETRY_SCHEDULE_MS.length + 1),
    id: (opts.dispatcherId ?? `${hostname().slice(0, 60)}:${process.pid}:${randomBytes(3).toString('hex')}`).slice(
      0,
      100,
    ),
    workspaceFilter: opts.workspaceIds ? [...opts.workspaceIds] : null,
  };
}

/** The subscribers, once each name is checked unique and each has a handler. */
export function checkedSubscribers(list: readonly Subscriber[]): Subscriber[] {
  const names = new Set<string>();
  for (const s of list) {
    if (!s.name || names.has(s.name))
      throw new Error(`outbox subscriber names must be unique and non-empty: "${s.name}"`);
    names.add(s.name);
    if (!s.handle && !s.handleBatch) throw new Error(`outbox subscriber "${s.name}" needs handle or handleBatch`);
  }
  return [...list];
}

export function dispatcherPool(connectionString: string, concurrency: number, log: Logger): Pool {
  const pool = new Pool({
    connectionString,
    max: Math.min(concurrency, 4) + 1,
    application_name: 'crm-outbox-dispatcher',
    keepAlive: true,
    // The fair claim's estimate (a lateral per workspace, the batch size a parameter) can pass jit_above_cost:
    // compiling it would cost more (tens of ms) than running it (~1 ms).
    options: '-c jit=off',
  });
  pool.on('error', (err) => log.warn({ err: err.message }, 'outbox pool connection error'));
  return pool;
}
