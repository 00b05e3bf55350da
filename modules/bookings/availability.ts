/**
 * The I/O half of slot computation: loads the agents' holds, booking counts per local day and
 * calendar events for a range (one indexed statement, scoped by workspace; for a booking, in the
 * statement that reads its config too), then hands them to the pure functions of slots.ts. Also the
 * slot checks of create and reschedule, as plain statements on the pg pool (or the transaction's connection)
 * without the ORM; the agents' locks and hold checks are in agent-locks.ts.
 */
import type { EntityName } from '@mikro-orm/core';
import { DomainError, validation } from '../../platform/errors';
import { boundWorkspaceId, leanColumns, readRow, type LeanSource } from '../../platform/orm/lean';
import { HOLDING_SQL, run, statement } from './agent-locks';
import { BookingConfig, type MeetingType } from './booking.entity';
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

/** Epoch milliseconds of a timestamptz column (a JSON number: no date parsing per row). */
const epochMs = (col: string): string => `floor(extract(epoch from ${col}) * 1000)::bigint`;

/**
 * The agents' load as one JSON array, read over `p` (a row of `ws`, `agents` text[], `f`, `t` and `ex`, a booking id
 * or null): `[0, agent, holdStart, holdEnd, start]` per holding booking whose hold overlaps [f, t), `[1, agent, start,
 * end, allDay]` per calendar event that does (zero-length events block nothing; an all-day event without an end blocks
 * 24 hours from its start); the booking `ex` and its own event are left out. Times in epoch ms.
 */
const LOADS_SQL = `(select coalesce(json_agg(u.r), '[]'::json) as loads from (
    select json_build_array(0, b.agent_id, ${epochMs('b.hold_start')}, ${epochMs('b.hold_end')}, ${epochMs('b.start_date_time')}) as r
      from booking b where b.workspace_id = p.ws and b.agent_id = any(p.agents) and b.status in (${HOLDING_SQL})
      and tstzrange(b.hold_start, b.hold_end, '[)') && tstzrange(p.f, p.t, '[)') and b.id is distinct from p.ex
    union all
    select json_build_array(1, e.owner_id, ${epochMs('e.start')}, ${epochMs('e."end"')}, e.all_day)
      from calendar_event e where e.workspace_id = p.ws and e.owner_id = any(p.agents) and e.start < p.t
      and greatest(e."end", e.start + case when e.all_day then interval '1 day' else interval '0' end) > p.f
      and not exists (select 1 from booking x where x.id = p.ex and x.workspace_id = e.workspace_id and x.calendar_event_id = e.id)
  ) u)`;

const LOADS = statement(
  'loads',
  `select l.loads from (select ?::text as ws, array(select jsonb_array_elements_text(?::jsonb)) as agents,
    ?::timestamptz as f, ?::timestamptz as t, ?::text as ex) p cross join lateral ${LOADS_SQL} l`,
);

type LoadRow =
  | [kind: 0, agentId: string, holdStart: number, holdEnd: number, start: number]
  | [kind: 1, agentId: string, start: number, end: number | null, allDay: boolean];

/** LOADS_SQL's rows per agent, only those overlapping `range` (the statement may have read a wider one). */
function readLoads(
  zone: string,
  agentIds: readonly string[],
  range: Interval,
  rows: LoadRow[],
): Map<string, AgentLoad> {
  const loads = new Map<string, { holds: Interval[]; events: Interval[]; perDay: Map<string, number> }>(
    agentIds.map((id) => [id, { holds: [], events: [], perDay: new Map() }]),
  );
  const clock = localClock(zone);
  for (const row of rows) {
    const load = loads.get(row[1]);
    if (!load) continue;
    if (row[0] === 0) {
      const [, , start, end, at] = row;
      if (start >= end || start >= range.end || end <= range.start) continue;
      load.holds.push({ start, end });
      const day = clock.date(at);
      load.perDay.set(day, (load.perDay.get(day) ?? 0) + 1);
    } else {
      const [, , start, end, allDay] = row;
      if (start >= range.end || Math.max(end ?? -Infinity, start + (allDay ? DAY_MS : 0)) <= range.start) continue;
      load.events.push({ start, end: allDay ? Math.max(end ?? 0, start + DAY_MS) : (end ?? 0) });
    }
  }
  return loads;
}

/**
 * Holds and calendar events of the agents overlapping `range`, and their holding bookings per
 * local day. Holds of every config count (an agent is one person); `excludeBookingId` leaves out
 * the booking being rescheduled.
 */
export async function loadAgentLoads(
  source: LeanSource,
  workspaceId: string,
  zone: string,
  agentIds: readonly string[],
  range: Interval,
  excludeBookingId?: string,
): Promise<Map<string, AgentLoad>> {
  if (!agentIds.length) return new Map();
  const [row] = await run<{ loads: LoadRow[] }>(source, LOADS, [
    workspaceId,
    JSON.stringify(agentIds),
    new Date(range.start),
    new Date(range.end),
    excludeBookingId ?? null,
  ]);
  return readLoads(zone, agentIds, range, row?.loads ?? []);
}

type ColumnsRead = Pick<ReturnType<typeof leanColumns>, 'dates' | 'converted'>;
let targetStatement: ({ name: string; text: string } & ColumnsRead) | null = null;

/**
 * A booking's config and the load of its agents (or of `agentId` alone) around `start`, in one statement: null when
 * the workspace has no such config. The statement reads the holds and events of three days (plus the buffers) each
 * side of `start`, a superset of loadRange's around its local date in any zone, and keeps those of that range.
 */
export async function loadBookingTarget(
  source: LeanSource,
  configId: string,
  start: Date,
  agentId?: string,
): Promise<{ config: BookingConfig; loads: Map<string, AgentLoad>; localDate: string } | null> {
  if (!targetStatement) {
    const cols = leanColumns(source, BookingConfig as EntityName<object>, 't');
    targetStatement = {
      ...statement(
        'target',
        `select c.*, l.loads as "agentLoads"
        from (select ${cols.select} from booking_config t where t.id = ? and t.workspace_id = ?) c
        cross join lateral (select c."workspaceId" as ws,
          array(select a->>'userId' from jsonb_array_elements(c."agents") a where ?::text is null or a->>'userId' = ?::text) as agents,
          ?::timestamptz - make_interval(mins => c."bufferBeforeMinutes") - interval '3 days' as f,
          ?::timestamptz + make_interval(mins => c."bufferAfterMinutes") + interval '3 days' as t,
          null::text as ex) p
        cross join lateral ${LOADS_SQL} l`,
      ),
      dates: cols.dates,
      converted: cols.converted,
    };
  }
  const ws = boundWorkspaceId(source);
  const [row] = await run<Record<string, unknown>>(source, targetStatement, [
    configId,
    ws,
    agentId ?? null,
    agentId ?? null,
    start,
    start,
  ]);
  if (!row) return null;
  const loads = row.agentLoads as LoadRow[];
  delete row.agentLoads;
  const config = readRow<BookingConfig>(source, row, targetStatement);
  const localDate = localDateOf(start, config.timeZone);
  const agentIds = config.agents.map((a) => a.userId).filter((id) => agentId === undefined || id === agentId);
  return {
    config,
    loads: readLoads(config.timeZone, agentIds, loadRange(config, localDate, localDate), loads),
    localDate,
  };
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
  source: LeanSource,
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
    source,
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

/** The free agents of a start, best first (freeAgentsFor, freeAgentsAt). */
export interface FreeAgents {
  agentIds: string[];
  perDay: (agentId: string) => number;
  localDate: string;
}

/**
 * Checks a requested start: 400 when it is no slot of the config at all (outside availability,
 * off the slot grid, too soon), 409 when it is one but taken. Returns the free agents, best first.
 */
export async function freeAgentsFor(
  source: LeanSource,
  workspaceId: string,
  config: BookingConfig,
  meetingType: MeetingType,
  start: Date,
  opts: { agentIds?: string[]; excludeBookingId?: string; field: string },
  now = new Date(),
): Promise<FreeAgents> {
  const localDate = localDateOf(start, config.timeZone);
  const agents = opts.agentIds ? config.agents.filter((a) => opts.agentIds!.includes(a.userId)) : config.agents;
  const loads = await loadAgentLoads(
    source,
    workspaceId,
    config.timeZone,
    agents.map((a) => a.userId),
    loadRange(config, localDate, localDate),
    opts.excludeBookingId,
  );
  return freeAgentsAt(config, meetingType, start, loads, { ...opts, localDate }, now);
}

/** freeAgentsFor on loads already read (loadBookingTarget's), for the start's `localDate` in the config's zone. */
export function freeAgentsAt(
  config: BookingConfig,
  meetingType: MeetingType,
  start: Date,
  loads: ReadonlyMap<string, AgentLoad>,
  opts: { agentIds?: string[]; field: string; localDate: string },
  now = new Date(),
): FreeAgents {
  const { localDate } = opts;
  const rules = rulesOf(config, meetingType);
  const agents = opts.agentIds ? config.agents.filter((a) => opts.agentIds!.includes(a.userId)) : config.agents;
  const iso = start.toISOString();
  // The slots starting at `start` that day, given the agents' loads.
  const slotsAt = (agentLoads: typeof loads) =>
    computeSlots({
      rules,
      agents,
      loads: agentLoads,
      startDate: localDate,
      endDate: localDate,
      now,
      onlyStart: start.getTime(),
    });
  const slot = slotsAt(loads).find((s) => s.start === iso);
  if (!slot) {
    // Not free: 400 when it is no slot of the config at all (the grid without any booking), else taken (409).
    const onGrid = slotsAt(new Map()).some((s) => s.start === iso);
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
