import { nextSendTime, type SendWindowSettings } from '../send-window.pure';
import { normalizeWait } from '../wait';

const base: SendWindowSettings = {
  businessHoursOnly: true,
  businessStart: '08:00',
  businessEnd: '16:30',
  timezone: 'Europe/Copenhagen',
  skipWeekends: true,
  smsQuietHoursEnabled: false,
  smsQuietHoursStart: '20:00',
  smsQuietHoursEnd: '08:00',
};
const at = (iso: string) => Date.parse(iso);
const next = (now: string, s: Partial<SendWindowSettings> = {}, channel: 'email' | 'sms' = 'email', ignore = false) =>
  new Date(nextSendTime(at(now), { ...base, ...s }, channel, ignore)).toISOString();

describe('nextSendTime (business hours in the sequence time zone)', () => {
  it.each([
    // [now (UTC), expected (UTC), case]
    ['2026-03-25T10:00:00.000Z', '2026-03-25T10:00:00.000Z', 'inside hours (11:00 CET): now'],
    ['2026-03-25T05:00:00.000Z', '2026-03-25T07:00:00.000Z', 'before opening (06:00 CET): 08:00 CET'],
    ['2026-03-25T15:30:00.000Z', '2026-03-26T07:00:00.000Z', 'at/after closing (16:30 CET): next day 08:00'],
    ['2026-03-25T15:29:00.000Z', '2026-03-25T15:29:00.000Z', 'one minute before closing: now'],
    [
      '2026-03-27T16:00:00.000Z',
      '2026-03-30T06:00:00.000Z',
      'Friday after hours → Monday 08:00 CEST (DST began Sunday 29 March)',
    ],
    [
      '2026-03-28T10:00:00.000Z',
      '2026-03-30T06:00:00.000Z',
      'Saturday → Monday 08:00, after the spring DST change (UTC+2)',
    ],
    [
      '2026-10-24T10:00:00.000Z',
      '2026-10-26T07:00:00.000Z',
      'Saturday → Monday 08:00, after the autumn DST change (UTC+1)',
    ],
    ['2026-10-23T15:00:00.000Z', '2026-10-26T07:00:00.000Z', 'Friday 17:00 CEST → Monday 08:00 CET'],
  ])('%s → %s (%s)', (now, expected) => {
    expect(next(now)).toBe(expected);
  });

  it('other time zones: New York business hours across its own DST change (8 March 2026)', () => {
    const ny = { timezone: 'America/New_York', businessStart: '09:00', businessEnd: '17:00' };
    expect(next('2026-03-06T23:00:00.000Z', ny)).toBe('2026-03-09T13:00:00.000Z'); // Fri 18:00 EST → Mon 09:00 EDT
    expect(next('2026-03-09T12:59:00.000Z', ny)).toBe('2026-03-09T13:00:00.000Z');
  });

  it('without businessHoursOnly and skipWeekends any time goes', () => {
    expect(next('2026-03-28T03:00:00.000Z', { businessHoursOnly: false, skipWeekends: false })).toBe(
      '2026-03-28T03:00:00.000Z',
    );
  });

  it('skipWeekends alone moves a weekend send to Monday 00:00 local', () => {
    expect(next('2026-03-28T10:00:00.000Z', { businessHoursOnly: false })).toBe('2026-03-29T22:00:00.000Z');
  });

  it('ignoreBusinessHours lifts hours and weekends', () => {
    expect(next('2026-03-28T22:00:00.000Z', {}, 'email', true)).toBe('2026-03-28T22:00:00.000Z');
  });

  it('SMS quiet hours (20:00-08:00, wrapping midnight) hold SMS only, even with ignoreBusinessHours', () => {
    const quiet = { businessHoursOnly: false, skipWeekends: false, smsQuietHoursEnabled: true };
    expect(next('2026-06-10T19:30:00.000Z', quiet, 'sms')).toBe('2026-06-11T06:00:00.000Z'); // 21:30 CEST → 08:00 CEST
    expect(next('2026-06-10T03:00:00.000Z', quiet, 'sms', true)).toBe('2026-06-10T06:00:00.000Z'); // 05:00 → 08:00
    expect(next('2026-06-10T19:30:00.000Z', quiet, 'email')).toBe('2026-06-10T19:30:00.000Z');
    expect(next('2026-06-10T12:00:00.000Z', quiet, 'sms')).toBe('2026-06-10T12:00:00.000Z');
  });

  it('quiet hours that do not wrap (12:00-13:00)', () => {
    const quiet = {
      businessHoursOnly: false,
      skipWeekends: false,
      smsQuietHoursEnabled: true,
      smsQuietHoursStart: '12:00',
      smsQuietHoursEnd: '13:00',
    };
    expect(next('2026-06-10T10:15:00.000Z', quiet, 'sms')).toBe('2026-06-10T11:00:00.000Z');
  });

  it('is deterministic: the same instant gives the same answer', () => {
    expect(next('2026-03-29T01:30:00.000Z')).toBe(next('2026-03-29T01:30:00.000Z'));
  });
});

describe('normalizeWait (wait node aliases)', () => {
  const D = 86_400_000;
  it.each([
    [{}, { amount: 1, unit: 'days', ms: D }],
    [{ delayAmount: 3 }, { amount: 3, unit: 'days', ms: 3 * D }],
    [
      { delayAmount: 2, delayUnit: 'hours' },
      { amount: 2, unit: 'hours', ms: 2 * 3_600_000 },
    ],
    [{ delayUnit: 'weeks' }, { amount: 1, unit: 'weeks', ms: 7 * D }],
    [
      { waitAmount: 15, waitUnit: 'minutes' },
      { amount: 15, unit: 'minutes', ms: 15 * 60_000 },
    ],
    [
      { duration: 2, unit: 'day' },
      { amount: 2, unit: 'days', ms: 2 * D },
    ],
    [{ amount: 5 }, { amount: 5, unit: 'days', ms: 5 * D }],
    [{ waitDays: 2 }, { amount: 2, unit: 'days', ms: 2 * D }],
    [{ waitHours: 6 }, { amount: 6, unit: 'hours', ms: 6 * 3_600_000 }],
    [
      { waitDays: 1, waitHours: 6 },
      { amount: 30, unit: 'hours', ms: 30 * 3_600_000 },
    ],
    [
      { delayAmount: '4', delayUnit: 'Hours' },
      { amount: 4, unit: 'hours', ms: 4 * 3_600_000 },
    ],
    [{ delayAmount: 365 }, { amount: 365, unit: 'days', ms: 365 * D }],
    [{ delayMinutes: 90 }, { amount: 90, unit: 'minutes', ms: 90 * 60_000 }],
    [
      { waitDays: '2', waitHours: 0 },
      { amount: 2, unit: 'days', ms: 2 * D },
    ],
  ])('%j → %j', (data, wait) => {
    expect(normalizeWait(data)).toEqual({ ok: true, wait });
  });

  it.each([
    [{ delayAmount: 0 }, 'delayAmount', 'must be a number greater than 0'],
    [{ delayAmount: -1 }, 'delayAmount', 'must be a number greater than 0'],
    [{ delayAmount: 'x' }, 'delayAmount', 'must be a number greater than 0'],
    [{ delayAmount: 1, delayUnit: 'years' }, 'delayUnit', 'must be one of minutes, hours, days, weeks'],
    [{ delayAmount: 366 }, 'delayAmount', 'must be at most 365 days'],
    [{ waitDays: 'soon' }, 'waitDays', 'must be a number of at least 0'],
  ])('%j → %s %s', (data, path, error) => {
    expect(normalizeWait(data)).toEqual({ ok: false, path, error });
  });
});
