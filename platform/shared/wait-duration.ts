/**
 * The length of a wait (automation `delay` node, sequence `wait` step) from the spec's alias family,
 * read in one place. Pure and dependency-free: the execution workflow bundles it (Temporal sandbox),
 * the graph validator and the sequence schemas call it too, so validation and execution never differ.
 *
 * Accepted forms, first match wins:
 *  1. `delayMinutes` (number of minutes);
 *  2. an amount with a unit: amount from `delayAmount`, `waitAmount`, `duration` or `amount`, unit
 *     from `delayUnit`, `waitUnit` or `unit` (`minutes`, `hours`, `days`, `weeks`; singular and any
 *     case accepted), names may be mixed (`{ delayAmount: 2, unit: 'hours' }`);
 *  3. `waitDays` and/or `waitHours` (added up).
 * Without any of them the caller's defaults apply (sequences: 1 day); automations have none.
 */

export const WAIT_UNITS = ['minutes', 'hours', 'days', 'weeks'] as const;
export type WaitUnit = (typeof WAIT_UNITS)[number];
export const WAIT_UNIT_MINUTES: Record<WaitUnit, number> = { minutes: 1, hours: 60, days: 1440, weeks: 10_080 };

/** A wait is a durable timer; a year bounds forgotten runs (and the step log's age). */
export const MAX_WAIT_MINUTES = 365 * 1440;

export const AMOUNT_KEYS = ['delayAmount', 'waitAmount', 'duration', 'amount'] as const;
export const UNIT_KEYS = ['delayUnit', 'waitUnit', 'unit'] as const;
export const SPLIT_KEYS = ['waitDays', 'waitHours'] as const;
/** Every key the normaliser reads, for docs and for callers that strip unknown keys. */
export const WAIT_KEYS = ['delayMinutes', ...AMOUNT_KEYS, ...UNIT_KEYS, ...SPLIT_KEYS] as const;

export interface WaitDefaults {
  amount: number;
  unit: WaitUnit;
}
/** Spec (sequence `wait` step): delayAmount default 1, delayUnit default days. */
export const SEQUENCE_WAIT_DEFAULTS: WaitDefaults = { amount: 1, unit: 'days' };

export type WaitDuration =
  | { ok: true; ms: number; minutes: number }
  /** `path` is the key to blame (the one the caller sent, or the preferred name of a missing one). */
  | { ok: false; path: string; error: string };

/** One sentence for docs and error messages. */
export const WAIT_FORMS_DOC =
  'delayMinutes, or an amount (delayAmount, waitAmount, duration or amount) with a unit (delayUnit, waitUnit or unit: ' +
  'minutes, hours, days, weeks), or waitDays and/or waitHours (the first form present wins); at most 365 days';

const isGiven = (v: unknown): boolean => v !== undefined && v !== null;
const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

function unitOf(v: unknown): WaitUnit | null {
  if (typeof v !== 'string') return null;
  const s = v.trim().toLowerCase();
  const plural = s.endsWith('s') ? s : `${s}s`;
  return (WAIT_UNITS as readonly string[]).includes(plural) ? (plural as WaitUnit) : null;
}

function firstGiven<K extends string>(data: Record<string, unknown>, keys: readonly K[]): K | undefined {
  return keys.find((k) => isGiven(data[k]));
}

function finish(minutes: number, path: string): WaitDuration {
  if (minutes > MAX_WAIT_MINUTES) return { ok: false, path, error: 'must be at most 365 days' };
  return { ok: true, minutes, ms: Math.round(minutes * 60_000) };
}

/** Milliseconds of a wait described by `data`, or why it is not a valid wait. */
export function waitDurationOf(
  data: Record<string, unknown> | null | undefined,
  defaults?: WaitDefaults,
): WaitDuration {
  const d = data ?? {};
  if (isGiven(d.delayMinutes)) {
    if (!isNumber(d.delayMinutes) || d.delayMinutes <= 0)
      return { ok: false, path: 'delayMinutes', error: 'must be a number greater than 0' };
    return finish(d.delayMinutes, 'delayMinutes');
  }

  const amountKey = firstGiven(d, AMOUNT_KEYS);
  const unitKey = firstGiven(d, UNIT_KEYS);
  if (amountKey || (unitKey && !firstGiven(d, SPLIT_KEYS))) {
    const amountPath = amountKey ?? 'delayAmount';
    const amount = amountKey ? d[amountKey] : defaults?.amount;
    if (amount === undefined)
      return { ok: false, path: amountPath, error: `is required with ${unitKey} (${WAIT_FORMS_DOC})` };
    if (!isNumber(amount) || amount <= 0)
      return { ok: false, path: amountPath, error: 'must be a number greater than 0' };
    const unit = unitKey ? unitOf(d[unitKey]) : defaults?.unit;
    if (!unit) {
      return unitKey
        ? { ok: false, path: unitKey, error: `must be one of ${WAIT_UNITS.join(', ')}` }
        : { ok: false, path: 'delayUnit', error: `is required with ${amountPath} (${WAIT_UNITS.join(', ')})` };
    }
    return finish(amount * WAIT_UNIT_MINUTES[unit], amountPath);
  }

  if (firstGiven(d, SPLIT_KEYS)) {
    let minutes = 0;
    for (const [key, unit] of [
      ['waitDays', 1440],
      ['waitHours', 60],
    ] as const) {
      if (!isGiven(d[key])) continue;
      const v = d[key];
      if (!isNumber(v) || v < 0) return { ok: false, path: key, error: 'must be a number of at least 0' };
      minutes += v * unit;
    }
    if (minutes <= 0)
      return {
        ok: false,
        path: firstGiven(d, SPLIT_KEYS)!,
        error: 'waitDays and waitHours add up to 0; a wait must be longer',
      };
    return finish(minutes, firstGiven(d, SPLIT_KEYS)!);
  }

  if (defaults) return finish(defaults.amount * WAIT_UNIT_MINUTES[defaults.unit], 'delayAmount');
  return { ok: false, path: 'delayAmount', error: `is required: ${WAIT_FORMS_DOC}` };
}
