/**
 * `scheduled` trigger config → a plain description of a Temporal ScheduleSpec (structurally the
 * SDK's `ScheduleSpec`; no Temporal import, domain/ stays free of it). Pure and deterministic.
 */
import { SCHEDULE_FREQUENCIES, SCHEDULE_INTERVAL_MINUTES } from './definition.schemas';
import { isPlainObject, type ValidationIssue } from '../../platform/shared/zod-kit';
import type { CalendarEntry, ScheduleSpecData } from '../../platform/workflow-port';

export type ScheduleFrequency = (typeof SCHEDULE_FREQUENCIES)[number];

/** Temporal numbers weekdays like cron (0 = Sunday) but names them in its TypeScript SDK. */
export const DAY_NAMES = ['SUNDAY', 'MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY'] as const;
export type { DayOfWeekName } from '../../platform/workflow-port';

export interface ScheduledTriggerConfig {
  frequency: ScheduleFrequency;
  intervalMinutes?: (typeof SCHEDULE_INTERVAL_MINUTES)[number];
  dayOfWeek?: number;
  dayOfMonth?: number;
  time?: string;
}

export type { CalendarEntry, ScheduleSpecData } from '../../platform/workflow-port';

export type ScheduleSpecResult =
  | { ok: true; spec: ScheduleSpecData; config: ScheduledTriggerConfig; description: string }
  | { ok: false; errors: ValidationIssue[] };

export const TIME_RE = /^([01]\d|2[0-3]):([0-5]\d)$/;

/** True when the runtime's ICU knows the IANA zone (Temporal's server resolves the same names). */
export function isValidTimeZone(tz: unknown): tz is string {
  if (typeof tz !== 'string' || tz.length === 0 || tz.length > 100) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/** The day a weekly or monthly schedule runs on: required, an integer from `min` to `max`. */
const DAY_RULES = {
  weekly: {
    key: 'dayOfWeek',
    min: 0,
    max: 6,
    required: 'is required with frequency weekly (0 = Sunday … 6 = Saturday)',
    range: 'must be an integer from 0 (Sunday) to 6 (Saturday)',
  },
  monthly: {
    key: 'dayOfMonth',
    min: 1,
    max: 28,
    required: 'is required with frequency monthly (1-28)',
    range: 'must be an integer from 1 to 28 (every month has those days)',
  },
} as const;

/** Select inputs often send "15" for 15: integer strings are accepted for the numeric fields. */
function intOf(v: unknown): number | null {
  if (typeof v === 'number' && Number.isInteger(v)) return v;
  if (typeof v === 'string' && /^-?\d{1,6}$/.test(v.trim())) return Number(v.trim());
  return null;
}

/**
 * Checks a scheduled trigger config; paths are relative to the config (`intervalMinutes`). Fields
 * that do not belong to the frequency (dayOfWeek with daily, …) are ignored, as the spec says.
 */
export function parseScheduleConfig(config: unknown): { config?: ScheduledTriggerConfig; errors: ValidationIssue[] } {
  if (!isPlainObject(config))
    return {
      errors: [
        { path: '', error: 'must be an object with frequency (and time, dayOfWeek, dayOfMonth or intervalMinutes)' },
      ],
    };
  const errors: ValidationIssue[] = [];
  const { frequency } = config;
  if (frequency === undefined)
    return { errors: [{ path: 'frequency', error: `is required (one of ${SCHEDULE_FREQUENCIES.join(', ')})` }] };
  if (!SCHEDULE_FREQUENCIES.includes(frequency as ScheduleFrequency)) {
    return { errors: [{ path: 'frequency', error: `must be one of ${SCHEDULE_FREQUENCIES.join(', ')}` }] };
  }
  const out: ScheduledTriggerConfig = { frequency: frequency as ScheduleFrequency };

  if (out.frequency === 'interval') {
    const n = intOf(config.intervalMinutes);
    if (config.intervalMinutes === undefined)
      errors.push({
        path: 'intervalMinutes',
        error: `is required with frequency interval (one of ${SCHEDULE_INTERVAL_MINUTES.join(', ')})`,
      });
    else if (n === null || !(SCHEDULE_INTERVAL_MINUTES as readonly number[]).includes(n)) {
      errors.push({ path: 'intervalMinutes', error: `must be one of ${SCHEDULE_INTERVAL_MINUTES.join(', ')}` });
    } else out.intervalMinutes = n as ScheduledTriggerConfig['intervalMinutes'];
    return errors.length ? { errors } : { config: out, errors };
  }

  const time = config.time;
  if (time === undefined || time === null || time === '') {
    if (out.frequency === 'hourly') out.time = '00:00';
    else errors.push({ path: 'time', error: `is required with frequency ${out.frequency} (HH:mm, 24-hour)` });
  } else if (typeof time !== 'string' || !TIME_RE.test(time)) {
    errors.push({ path: 'time', error: 'must be HH:mm (24-hour, e.g. 09:30)' });
  } else out.time = time;

  const rule = out.frequency === 'weekly' || out.frequency === 'monthly' ? DAY_RULES[out.frequency] : undefined;
  if (rule) {
    const d = intOf(config[rule.key]);
    if (config[rule.key] === undefined || config[rule.key] === null)
      errors.push({ path: rule.key, error: rule.required });
    else if (d === null || d < rule.min || d > rule.max) errors.push({ path: rule.key, error: rule.range });
    else out[rule.key] = d;
  }
  return errors.length ? { errors } : { config: out, errors };
}

const pad = (n: number): string => String(n).padStart(2, '0');

/**
 * The schedule for a `scheduled` trigger: interval → `{ intervals: [{ every: '15m' }] }` (aligned
 * to the epoch, so :00/:15/:30/:45); the others → one calendar entry in `timezone`.
 */
export function scheduleSpecFor(config: unknown, timezone: string): ScheduleSpecResult {
  const { config: c, errors } = parseScheduleConfig(config);
  if (!isValidTimeZone(timezone))
    errors.push({ path: 'timezone', error: 'must be an IANA time zone such as Europe/Copenhagen' });
  if (!c || errors.length) return { ok: false, errors };

  if (c.frequency === 'interval') {
    const every = c.intervalMinutes!;
    return {
      ok: true,
      config: c,
      spec: { intervals: [{ every: `${every}m` }] },
      description: `every ${every} minutes`,
    };
  }
  const [hour, minute] = c.time!.split(':').map(Number) as [number, number];
  const at = `${pad(hour)}:${pad(minute)}`;
  let entry: CalendarEntry;
  let description: string;
  switch (c.frequency) {
    case 'hourly':
      entry = { hour: '*', minute, comment: `hourly at minute ${minute}` };
      description = `every hour at minute ${pad(minute)}`;
      break;
    case 'daily':
      entry = { hour, minute, comment: `daily at ${at}` };
      description = `every day at ${at}`;
      break;
    case 'weekly': {
      const day = DAY_NAMES[c.dayOfWeek!]!;
      entry = { hour, minute, dayOfWeek: day, comment: `weekly on ${day} at ${at}` };
      description = `every ${day.charAt(0)}${day.slice(1).toLowerCase()} at ${at}`;
      break;
    }
    case 'monthly':
      entry = { hour, minute, dayOfMonth: c.dayOfMonth!, comment: `monthly on day ${c.dayOfMonth} at ${at}` };
      description = `every month on day ${c.dayOfMonth} at ${at}`;
      break;
  }
  return { ok: true, config: c, spec: { calendars: [entry], timezone }, description: `${description} (${timezone})` };
}
