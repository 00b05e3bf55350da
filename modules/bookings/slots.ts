/**
 * Available booking slots, computed without I/O (table-tested in modules/bookings/__tests__/slots.test.ts).
 *
 * Availability is local wall-clock windows per weekday in the config's IANA time zone; each local
 * date is turned into instants with luxon, so DST days are 23 or 25 hours long and 09:00 stays
 * 09:00. Candidates start at each window start and every slotIntervalMinutes after it (absolute
 * time) while the meeting fits the window. A candidate's hold is [start − bufferBefore, end +
 * bufferAfter); it is offered for an agent when the hold overlaps none of the agent's existing
 * holds (bookings that hold their slot, buffers included) and calendar events, starts at least
 * minimumNoticeMinutes from now, and the agent has fewer than maxPerDay holding bookings that
 * local day.
 */
import { DateTime, IANAZone } from 'luxon';
import { WEEKDAYS, type WeeklyAvailability } from './booking.entity';

export interface SlotRules {
  timeZone: string;
  durationMinutes: number;
  slotIntervalMinutes: number;
  bufferBeforeMinutes: number;
  bufferAfterMinutes: number;
  minimumNoticeMinutes: number;
  maxPerDay: number | null;
}

/** [start, end) in epoch milliseconds. */
export interface Interval {
  start: number;
  end: number;
}

export interface AgentLoad {
  /** Existing holds of this agent's holding bookings (buffers included). */
  holds: Interval[];
  /** The agent's calendar events (other than the bookings' own events). */
  events: Interval[];
  /** Holding bookings per local date (YYYY-MM-DD in the rules' zone). */
  perDay: ReadonlyMap<string, number>;
}

export interface AgentSchedule {
  userId: string;
  weeklyAvailability: WeeklyAvailability;
}

export interface Slot {
  /** UTC instants, ISO 8601. */
  start: string;
  end: string;
  /** Local date and time of the start in the config's zone (what a booking page shows). */
  localDate: string;
  localTime: string;
  /** Agents free for this slot, in config order. */
  agentIds: string[];
}

export interface SlotQuery {
  rules: SlotRules;
  agents: readonly AgentSchedule[];
  loads: ReadonlyMap<string, AgentLoad>;
  /** Inclusive local dates, YYYY-MM-DD. */
  startDate: string;
  endDate: string;
  now: Date;
  /** Only these agents (selectedAgentId). */
  onlyAgentIds?: readonly string[];
  /** Only the slot starting at this instant (a booking's check of its one requested start). */
  onlyStart?: number;
}

const MINUTE = 60_000;
const DATE_RE = /^\d{4}-\d{2}-\d{2}$/;
const TIME_RE = /^(?:[01]\d|2[0-3]):[0-5]\d$|^24:00$/;

export const isValidTimeZone = (zone: string): boolean => IANAZone.isValidZone(zone);
export const isLocalTime = (value: string): boolean => TIME_RE.test(value);
export const minutesOf = (hhmm: string): number => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

/** A YYYY-MM-DD string that names a real calendar date. */
export function isLocalDate(value: string): boolean {
  return DATE_RE.test(value) && DateTime.fromISO(value, { zone: 'UTC' }).isValid;
}

/** Whole days from a to b (local dates); b before a is negative. */
export function daysBetween(a: string, b: string): number {
  return Math.round(DateTime.fromISO(b, { zone: 'UTC' }).diff(DateTime.fromISO(a, { zone: 'UTC' }), 'days').days);
}

/** Local date (YYYY-MM-DD) of an instant in a zone. */
export function localDateOf(at: Date | number, zone: string): string {
  return DateTime.fromMillis(typeof at === 'number' ? at : at.getTime(), { zone }).toISODate()!;
}

const QUARTER_HOUR = 15 * 60_000;
const pad = (n: number): string => String(n).padStart(2, '0');

/**
 * Offsets per zone and quarter hour, shared by every request: a zone's offsets never change while the process runs,
 * and looking one up (luxon, through Intl) was most of the CPU of a booking request (2.1 of 3 s in the race test).
 * Bounded: 10,000 quarter hours (about 100 days) per zone and 32 zones (a few MB); a full cache starts over.
 */
const OFFSETS = new Map<string, Map<number, number>>();
const MAX_OFFSETS_PER_ZONE = 10_000;
const MAX_ZONES = 32;

function offsetCache(zone: string): Map<number, number> {
  let cache = OFFSETS.get(zone);
  if (!cache || cache.size >= MAX_OFFSETS_PER_ZONE) {
    if (!cache && OFFSETS.size >= MAX_ZONES) OFFSETS.clear();
    cache = new Map();
    OFFSETS.set(zone, cache);
  }
  return cache;
}

/** Instants of local wall times (`zone|date|hh:mm`), shared like OFFSETS; bounded, a full cache starts over. */
const INSTANTS = new Map<string, number>();
const MAX_INSTANTS = 50_000;

/** The instant of a local date and time in a zone (luxon's DST rules: a skipped time moves forward). */
export function localInstant(zone: string, localDate: string, hhmm: string): number {
  const key = `${zone}|${localDate}|${hhmm}`;
  let v = INSTANTS.get(key);
  if (v === undefined) {
    if (INSTANTS.size >= MAX_INSTANTS) INSTANTS.clear();
    v = DateTime.fromISO(`${localDate}T${hhmm}`, { zone }).toMillis();
    INSTANTS.set(key, v);
  }
  return v;
}

/**
 * Fast local wall-clock parts of many instants in one zone: the zone's UTC offset is looked up
 * once per quarter hour (every offset and transition of the tz database falls on a quarter hour)
 * and the rest is UTC arithmetic, instead of one luxon DateTime per instant.
 */
export function localClock(zone: string): {
  offsetMs(at: number): number;
  date(at: number): string;
  time(at: number): string;
} {
  const tz = IANAZone.create(zone);
  const cache = offsetCache(zone);
  const offsetMs = (at: number): number => {
    const bucket = Math.floor(at / QUARTER_HOUR);
    let off = cache.get(bucket);
    if (off === undefined) {
      off = tz.offset(bucket * QUARTER_HOUR) * 60_000;
      cache.set(bucket, off);
    }
    return off;
  };
  const wall = (at: number): Date => new Date(at + offsetMs(at));
  return {
    offsetMs,
    date: (at) => {
      const d = wall(at);
      return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
    },
    time: (at) => {
      const d = wall(at);
      return `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}`;
    },
  };
}

/**
 * The instants that bound the local dates [startDate, endDate] in a zone: [first midnight, midnight after the last).
 */
export function localRange(startDate: string, endDate: string, zone: string): Interval {
  const start = DateTime.fromISO(startDate, { zone }).startOf('day');
  const end = DateTime.fromISO(endDate, { zone }).plus({ days: 1 }).startOf('day');
  return { start: start.toMillis(), end: end.toMillis() };
}

/** The hold of a meeting: [start − before, end + after). */
export function holdOf(start: number, durationMinutes: number, before: number, after: number): Interval {
  return { start: start - before * MINUTE, end: start + (durationMinutes + after) * MINUTE };
}

/** Sorted, merged, disjoint intervals (so a binary search on `end` finds the first candidate). */
export function mergeIntervals(list: readonly Interval[]): Interval[] {
  const sorted = list.filter((i) => i.end > i.start).sort((a, b) => a.start - b.start);
  const out: Interval[] = [];
  for (const i of sorted) {
    const last = out[out.length - 1];
    if (last && i.start <= last.end) last.end = Math.max(last.end, i.end);
    else out.push({ ...i });
  }
  return out;
}

/** Whether [start, end) overlaps any of the merged intervals. */
export function overlapsAny(merged: readonly Interval[], start: number, end: number): boolean {
  let lo = 0;
  let hi = merged.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (merged[mid]!.end <= start) lo = mid + 1;
    else hi = mid;
  }
  return lo < merged.length && merged[lo]!.start < end;
}

/**
 * The windows of one local date as instants (DST-correct; '24:00' is the next midnight); `at` caches per date and time.
 */
function windowsOn(date: DateTime, availability: WeeklyAvailability, at: (hhmm: string) => number): Interval[] {
  const day = WEEKDAYS[date.weekday - 1]!;
  return (availability[day] ?? []).map((w) => ({ start: at(w.start), end: at(w.end) }));
}

export function computeSlots(q: SlotQuery): Slot[] {
  const { rules } = q;
  const zone = rules.timeZone;
  const duration = rules.durationMinutes * MINUTE;
  const step = Math.max(1, rules.slotIntervalMinutes) * MINUTE;
  const earliest = q.now.getTime() + rules.minimumNoticeMinutes * MINUTE;
  const agents = q.onlyAgentIds ? q.agents.filter((a) => q.onlyAgentIds!.includes(a.userId)) : q.agents;
  const busy = new Map(
    agents.map((a) => {
      const load = q.loads.get(a.userId);
      return [a.userId, mergeIntervals([...(load?.holds ?? []), ...(load?.events ?? [])])] as const;
    }),
  );
  const byStart = new Map<number, string[]>();
  const last = DateTime.fromISO(q.endDate, { zone });
  for (
    let date = DateTime.fromISO(q.startDate, { zone }).startOf('day');
    date <= last;
    date = date.plus({ days: 1 }).startOf('day')
  ) {
    const localDate = date.toISODate()!;
    const instants = new Map<string, number>();
    const at = (hhmm: string): number => {
      let v = instants.get(hhmm);
      if (v === undefined) {
        v = hhmm === '24:00' ? date.plus({ days: 1 }).startOf('day').toMillis() : localInstant(zone, localDate, hhmm);
        instants.set(hhmm, v);
      }
      return v;
    };
    for (const agent of agents) {
      const count = q.loads.get(agent.userId)?.perDay.get(localDate) ?? 0;
      if (rules.maxPerDay !== null && count >= rules.maxPerDay) continue;
      const merged = busy.get(agent.userId)!;
      for (const w of windowsOn(date, agent.weeklyAvailability, at)) {
        for (let s = w.start; s + duration <= w.end; s += step) {
          if (s < earliest || (q.onlyStart !== undefined && s !== q.onlyStart)) continue;
          const hold = holdOf(s, rules.durationMinutes, rules.bufferBeforeMinutes, rules.bufferAfterMinutes);
          if (overlapsAny(merged, hold.start, hold.end)) continue;
          const list = byStart.get(s);
          if (list) {
            if (!list.includes(agent.userId)) list.push(agent.userId);
          } else byStart.set(s, [agent.userId]);
        }
      }
    }
  }
  const clock = localClock(zone);
  const order = agents.map((a) => a.userId);
  return [...byStart.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([s, agentIds]) => ({
      start: new Date(s).toISOString(),
      end: new Date(s + duration).toISOString(),
      localDate: clock.date(s),
      localTime: clock.time(s),
      agentIds: agentIds.length > 1 ? order.filter((id) => agentIds.includes(id)) : agentIds,
    }));
}

/** Round-robin by load: the free agent with the fewest holding bookings that day (config order breaks ties). */
export function rankAgents(agentIds: readonly string[], perDay: (agentId: string) => number): string[] {
  return agentIds
    .map((id, i) => ({ id, i, n: perDay(id) }))
    .sort((a, b) => a.n - b.n || a.i - b.i)
    .map((x) => x.id);
}
