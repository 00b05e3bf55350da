/**
 * The sequence `wait` node's duration with every alias of the spec: delayAmount/delayUnit
 * (default 1 day), waitAmount/waitUnit, duration/unit, amount, waitDays/waitHours. Pure (no zod),
 * so the workflow may call it. Validation and milliseconds come from domain/shared/wait-duration.ts,
 * the normaliser automation delays use too; this adds the sequence leniency and the default.
 */

import {
  AMOUNT_KEYS,
  SEQUENCE_WAIT_DEFAULTS,
  SPLIT_KEYS,
  UNIT_KEYS,
  waitDurationOf,
  WAIT_UNITS,
  type WaitUnit,
} from '../../platform/shared/wait-duration';

export { WAIT_UNITS, type WaitUnit };
/** A year bounds a forgotten enrollment. */
export const MAX_WAIT_MS = 365 * 86_400_000;

export interface NormalizedWait {
  amount: number;
  unit: WaitUnit;
  ms: number;
}
export type WaitResult = { ok: true; wait: NormalizedWait } | { ok: false; path: string; error: string };

const UNIT_ALIASES: Record<string, WaitUnit> = {
  minute: 'minutes',
  minutes: 'minutes',
  min: 'minutes',
  mins: 'minutes',
  hour: 'hours',
  hours: 'hours',
  h: 'hours',
  day: 'days',
  days: 'days',
  d: 'days',
  week: 'weeks',
  weeks: 'weeks',
  w: 'weeks',
};

const numberOf = (v: unknown): number | null => {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
  return null;
};

/** A sequence `wait` node's duration; the first form present wins (shared rules), default 1 day. */
export function normalizeWait(data: Record<string, unknown>): WaitResult {
  // Sequence leniency first (numeric strings, short unit names), then the one shared normaliser.
  const d: Record<string, unknown> = { ...data };
  for (const k of ['delayMinutes', ...AMOUNT_KEYS, ...SPLIT_KEYS]) {
    const n = numberOf(d[k]);
    if (typeof d[k] === 'string' && n !== null) d[k] = n;
  }
  for (const k of UNIT_KEYS) {
    const u = typeof d[k] === 'string' ? UNIT_ALIASES[(d[k] as string).trim().toLowerCase()] : undefined;
    if (u) d[k] = u;
  }
  const r = waitDurationOf(d, SEQUENCE_WAIT_DEFAULTS);
  if (!r.ok) return r;
  // The node keeps a readable amount and unit beside the milliseconds.
  const amountKey = AMOUNT_KEYS.find((k) => d[k] !== undefined && d[k] !== null);
  const unitKey = UNIT_KEYS.find((k) => d[k] !== undefined && d[k] !== null);
  let amount: number;
  let unit: WaitUnit;
  if (d.delayMinutes !== undefined && d.delayMinutes !== null) {
    amount = d.delayMinutes as number;
    unit = 'minutes';
  } else if (amountKey || (unitKey && d.waitDays === undefined && d.waitHours === undefined)) {
    amount = amountKey ? (d[amountKey] as number) : SEQUENCE_WAIT_DEFAULTS.amount;
    unit = unitKey ? (d[unitKey] as WaitUnit) : SEQUENCE_WAIT_DEFAULTS.unit;
  } else if (d.waitHours !== undefined && d.waitHours !== null && d.waitHours !== 0) {
    amount = r.minutes / 60;
    unit = 'hours';
  } else {
    amount = r.minutes / 1440;
    unit = 'days';
  }
  return { ok: true, wait: { amount, unit, ms: r.ms } };
}
