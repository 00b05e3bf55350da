import type { ScheduleSpec } from '@temporalio/client';
import { isValidTimeZone, parseScheduleConfig, scheduleSpecFor } from '../schedule';

const TZ = 'Europe/Copenhagen';

describe('scheduleSpecFor', () => {
  it.each([
    [{ frequency: 'interval', intervalMinutes: 5 }, { intervals: [{ every: '5m' }] }, 'every 5 minutes'],
    [
      { frequency: 'interval', intervalMinutes: '30', time: '10:00' },
      { intervals: [{ every: '30m' }] },
      'every 30 minutes',
    ],
    [
      { frequency: 'hourly', time: '09:45' },
      { calendars: [{ hour: '*', minute: 45, comment: 'hourly at minute 45' }], timezone: TZ },
      'every hour at minute 45 (Europe/Copenhagen)',
    ],
    [
      { frequency: 'hourly' },
      { calendars: [{ hour: '*', minute: 0, comment: 'hourly at minute 0' }], timezone: TZ },
      'every hour at minute 00 (Europe/Copenhagen)',
    ],
    [
      { frequency: 'daily', time: '07:05', dayOfWeek: 3 },
      { calendars: [{ hour: 7, minute: 5, comment: 'daily at 07:05' }], timezone: TZ },
      'every day at 07:05 (Europe/Copenhagen)',
    ],
    [
      { frequency: 'weekly', time: '09:00', dayOfWeek: 1 },
      { calendars: [{ hour: 9, minute: 0, dayOfWeek: 'MONDAY', comment: 'weekly on MONDAY at 09:00' }], timezone: TZ },
      'every Monday at 09:00 (Europe/Copenhagen)',
    ],
    [
      { frequency: 'weekly', time: '23:59', dayOfWeek: 0 },
      {
        calendars: [{ hour: 23, minute: 59, dayOfWeek: 'SUNDAY', comment: 'weekly on SUNDAY at 23:59' }],
        timezone: TZ,
      },
      'every Sunday at 23:59 (Europe/Copenhagen)',
    ],
    [
      { frequency: 'monthly', time: '00:00', dayOfMonth: 28 },
      { calendars: [{ hour: 0, minute: 0, dayOfMonth: 28, comment: 'monthly on day 28 at 00:00' }], timezone: TZ },
      'every month on day 28 at 00:00 (Europe/Copenhagen)',
    ],
  ])('%j', (config, spec, description) => {
    const r = scheduleSpecFor(config, TZ);
    expect(r).toMatchObject({ ok: true, spec, description });
  });

  it('produces a value assignable to the Temporal SDK ScheduleSpec', () => {
    const r = scheduleSpecFor({ frequency: 'weekly', time: '09:00', dayOfWeek: 5 }, 'UTC');
    if (!r.ok) throw new Error('expected ok');
    const spec: ScheduleSpec = r.spec;
    expect(spec.timezone).toBe('UTC');
  });

  it.each([
    [undefined, TZ, [{ path: '', error: expect.stringContaining('must be an object') }]],
    [{}, TZ, [{ path: 'frequency', error: 'is required (one of interval, hourly, daily, weekly, monthly)' }]],
    [
      { frequency: 'yearly' },
      TZ,
      [{ path: 'frequency', error: 'must be one of interval, hourly, daily, weekly, monthly' }],
    ],
    [
      { frequency: 'interval' },
      TZ,
      [{ path: 'intervalMinutes', error: 'is required with frequency interval (one of 5, 10, 15, 30)' }],
    ],
    [
      { frequency: 'interval', intervalMinutes: 1 },
      TZ,
      [{ path: 'intervalMinutes', error: 'must be one of 5, 10, 15, 30' }],
    ],
    [
      { frequency: 'interval', intervalMinutes: 60 },
      TZ,
      [{ path: 'intervalMinutes', error: 'must be one of 5, 10, 15, 30' }],
    ],
    [{ frequency: 'daily' }, TZ, [{ path: 'time', error: 'is required with frequency daily (HH:mm, 24-hour)' }]],
    [{ frequency: 'daily', time: '9:00' }, TZ, [{ path: 'time', error: 'must be HH:mm (24-hour, e.g. 09:30)' }]],
    [{ frequency: 'daily', time: '24:00' }, TZ, [{ path: 'time', error: 'must be HH:mm (24-hour, e.g. 09:30)' }]],
    [{ frequency: 'hourly', time: '10:60' }, TZ, [{ path: 'time', error: 'must be HH:mm (24-hour, e.g. 09:30)' }]],
    [
      { frequency: 'weekly', time: '09:00' },
      TZ,
      [{ path: 'dayOfWeek', error: 'is required with frequency weekly (0 = Sunday … 6 = Saturday)' }],
    ],
    [
      { frequency: 'weekly', time: '09:00', dayOfWeek: 7 },
      TZ,
      [{ path: 'dayOfWeek', error: 'must be an integer from 0 (Sunday) to 6 (Saturday)' }],
    ],
    [
      { frequency: 'weekly', time: '09:00', dayOfWeek: 1.5 },
      TZ,
      [{ path: 'dayOfWeek', error: 'must be an integer from 0 (Sunday) to 6 (Saturday)' }],
    ],
    [
      { frequency: 'monthly', time: '09:00' },
      TZ,
      [{ path: 'dayOfMonth', error: 'is required with frequency monthly (1-28)' }],
    ],
    [
      { frequency: 'monthly', time: '09:00', dayOfMonth: 0 },
      TZ,
      [{ path: 'dayOfMonth', error: 'must be an integer from 1 to 28 (every month has those days)' }],
    ],
    [
      { frequency: 'monthly', time: '09:00', dayOfMonth: 29 },
      TZ,
      [{ path: 'dayOfMonth', error: 'must be an integer from 1 to 28 (every month has those days)' }],
    ],
    [
      { frequency: 'monthly', dayOfMonth: 31 },
      TZ,
      [
        { path: 'time', error: expect.any(String) },
        { path: 'dayOfMonth', error: expect.any(String) },
      ],
    ],
    [
      { frequency: 'daily', time: '09:00' },
      'Mars/Olympus',
      [{ path: 'timezone', error: 'must be an IANA time zone such as Europe/Copenhagen' }],
    ],
    [
      { frequency: 'daily', time: '09:00' },
      '',
      [{ path: 'timezone', error: 'must be an IANA time zone such as Europe/Copenhagen' }],
    ],
  ])('refuses %j in %j', (config, tz, errors) => {
    expect(scheduleSpecFor(config, tz)).toEqual({ ok: false, errors });
  });

  it('normalises the config it accepted', () => {
    expect(
      parseScheduleConfig({ frequency: 'weekly', time: '08:15', dayOfWeek: '2', dayOfMonth: 99, intervalMinutes: 3 }),
    ).toEqual({
      config: { frequency: 'weekly', time: '08:15', dayOfWeek: 2 },
      errors: [],
    });
  });

  it.each([
    ['Europe/Copenhagen', true],
    ['UTC', true],
    ['America/New_York', true],
    ['Nowhere/City', false],
    [42, false],
  ])('isValidTimeZone(%j) → %s', (tz, ok) => {
    expect(isValidTimeZone(tz)).toBe(ok);
  });
});
