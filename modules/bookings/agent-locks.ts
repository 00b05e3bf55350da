/**
 * The agents' locks and the hold checks of create, approve and reschedule: prepared statements on the pg pool (or the
 * transaction's connection) without the ORM. availability.ts shares `statement` and `run`.
 */
import { createHash } from 'node:crypto';
import { leanQuery, type LeanSource } from '../../platform/orm/lean';
import { HOLDING_STATUSES } from './booking.entity';
import { localRange, type Interval } from './slots';

export const HOLDING_SQL = HOLDING_STATUSES.map((s) => `'${s}'`).join(', ');

/**
 * A statement of bookings, prepared per connection under `name` (parsed and planned once), its `?` placeholders
 * numbered for leanQuery: the pool's connection outside a transaction, the transaction's inside one.
 */
export function statement(name: string, sql: string): { name: string; text: string } {
  let n = 0;
  return { name: `booking_${name}`, text: sql.replace(/\?/g, () => `$${++n}`) };
}
export const run = <R>(source: LeanSource, s: { name: string; text: string }, values: unknown[]): Promise<R[]> =>
  leanQuery<R>(source, s.text, values, s.name);

/** Postgres exclusion_violation of the booking hold constraint. */
export function isHoldConflict(err: unknown): boolean {
  const e = err as { code?: string; constraint?: string; message?: string } | null;
  return !!e && (e.code === '23P01' || /booking_agent_hold_excl/.test(e.message ?? ''));
}

/** The advisory lock key of one agent's holds (64 bits of a hash: ordered and compared as numbers). */
export function agentLockKey(workspaceId: string, agentId: string): bigint {
  return createHash('sha256').update(`booking-agent:${workspaceId}:${agentId}`).digest().readBigInt64BE(0);
}

const LOCK = statement('lock', `select pg_advisory_xact_lock(?::bigint)`);
const TRY_LOCK = statement('try_lock', `select pg_try_advisory_xact_lock(?::bigint) as got`);
const WAIT = statement('wait', `select pg_advisory_xact_lock_shared(?::bigint)`);
const HOLD_TAKEN = statement(
  'hold_taken',
  `select exists(select 1 from booking where workspace_id = ? and agent_id = ? and status in (${HOLDING_SQL}) and tstzrange(hold_start, hold_end, '[)') && tstzrange(?, ?, '[)')) as taken`,
);
const DAY_COUNT = statement(
  'day_count',
  `select count(*)::int as n from booking where workspace_id = ? and agent_id = ? and status in (${HOLDING_SQL}) and start_date_time >= ? and start_date_time < ? and id is distinct from ?`,
);

/**
 * Makes every write of the holds of `agentIds` (insert, approve, reschedule, cancel) take turns until commit:
 * transaction-scoped advisory locks, always taken before any booking row and in one order (by key). Without them two
 * concurrent writes of overlapping holds wait on each other's uncommitted row in the exclusion constraint check and
 * deadlock (more often under load); with them, the second meets the first's committed hold as a plain conflict (409).
 * Runs in the caller's transaction (`source`: its entity manager).
 */
export async function lockAgents(source: LeanSource, workspaceId: string, agentIds: readonly string[]): Promise<void> {
  const keys = [...new Set(agentIds.map((id) => agentLockKey(workspaceId, id)))].sort((x, y) =>
    x < y ? -1 : x > y ? 1 : 0,
  );
  for (const key of keys) await run(source, LOCK, [key.toString()]);
}

/** lockAgents for one agent without waiting: false when another transaction writes that agent's holds now. */
export async function tryLockAgent(source: LeanSource, workspaceId: string, agentId: string): Promise<boolean> {
  const rows = await run<{ got: boolean }>(source, TRY_LOCK, [agentLockKey(workspaceId, agentId).toString()]);
  return rows[0]?.got === true;
}

/**
 * Whether no transaction writes the agent's holds now: a probe outside any transaction (the lock, when free, is taken
 * and let go within the one statement), so a busy agent costs one statement on the pool, not a transaction.
 */
export const agentIdle = tryLockAgent;

/**
 * Returns once the transaction that writes the agent's holds now has ended (a shared lock, taken and let go in one
 * statement outside any transaction): every request that waits so wakes at once, not one after the other.
 */
export async function waitForAgent(source: LeanSource, workspaceId: string, agentId: string): Promise<void> {
  await run(source, WAIT, [agentLockKey(workspaceId, agentId).toString()]);
}

/** Whether a holding booking of the agent overlaps `hold` (what the exclusion constraint would refuse). */
export async function holdTaken(
  source: LeanSource,
  workspaceId: string,
  agentId: string,
  hold: Interval,
): Promise<boolean> {
  const rows = await run<{ taken: boolean }>(source, HOLD_TAKEN, [
    workspaceId,
    agentId,
    new Date(hold.start),
    new Date(hold.end),
  ]);
  return rows[0]?.taken === true;
}

/** Counts the agent's holding bookings of a local day; exact under concurrency when called under lockAgents. */
export async function dayCount(
  source: LeanSource,
  workspaceId: string,
  agentId: string,
  zone: string,
  localDate: string,
  excludeBookingId?: string,
): Promise<number> {
  const r = localRange(localDate, localDate, zone);
  const rows = await run<{ n: number }>(source, DAY_COUNT, [
    workspaceId,
    agentId,
    new Date(r.start),
    new Date(r.end),
    excludeBookingId ?? null,
  ]);
  return rows[0]?.n ?? 0;
}
