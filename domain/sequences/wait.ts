/**
 * The sequence `wait` node's duration with every alias of the spec: delayAmount/delayUnit
 * (default 1 day), waitAmount/waitUnit, duration/unit, amount, waitDays/waitHours. Pure (no zod),
 * so the workflow may call it. The lead will unify it with domain/shared/wait-duration.ts.
 */

export const WAIT_UNITS = ['minutes', 'hours', 'days', 'weeks'] as const;
export type WaitUnit = (typeof WAIT_UNITS)[number];
const UNIT_MS: Record<WaitUnit, number> = { minutes: 60_000, hours: 3_600_000, days: 86_400_000, weeks: 604_800_000 };
/** A year bounds a forgotten enrollment. */
export const MAX_WAIT_MS = 365 * 86_400_000;

export interface NormalizedWait { amount: number; unit: WaitUnit; ms: number }
export type WaitResult = { ok: true; wait: NormalizedWait } | { ok: false; path: string; error: string };

const UNIT_ALIASES: Record<string, WaitUnit> = {
  minute: 'minutes', minutes: 'minutes', min: 'minutes', mins: 'minutes',
  hour: 'hours', hours: 'hours', h: 'hours',
  day: 'days', days: 'days', d: 'days',
  week: 'weeks', weeks: 'weeks', w: 'weeks',
};

const numberOf = (v: unknown): number | null => {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
  return null;
};

/** First alias pair present wins; a pair without its unit takes days. */
const PAIRS: readonly [string, string][] = [['delayAmount', 'delayUnit'], ['waitAmount', 'waitUnit'], ['duration', 'unit'], ['amount', 'unit']];

export function normalizeWait(data: Record<string, unknown>): WaitResult {
  const bad = (path: string, error: string): WaitResult => ({ ok: false, path, error });
  let amount: number | null = null;
  let unit: WaitUnit = 'days';
  let amountKey = 'delayAmount';
  const pair = PAIRS.find(([a, u]) => data[a] !== undefined || (a === 'delayAmount' && data[u] !== undefined));
  if (pair) {
    const [a, u] = pair;
    amountKey = a;
    amount = data[a] === undefined ? 1 : numberOf(data[a]);
    if (amount === null) return bad(a, 'must be a number');
    if (data[u] !== undefined && data[u] !== null && data[u] !== '') {
      const found = typeof data[u] === 'string' ? UNIT_ALIASES[(data[u] as string).trim().toLowerCase()] : undefined;
      if (!found) return bad(u, `must be one of ${WAIT_UNITS.join(', ')}`);
      unit = found;
    }
  } else if (data.waitDays !== undefined || data.waitHours !== undefined) {
    const days = data.waitDays === undefined ? 0 : numberOf(data.waitDays);
    const hours = data.waitHours === undefined ? 0 : numberOf(data.waitHours);
    if (days === null) return bad('waitDays', 'must be a number');
    if (hours === null) return bad('waitHours', 'must be a number');
    amountKey = data.waitDays !== undefined ? 'waitDays' : 'waitHours';
    if (hours && days) {
      amount = days * 24 + hours;
      unit = 'hours';
    } else if (hours) {
      amount = hours;
      unit = 'hours';
    } else {
      amount = days;
    }
  } else {
    amount = 1; // the spec's default: one day
  }
  if (amount <= 0) return bad(amountKey, 'must be greater than 0');
  const ms = Math.round(amount * UNIT_MS[unit]);
  if (ms > MAX_WAIT_MS) return bad(amountKey, 'must be at most 365 days');
  return { ok: true, wait: { amount, unit, ms } };
}
