/**
 * When a sequence send may go out: business hours in the sequence's time zone, weekends, SMS
 * quiet hours. Pure and clock-free (the instant is an argument), DST-correct through Intl, so the
 * workflow calls it deterministically with its own time.
 */
import { zonedParts, zonedToInstant, type ZonedParts } from '../../platform/shared/zoned-time.pure';

export interface SendWindowSettings {
  businessHoursOnly: boolean;
  businessStart: string;
  businessEnd: string;
  timezone: string;
  skipWeekends: boolean;
  smsQuietHoursEnabled: boolean;
  smsQuietHoursStart: string;
  smsQuietHoursEnd: string;
}

export const HHMM_RE = /^([01]\d|2[0-3]):([0-5]\d)$/;

const minutesOf = (hhmm: string): number => {
  const m = HHMM_RE.exec(hhmm);
  return m ? Number(m[1]) * 60 + Number(m[2]) : 0;
};

/** Day of week (0 = Sunday) of a wall-clock date. */
const weekday = (p: ZonedParts): number => new Date(Date.UTC(p.year, p.month - 1, p.day)).getUTCDay();

/** The instant of `minute` (of the day) on the wall-clock date `p` shifted by `addDays`. */
function at(p: ZonedParts, addDays: number, minute: number, timeZone: string): number {
  const d = new Date(Date.UTC(p.year, p.month - 1, p.day + addDays));
  return zonedToInstant(
    {
      year: d.getUTCFullYear(),
      month: d.getUTCMonth() + 1,
      day: d.getUTCDate(),
      hour: Math.floor(minute / 60),
      minute: minute % 60,
      second: 0,
    },
    timeZone,
  );
}

/**
 * The earliest instant ≥ `nowMs` at which a send of `channel` may go out. `ignoreBusinessHours`
 * (per step) lifts business hours and weekends, not SMS quiet hours (those protect the recipient).
 */
export function nextSendTime(
  nowMs: number,
  s: SendWindowSettings,
  channel: 'email' | 'sms',
  ignoreBusinessHours = false,
): number {
  const tz = s.timezone;
  const business = s.businessHoursOnly && !ignoreBusinessHours;
  const weekends = s.skipWeekends && !ignoreBusinessHours;
  const quiet = channel === 'sms' && s.smsQuietHoursEnabled;
  const bStart = minutesOf(s.businessStart);
  const bEnd = minutesOf(s.businessEnd);
  const qStart = minutesOf(s.smsQuietHoursStart);
  const qEnd = minutesOf(s.smsQuietHoursEnd);
  const dayStart = business ? bStart : 0;
  let t = nowMs;
  // Each step moves forwards to the next boundary; a few weeks of rules settle well within 30.
  for (let i = 0; i < 30; i++) {
    const p = zonedParts(t, tz);
    const minute = p.hour * 60 + p.minute;
    const dow = weekday(p);
    if (weekends && (dow === 0 || dow === 6)) {
      t = Math.max(t, at(p, dow === 6 ? 2 : 1, dayStart, tz));
      continue;
    }
    if (business && bStart < bEnd) {
      if (minute < bStart) {
        t = at(p, 0, bStart, tz);
        continue;
      }
      if (minute >= bEnd) {
        t = at(p, 1, bStart, tz);
        continue;
      }
    }
    if (quiet && qStart !== qEnd) {
      const inQuiet = qStart < qEnd ? minute >= qStart && minute < qEnd : minute >= qStart || minute < qEnd;
      if (inQuiet) {
        // Quiet hours that wrap midnight end tomorrow when we are before midnight.
        const endsTomorrow = qStart > qEnd && minute >= qStart;
        t = at(p, endsTomorrow ? 1 : 0, qEnd, tz);
        continue;
      }
    }
    return t;
  }
  return t;
}
