/**
 * Time-zone arithmetic on explicit instants with Intl only (no host time zone, no clock), so the
 * results are the same on every machine and inside Temporal workflow code.
 */

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

export interface ZonedParts {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

/** Wall-clock fields of an instant in `timeZone` (throws RangeError for an unknown zone). */
export function zonedParts(ms: number, timeZone: string): ZonedParts {
  const out: Record<string, number> = {};
  for (const part of formatter(timeZone).formatToParts(ms)) {
    if (part.type !== 'literal') out[part.type] = Number(part.value);
  }
  return {
    year: out.year!,
    month: out.month!,
    day: out.day!,
    hour: out.hour! % 24,
    minute: out.minute!,
    second: out.second!,
  };
}

const pad2 = (n: number): string => String(n).padStart(2, '0');

/** `YYYY-MM-DD` of wall-clock fields. */
export const wallDate = (p: Pick<ZonedParts, 'year' | 'month' | 'day'>): string =>
  `${String(p.year).padStart(4, '0')}-${pad2(p.month)}-${pad2(p.day)}`;

/** `HH:mm` of wall-clock fields. */
export const wallTime = (p: Pick<ZonedParts, 'hour' | 'minute'>): string => `${pad2(p.hour)}:${pad2(p.minute)}`;

const utcOf = (p: ZonedParts): number => Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);

/** The instant of a wall-clock time in `timeZone` (a skipped DST hour resolves forwards). */
export function zonedToInstant(p: ZonedParts, timeZone: string): number {
  const wall = utcOf(p);
  const offset1 = utcOf(zonedParts(wall, timeZone)) - wall;
  const guess = wall - offset1;
  const offset2 = utcOf(zonedParts(guess, timeZone)) - guess;
  return offset1 === offset2 ? guess : wall - offset2;
}

/** Days since 1970-01-01 of a calendar date (for whole-day comparisons). */
export const dayNumberOf = (year: number, month: number, day: number): number =>
  Math.floor(Date.UTC(year, month - 1, day) / 86_400_000);

/** Days since 1970-01-01 of the instant's calendar date in `timeZone`. */
export function dayNumber(ms: number, timeZone: string): number {
  const p = zonedParts(ms, timeZone);
  return dayNumberOf(p.year, p.month, p.day);
}

const ISO_RE = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

export interface DateInput {
  /** The instant (a date-only value: its midnight in the time zone). */
  ms: number;
  /** Set for a date without a time ("2024-05-01"): compared as a calendar day. */
  day?: number;
}

/**
 * A Date, epoch milliseconds, or an ISO 8601 string. A time without an offset is wall-clock time
 * in `timeZone` (Date.parse would use the host's zone). Anything else is not a date.
 */
export function parseDateInput(value: unknown, timeZone: string): DateInput | null {
  if (value instanceof Date) return Number.isFinite(value.getTime()) ? { ms: value.getTime() } : null;
  if (typeof value === 'number') return Number.isFinite(value) ? { ms: value } : null;
  if (typeof value !== 'string') return null;
  const m = ISO_RE.exec(value.trim());
  if (!m) return null;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (month < 1 || month > 12 || day < 1 || day > 31) return null;
  if (new Date(Date.UTC(year, month - 1, day)).getUTCDate() !== day) return null;
  if (m[4] === undefined) {
    return {
      ms: zonedToInstant({ year, month, day, hour: 0, minute: 0, second: 0 }, timeZone),
      day: dayNumberOf(year, month, day),
    };
  }
  const [hour, minute, second] = [Number(m[4]), Number(m[5]), Number(m[6] ?? 0)];
  if (hour > 23 || minute > 59 || second > 59) return null;
  const fraction = m[7] ? Number(`0.${m[7]}`) * 1000 : 0;
  const zone = m[8];
  if (zone === undefined)
    return { ms: zonedToInstant({ year, month, day, hour, minute, second }, timeZone) + Math.floor(fraction) };
  let offsetMin = 0;
  if (zone !== 'Z') {
    const sign = zone.startsWith('-') ? -1 : 1;
    const digits = zone.slice(1).replace(':', '');
    offsetMin = sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2)));
  }
  return { ms: Date.UTC(year, month - 1, day, hour, minute, second) - offsetMin * 60_000 + Math.floor(fraction) };
}

/** The calendar day number of a date input in `timeZone`. */
export const dayOfInput = (d: DateInput, timeZone: string): number => d.day ?? dayNumber(d.ms, timeZone);
