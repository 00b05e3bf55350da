/**
 * The I/O half of slot computation: loads the agents' holds, booking counts per local day and
 * calendar events for a range (two indexed queries, scoped by workspace), then hands them to the
 * pure functions of slots.ts. Also the slot checks of create and reschedule.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { createHash } from 'node:crypto';
import { DomainError, validation } from '../../domain/errors';
import { HOLDING_STATUSES, type BookingConfig, type MeetingType } from './booking.entity';
import { MAX_SLOT_RANGE_DAYS } from './bookings.schemas';
import {
  computeSlots,
  daysBetween,
  localClock,
  localDateOf,
  localRange,
  type AgentLoad,
  type Interval,
  type Slot,
  type SlotRules,
} from './slots';

const DAY_MS = 86_400_000;
const HOLDING_SQL = HOLDING_STATUSES.map((s) => `'${s}'`).join(', ');

export function meetingTypeOf(config: BookingConfig, meetingTypeId: string | undefined | null): MeetingType {
  if (meetingTypeId === undefined || meetingTypeId === null) {
    const first = config.meetingTypes[0];
    if (!first) throw new DomainError('invalid_state', 'the booking config has no meeting types');
    return first;
  }
  const found = config.meetingTypes.find((m) => m.id === meetingTypeId);
  if (!found)
    throw validation(
      `meetingTypeId: the config has no meeting type "${meetingTypeId}" (${config.meetingTypes.map((m) => m.id).join(', ')})`,
      [{ path: 'meetingTypeId', error: 'unknown meeting type' }],
    );
  return found;
}

export function rulesOf(config: BookingConfig, meetingType: MeetingType): SlotRules {
  return {
    timeZone: config.timeZone,
    durationMinutes: meetingType.durationMinutes,
    slotIntervalMinutes: config.slotIntervalMinutes,
    bufferBeforeMinutes: config.bufferBeforeMinutes,
    bufferAfterMinutes: config.bufferAfterMinutes,
    minimumNoticeMinutes: config.minimumNoticeMinutes,
    maxPerDay: config.maxPerDay ?? null,
  };
}

/**
 * Holds and calendar events of the agents overlapping `range`, and their holding bookings per
 * local day. Holds of every config count (an agent is one person); `excludeBookingId` leaves out
 * the booking being rescheduled.
 */
export async function loadAgentLoads(
  em: EntityManager,
  workspaceId: string,
  zone: string,
  agentIds: readonly string[],
  range: Interval,
  excludeBookingId?: string,
): Promise<Map<string, AgentLoad>> {
  const loads = new Map<string, { holds: Interval[]; events: Interval[]; perDay: Map<string, number> }>(
    agentIds.map((id) => [id, { holds: [], events: [], perDay: new Map() }]),
  );
  if (!agentIds.length) return loads;
  const marks = agentIds.map(() => '?').join(', ');
  const from = new Date(range.start);
  const to = new Date(range.end);
  const bookings = await em.execute<{ agent_id: string; hold_start: Date; hold_end: Date; start_date_time: Date }[]>(
    `select agent_id, hold_start, hold_end, start_date_time from booking
      where workspace_id = ? and agent_id in (${marks}) and status in (${HOLDING_SQL}) and tstzrange(hold_start, hold_end, '[)') && tstzrange(?, ?, '[)')${excludeBookingId ? ' and id <> ?' : ''}`,
    [workspaceId, ...agentIds, from, to, ...(excludeBookingId ? [excludeBookingId] : [])],
  );
  const clock = localClock(zone);
  for (const b of bookings) {
    const load = loads.get(b.agent_id)!;
    load.holds.push({ start: new Date(b.hold_start).getTime(), end: new Date(b.hold_end).getTime() });
    const day = clock.date(new Date(b.start_date_time).getTime());
    load.perDay.set(day, (load.perDay.get(day) ?? 0) + 1);
  }
  // Zero-length events block nothing; an all-day event without an end blocks 24 hours from its start.
  const events = await em.execute<{ owner_id: string; start: Date; end: Date; all_day: boolean }[]>(
    `select owner_id, start, "end", all_day from calendar_event e where workspace_id = ? and owner_id in (${marks}) and start < ? and greatest("end", start + case when all_day then interval '1 day' else interval '0' end) > ?${
      excludeBookingId
        ? ' and not exists (select 1 from booking b where b.id = ? and b.workspace_id = e.workspace_id and b.calendar_event_id = e.id)'
        : ''
    }`,
    [workspaceId, ...agentIds, to, from, ...(excludeBookingId ? [excludeBookingId] : [])],
  );
  for (const e of events) {
    const start = new Date(e.start).getTime();
    const end = new Date(e.end).getTime();
    loads.get(e.owner_id)!.events.push({ start, end: e.all_day ? Math.max(end, start + DAY_MS) : end });
  }
  return loads;
}

/** The range whose holds can touch a slot of these local dates: the dates plus the buffers around them. */
function loadRange(config: BookingConfig, startDate: string, endDate: string): Interval {
  const r = localRange(startDate, endDate, config.timeZone);
  return {
    start: r.start - config.bufferBeforeMinutes * 60_000 - DAY_MS,
    end: r.end + (config.bufferAfterMinutes + 24 * 60) * 60_000,
  };
}

export interface SlotsRequest {
  startDate: string;
  endDate: string;
  meetingTypeId?: string | null;
  agentId?: string;
  excludeBookingId?: string;
}

export function assertRange(startDate: string, endDate: string): void {
  const days = daysBetween(startDate, endDate);
  if (days < 0)
    throw validation('endDate: must not be before startDate', [{ path: 'endDate', error: 'before startDate' }]);
  if (days + 1 > MAX_SLOT_RANGE_DAYS)
    throw validation(`endDate: the range may span at most ${MAX_SLOT_RANGE_DAYS} days`, [
      { path: 'endDate', error: `more than ${MAX_SLOT_RANGE_DAYS} days` },
    ]);
}

export async function availableSlots(
  em: EntityManager,
  workspaceId: string,
  config: BookingConfig,
  req: SlotsRequest,
  now = new Date(),
): Promise<{ meetingType: MeetingType; slots: Slot[] }> {
  assertRange(req.startDate, req.endDate);
  const meetingType = meetingTypeOf(config, req.meetingTypeId);
  const agents = req.agentId ? config.agents.filter((a) => a.userId === req.agentId) : config.agents;
  if (req.agentId && !agents.length)
    throw validation('agentId: not an agent of this booking config', [
      { path: 'agentId', error: 'not an agent of the config' },
    ]);
  const loads = await loadAgentLoads(
    em,
    workspaceId,
    config.timeZone,
    agents.map((a) => a.userId),
    loadRange(config, req.startDate, req.endDate),
    req.excludeBookingId,
  );
  const slots = computeSlots({
    rules: rulesOf(config, meetingType),
    agents,
    loads,
    startDate: req.startDate,
    endDate: req.endDate,
    now,
  });
  return { meetingType, slots };
}

/**
 * Checks a requested start: 400 when it is no slot of the config at all (outside availability,
 * off the slot grid, too soon), 409 when it is one but taken. Returns the free agents, best first.
 */
export async function freeAgentsFor(
  em: EntityManager,
  workspaceId: string,
  config: BookingConfig,
  meetingType: MeetingType,
  start: Date,
  opts: { agentIds?: string[]; excludeBookingId?: string; field: string },
  now = new Date(),
): Promise<{ agentIds: string[]; perDay: (agentId: string) => number; localDate: string }> {
  const localDate = localDateOf(start, config.timeZone);
  const rules = rulesOf(config, meetingType);
  const agents = opts.agentIds ? config.agents.filter((a) => opts.agentIds!.includes(a.userId)) : config.agents;
  const iso = start.toISOString();
  const loads = await loadAgentLoads(
    em,
    workspaceId,
    config.timeZone,
    agents.map((a) => a.userId),
    loadRange(config, localDate, localDate),
    opts.excludeBookingId,
  );
  const slot = computeSlots({
    rules,
    agents,
    loads,
    startDate: localDate,
    endDate: localDate,
    now,
    onlyStart: start.getTime(),
  }).find((s) => s.start === iso);
  if (!slot) {
    // Not free: 400 when it is no slot of the config at all (the grid without any booking), else taken (409).
    const onGrid = computeSlots({
      rules,
      agents,
      loads: new Map(),
      startDate: localDate,
      endDate: localDate,
      now,
      onlyStart: start.getTime(),
    }).some((s) => s.start === iso);
    if (!onGrid) {
      throw validation(
        `${opts.field}: ${iso} is not a bookable slot start of this config (outside the agents' availability, off the ${config.slotIntervalMinutes}-minute grid, or within the minimum notice of ${config.minimumNoticeMinutes} minutes)`,
        [{ path: opts.field, error: 'not a slot start' }],
      );
    }
    throw slotTaken();
  }
  return { agentIds: slot.agentIds, perDay: (id) => loads.get(id)?.perDay.get(localDate) ?? 0, localDate };
}

export const slotTaken = (): DomainError =>
  new DomainError('conflict', 'the slot is no longer available (another booking holds it); pick another slot', {
    code: 'slot_unavailable',
  });

/**
 * Postgres deadlock_detected. Concurrent inserts of conflicting rows under an exclusion constraint
 * can deadlock in the constraint check (each waits for the other's uncommitted row); Postgres then
 * rolls one transaction back, and running it again meets the survivor's row as a plain conflict.
 */
export function isDeadlock(err: unknown): boolean {
  const e = err as { code?: string; message?: string } | null;
  return !!e && (e.code === '40P01' || /deadlock detected/i.test(e.message ?? ''));
}

/** Runs `attempt` again (up to `tries` times in all) when its transaction was a deadlock victim. */
export async function retryOnDeadlock<T>(attempt: () => Promise<T>, beforeRetry: () => void, tries = 3): Promise<T> {
  for (let n = 1; ; n++) {
    try {
      return await attempt();
    } catch (err) {
      if (!isDeadlock(err) || n >= tries) throw err;
      beforeRetry();
    }
  }
}

/** Postgres exclusion_violation of the booking hold constraint. */
export function isHoldConflict(err: unknown): boolean {
  const e = err as { code?: string; constraint?: string; message?: string } | null;
  return !!e && (e.code === '23P01' || /booking_agent_hold_excl/.test(e.message ?? ''));
}

/** The advisory lock key of one agent's holds (64 bits of a hash: ordered and compared as numbers). */
export function agentLockKey(workspaceId: string, agentId: string): bigint {
  return createHash('sha256').update(`booking-agent:${workspaceId}:${agentId}`).digest().readBigInt64BE(0);
}

/**
 * Makes every write of the holds of `agentIds` (insert, approve, reschedule, cancel) take turns until commit:
 * transaction-scoped advisory locks, always taken before any booking row and in one order (by key). Without them two
 * concurrent writes of overlapping holds wait on each other's uncommitted row in the exclusion constraint check and
 * deadlock (more often under load); with them, the second meets the first's committed hold as a plain conflict (409).
 */
export async function lockAgents(em: EntityManager, workspaceId: string, agentIds: readonly string[]): Promise<void> {
  const keys = [...new Set(agentIds.map((id) => agentLockKey(workspaceId, id)))].sort((x, y) =>
    x < y ? -1 : x > y ? 1 : 0,
  );
  for (const key of keys) await em.execute(`select pg_advisory_xact_lock(?::bigint)`, [key.toString()]);
}

/** lockAgents for one agent without waiting: false when another transaction writes that agent's holds now. */
export async function tryLockAgent(em: EntityManager, workspaceId: string, agentId: string): Promise<boolean> {
  const rows = await em.execute<{ got: boolean }[]>(`select pg_try_advisory_xact_lock(?::bigint) as got`, [
    agentLockKey(workspaceId, agentId).toString(),
  ]);
  return rows[0]?.got === true;
}

/**
 * Whether no transaction writes the agent's holds now: a probe outside any transaction (the lock, when free, is taken
 * and let go within the one statement), so a busy agent costs one round trip, not a transaction.
 */
export const agentIdle = tryLockAgent;

/**
 * Returns once the transaction that writes the agent's holds now has ended (a shared lock, taken and let go in one
 * statement outside any transaction): every request that waits so wakes at once, not one after the other.
 */
export async function waitForAgent(em: EntityManager, workspaceId: string, agentId: string): Promise<void> {
  await em.execute(`select pg_advisory_xact_lock_shared(?::bigint)`, [agentLockKey(workspaceId, agentId).toString()]);
}

/** Whether a holding booking of the agent overlaps `hold` (what the exclusion constraint would refuse). */
export async function holdTaken(
  em: EntityManager,
  workspaceId: string,
  agentId: string,
  hold: Interval,
): Promise<boolean> {
  const rows = await em.execute<{ taken: boolean }[]>(
    `select exists(select 1 from booking where workspace_id = ? and agent_id = ? and status in (${HOLDING_SQL}) and tstzrange(hold_start, hold_end, '[)') && tstzrange(?, ?, '[)')) as taken`,
    [workspaceId, agentId, new Date(hold.start), new Date(hold.end)],
  );
  return rows[0]?.taken === true;
}

/** Counts the agent's holding bookings of a local day; exact under concurrency when called under lockAgents. */
export async function dayCount(
  em: EntityManager,
  workspaceId: string,
  agentId: string,
  zone: string,
  localDate: string,
  excludeBookingId?: string,
): Promise<number> {
  const r = localRange(localDate, localDate, zone);
  const rows = await em.execute<{ n: string }[]>(
    `select count(*) as n from booking where workspace_id = ? and agent_id = ? and status in (${HOLDING_SQL}) and start_date_time >= ? and start_date_time < ?${excludeBookingId ? ' and id <> ?' : ''}`,
    [workspaceId, agentId, new Date(r.start), new Date(r.end), ...(excludeBookingId ? [excludeBookingId] : [])],
  );
  return Number(rows[0]?.n ?? 0);
}
