// Pure window and bucket arithmetic for metric queries, in an IANA time zone (table-tested).
import { wallDate, wallTime, zonedParts, zonedToInstant } from '../../platform/shared/zoned-time.pure';

export const GRANULARITIES = ['hour', 'day', 'week', 'month', 'quarter', 'year'] as const;
export type Granularity = (typeof GRANULARITIES)[number];
export const COMPARE_TO = ['previous_period', 'previous_year'] as const;
export type CompareTo = (typeof COMPARE_TO)[number];

/** Most buckets one query may produce (e.g. 2 years of days, 60 days of hours). */
export const MAX_BUCKETS = 1500;

export interface Window {
  from: Date;
  to: Date;
}

/** The instant at which a local wall-clock time (`YYYY-MM-DDTHH:mm`) occurs in a zone (DST gaps move forward). */
export function zonedInstant(local: string, timeZone: string): Date {
  const [date, time = '00:00'] = local.split('T');
  const [year, month, day] = date!.split('-').map(Number);
  const [hour, minute] = time.split(':').map(Number);
  return new Date(
    zonedToInstant({ year: year!, month: month!, day: day!, hour: hour!, minute: minute!, second: 0 }, timeZone),
  );
}

/** Local `YYYY-MM-DDTHH:mm` of an instant. */
export function localStamp(at: Date, timeZone: string): string {
  const p = zonedParts(at.getTime(), timeZone);
  return `${wallDate(p)}T${wallTime(p)}`;
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** `from` (bare date = local midnight) and `to` (bare date = the end of that local day; default now). */
export function resolveWindow(from: string, to: string | undefined, timeZone: string, now = new Date()): Window {
  const start = DAY.test(from) ? zonedInstant(`${from}T00:00`, timeZone) : new Date(from);
  let end: Date;
  if (to === undefined) end = now;
  else if (DAY.test(to)) end = zonedInstant(`${addDays(to, 1)}T00:00`, timeZone);
  else end = new Date(to);
  return { from: start, to: end };
}

/** The calendar day `n` days after `day` (both `YYYY-MM-DD`). */
export function addDays(day: string, n: number): string {
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + n);
  return d.toISOString().slice(0, 10);
}

function addMonths(day: string, n: number): string {
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCMonth(d.getUTCMonth() + n);
  return d.toISOString().slice(0, 10);
}

/** The label of the bucket that contains a local day (same as Postgres `date_trunc`, weeks start Monday). */
export function truncateDay(day: string, granularity: Exclude<Granularity, 'hour'>): string {
  const d = new Date(`${day}T00:00:00Z`);
  switch (granularity) {
    case 'day':
      return day;
    case 'week':
      return addDays(day, -((d.getUTCDay() + 6) % 7));
    case 'month':
      return `${day.slice(0, 7)}-01`;
    case 'quarter':
      return `${day.slice(0, 4)}-${String(Math.floor(d.getUTCMonth() / 3) * 3 + 1).padStart(2, '0')}-01`;
    case 'year':
      return `${day.slice(0, 4)}-01-01`;
  }
}

function step(label: string, granularity: Exclude<Granularity, 'hour'>): string {
  switch (granularity) {
    case 'day':
      return addDays(label, 1);
    case 'week':
      return addDays(label, 7);
    case 'month':
      return addMonths(label, 1);
    case 'quarter':
      return addMonths(label, 3);
    case 'year':
      return addMonths(label, 12);
  }
}

/**
 * Bucket labels covering [from, to): days and longer as `YYYY-MM-DD` (local start of the bucket),
 * hours as `YYYY-MM-DDTHH:00` local (a repeated hour at a DST change is one bucket).
 */
export function bucketLabels(window: Window, granularity: Granularity, timeZone: string): string[] {
  if (window.to <= window.from) return [];
  const last = new Date(window.to.getTime() - 1);
  if (granularity === 'hour') {
    const labels: string[] = [];
    const seen = new Set<string>();
    for (let t = Math.floor(window.from.getTime() / 3_600_000) * 3_600_000; t <= last.getTime(); t += 3_600_000) {
      const label = `${localStamp(new Date(t), timeZone).slice(0, 13)}:00`;
      if (!seen.has(label)) labels.push(label);
      seen.add(label);
      if (labels.length > MAX_BUCKETS) break;
    }
    return labels;
  }
  const labels: string[] = [];
  const end = truncateDay(localStamp(last, timeZone).slice(0, 10), granularity);
  for (
    let label = truncateDay(localStamp(window.from, timeZone).slice(0, 10), granularity);
    label <= end;
    label = step(label, granularity)
  ) {
    labels.push(label);
    if (labels.length > MAX_BUCKETS) break;
  }
  return labels;
}

/** The window a comparison reads: the same length just before, or the same dates a year earlier. */
export function compareWindow(window: Window, compareTo: CompareTo): Window {
  if (compareTo === 'previous_period') {
    const length = window.to.getTime() - window.from.getTime();
    return { from: new Date(window.from.getTime() - length), to: new Date(window.from) };
  }
  const back = (d: Date) => {
    const x = new Date(d);
    x.setUTCFullYear(x.getUTCFullYear() - 1);
    return x;
  };
  return { from: back(window.from), to: back(window.to) };
}

/** Postgres `to_char` pattern matching `bucketLabels`. */
export const SQL_LABEL = (granularity: Granularity): string =>
  granularity === 'hour' ? `YYYY-MM-DD"T"HH24":00"` : 'YYYY-MM-DD';
