import { SEQUENCE_WAIT_DEFAULTS, waitDurationOf } from '../../platform/shared/wait-duration';
import { delayMsOf } from '../../modules/automations/engine/walk.pure';
import { delayDataSchema } from '../../modules/automations/node-data.schemas';

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;

describe('waitDurationOf: the whole alias family', () => {
  it.each<[Record<string, unknown>, number]>([
    [{ delayMinutes: 7 }, 7 * MIN],
    [{ delayMinutes: 2 / 60 }, 2000],
    [{ delayAmount: 1, delayUnit: 'days' }, DAY],
    [{ delayAmount: 3, delayUnit: 'minutes' }, 3 * MIN],
    [{ delayAmount: 2, delayUnit: 'hours' }, 2 * HOUR],
    [{ delayAmount: 1, delayUnit: 'weeks' }, 7 * DAY],
    [{ waitAmount: 4, waitUnit: 'hours' }, 4 * HOUR],
    [{ duration: 30, unit: 'minutes' }, 30 * MIN],
    [{ amount: 3, unit: 'days' }, 3 * DAY],
    [{ amount: 1.5, unit: 'days' }, 1.5 * DAY],
    [{ delayAmount: 2, unit: 'hours' }, 2 * HOUR], // names may be mixed
    [{ amount: 1, delayUnit: 'Week' }, 7 * DAY], // singular, any case
    [{ waitDays: 2 }, 2 * DAY],
    [{ waitHours: 5 }, 5 * HOUR],
    [{ waitDays: 1, waitHours: 6 }, 30 * HOUR],
    [{ waitDays: 0, waitHours: 1 }, HOUR],
    [{ delayMinutes: 5, delayAmount: 9, delayUnit: 'days' }, 5 * MIN], // delayMinutes first (what older graphs relied on)
    [{ delayAmount: 1, delayUnit: 'hours', waitDays: 3 }, HOUR], // an amount beats waitDays
    [{ delayAmount: 2, waitAmount: 9, delayUnit: 'hours' }, 2 * HOUR], // delayAmount beats its aliases
    [{ delayAmount: 365, delayUnit: 'days' }, 365 * DAY],
  ])('%j → %s ms', (data, ms) => {
    expect(waitDurationOf(data)).toEqual({ ok: true, ms, minutes: ms / MIN });
    expect(delayMsOf(data)).toBe(ms); // the workflow reads exactly what the validator accepted
  });

  it.each<[Record<string, unknown>, string, RegExp]>([
    [{}, 'delayAmount', /is required/],
    [{ delayMinutes: 0 }, 'delayMinutes', /greater than 0/],
    [{ delayMinutes: '5' }, 'delayMinutes', /number/],
    [{ delayAmount: 1 }, 'delayUnit', /is required with delayAmount/],
    [{ amount: 3 }, 'delayUnit', /is required with amount/],
    [{ delayUnit: 'days' }, 'delayAmount', /is required with delayUnit/],
    [{ delayAmount: 0, delayUnit: 'days' }, 'delayAmount', /greater than 0/],
    [{ waitAmount: -1, waitUnit: 'days' }, 'waitAmount', /greater than 0/],
    [{ duration: 'soon', unit: 'days' }, 'duration', /number/],
    [{ amount: 2, unit: 'fortnights' }, 'unit', /must be one of minutes, hours, days, weeks/],
    [{ delayAmount: 366, delayUnit: 'days' }, 'delayAmount', /at most 365 days/],
    [{ delayAmount: 53, delayUnit: 'weeks' }, 'delayAmount', /at most 365 days/],
    [{ delayMinutes: 365 * 1440 + 1 }, 'delayMinutes', /at most 365 days/],
    [{ waitDays: 0 }, 'waitDays', /add up to 0/],
    [{ waitDays: -1 }, 'waitDays', /at least 0/],
    [{ waitDays: 366 }, 'waitDays', /at most 365 days/],
    [{ waitHours: 'x' }, 'waitHours', /number/],
  ])('%j → error on %s', (data, path, error) => {
    const res = waitDurationOf(data);
    expect(res).toMatchObject({ ok: false, path });
    expect(res.ok ? '' : res.error).toMatch(error);
    expect(delayMsOf(data)).toBeNull();
  });

  it('sequence waits default to 1 day; a unit or an amount alone takes the other default', () => {
    expect(waitDurationOf({}, SEQUENCE_WAIT_DEFAULTS)).toEqual({ ok: true, ms: DAY, minutes: 1440 });
    expect(waitDurationOf({ delayUnit: 'hours' }, SEQUENCE_WAIT_DEFAULTS)).toMatchObject({ ok: true, ms: HOUR });
    expect(waitDurationOf({ delayAmount: 3 }, SEQUENCE_WAIT_DEFAULTS)).toMatchObject({ ok: true, ms: 3 * DAY });
    expect(waitDurationOf({ waitHours: 2 }, SEQUENCE_WAIT_DEFAULTS)).toMatchObject({ ok: true, ms: 2 * HOUR });
    expect(waitDurationOf({ delayAmount: 0 }, SEQUENCE_WAIT_DEFAULTS)).toMatchObject({
      ok: false,
      path: 'delayAmount',
    });
  });

  it('the delay node validator reports the offending key', () => {
    expect(delayDataSchema.safeParse({ delayAmount: 1, delayUnit: 'days' }).success).toBe(true);
    const bad = delayDataSchema.safeParse({ delayAmount: 1, delayUnit: 'fortnights' });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]).toMatchObject({
      path: ['delayUnit'],
      message: expect.stringMatching(/must be one of/),
    });
  });
});
