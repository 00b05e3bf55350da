/**
 * Back-pressure of the durable intake, per workspace: at `cap` queued starts (runs or enrollments
 * whose workflow has not started yet) a new start is refused with 429 and Retry-After, never left to
 * time out. The count is read at most every COUNT_TTL_MS per process and kind (bounded by `limit cap`)
 * and advanced locally in between, so the check costs no statement per request. A call of n starts
 * is admitted while fewer than `cap` wait (so one call may overshoot the cap by at most n - 1).
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import { DomainError } from '../errors';

export const DEFAULT_MAX_QUEUED = 10_000;
/** How long one API process trusts its count of a workspace's queued starts (plus what it queued since). */
const COUNT_TTL_MS = 250;
const RETRY_AFTER_S = 2;

interface QueuedCount {
  n: number;
  at: number;
  pending?: Promise<number>;
}

export interface QueuedKind {
  /** Table of the queued rows (a constant of the caller, never input). */
  table: string;
  /** SQL condition of a queued row (a constant of the caller, never input). */
  queued: string;
  /** What waits, for the message: "runs", "enrollments". */
  what: string;
}

export interface Admission {
  /** Admits `n` starts (default 1) or throws 429 `rate_limited` with Retry-After. */
  admit(orm: MikroORM, workspaceId: string, cap: number | undefined, n?: number): Promise<void>;
  /** Gives back admitted starts that recorded nothing (a refusal decided after admit). */
  release(workspaceId: string, n?: number): void;
}

export function queuedAdmission(kind: QueuedKind): Admission {
  const counts = new Map<string, QueuedCount>();
  const sql = `select count(*)::int as n from (select 1 from ${kind.table} where workspace_id = ? and ${kind.queued} limit ?) t`;
  const admit: Admission['admit'] = async (orm, workspaceId, maxQueued, n = 1) => {
    const cap = maxQueued ?? DEFAULT_MAX_QUEUED;
    let c = counts.get(workspaceId);
    if (!c || Date.now() - c.at > COUNT_TTL_MS) {
      const entry: QueuedCount = c ?? { n: 0, at: 0 };
      entry.pending ??= orm.em
        .getConnection()
        .execute<{ n: number }[]>(sql, [workspaceId, cap])
        .then((rows) => rows[0]?.n ?? 0)
        .finally(() => {
          entry.pending = undefined;
        });
      const p = entry.pending;
      counts.set(workspaceId, entry);
      const read = await p;
      if (entry.at < Date.now() - COUNT_TTL_MS) {
        entry.n = read;
        entry.at = Date.now();
      }
      c = entry;
    }
    if (c.n >= cap)
      throw new DomainError(
        'rate_limited',
        `too many ${kind.what} of this workspace are waiting to start (${cap}); retry later`,
        { queued: c.n, cap },
        { 'Retry-After': String(RETRY_AFTER_S) },
      );
    c.n += n;
  };
  return {
    admit,
    release(workspaceId, n = 1) {
      const c = counts.get(workspaceId);
      if (c) c.n = Math.max(0, c.n - n);
    },
  };
}
