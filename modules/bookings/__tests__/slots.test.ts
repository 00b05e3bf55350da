/** Slot computation (modules/bookings/slots.ts): pure, table-tested, including both DST changes of Copenhagen. */
import {
  computeSlots,
  holdOf,
  mergeIntervals,
  overlapsAny,
  rankAgents,
  type AgentLoad,
  type SlotRules,
} from '../slots';

const CPH = 'Europe/Copenhagen';
const rules = (over: Partial<SlotRules> = {}): SlotRules => ({
  timeZone: CPH,
  durationMinutes: 30,
  slotIntervalMinutes: 30,
  bufferBeforeMinutes: 0,
  bufferAfterMinutes: 0,
  minimumNoticeMinutes: 0,
  maxPerDay: null,
  ...over,
});
const A = 'aaaaaaaaaaaaaaaaaaaaaaaa';
const B = 'bbbbbbbbbbbbbbbbbbbbbbbb';
const everyDay = (start: string, end: string) =>
  Object.fromEntries(['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'].map((d) => [d, [{ start, end }]]));
const agent = (userId: string, start = '09:00', end = '17:00') => ({
  userId,
  weeklyAvailability: everyDay(start, end),
});
const NOW = new Date('2026-01-01T00:00:00Z');
const ms = (iso: string) => Date.parse(iso);
const load = (over: Partial<AgentLoad> = {}): AgentLoad => ({ holds: [], events: [], perDay: new Map(), ...over });

function slots(over: {
  rules?: Partial<SlotRules>;
  agents?: ReturnType<typeof agent>[];
  loads?: Map<string, AgentLoad>;
  startDate: string;
  endDate?: string;
  now?: Date;
}) {
  return computeSlots({
    rules: rules(over.rules),
    agents: over.agents ?? [agent(A)],
    loads: over.loads ?? new Map(),
    startDate: over.startDate,
    endDate: over.endDate ?? over.startDate,
    now: over.now ?? NOW,
  });
}

describe('DST: 09:00 local stays 09:00 local, so the UTC instant moves', () => {
  it.each([
    // last Sunday of March 2026: 02:00 CET → 03:00 CEST
    [
      'Saturday before spring forward (CET, +01:00)',
      '2026-03-28',
      '2026-03-28T08:00:00.000Z',
      '2026-03-28T15:30:00.000Z',
    ],
    ['spring-forward Sunday (CEST, +02:00)', '2026-03-29', '2026-03-29T07:00:00.000Z', '2026-03-29T14:30:00.000Z'],
    // last Sunday of October 2026: 03:00 CEST → 02:00 CET
    ['Saturday before fall back (CEST)', '2026-10-24', '2026-10-24T07:00:00.000Z', '2026-10-24T14:30:00.000Z'],
    ['fall-back Sunday (CET)', '2026-10-25', '2026-10-25T08:00:00.000Z', '2026-10-25T15:30:00.000Z'],
  ])('%s', (_label, date, first, last) => {
    const list = slots({ startDate: date });
    expect(list).toHaveLength(16);
    expect(list[0]).toMatchObject({ start: first, localDate: date, localTime: '09:00', agentIds: [A] });
    expect(list[15]).toMatchObject({ start: last, localTime: '16:30' });
  });

  it('a window across the spring-forward gap is one hour shorter (01:00-04:00 holds 2 real hours)', () => {
    const list = slots({ agents: [agent(A, '01:00', '04:00')], startDate: '2026-03-29' });
    expect(list.map((s) => s.localTime)).toEqual(['01:00', '01:30', '03:00', '03:30']);
    expect(list.map((s) => s.start)).toEqual([
      '2026-03-29T00:00:00.000Z',
      '2026-03-29T00:30:00.000Z',
      '2026-03-29T01:00:00.000Z',
      '2026-03-29T01:30:00.000Z',
    ]);
  });

  it('a window across the fall-back change is one hour longer: 02:00 and 02:30 occur twice, as distinct instants', () => {
    const list = slots({ agents: [agent(A, '01:00', '04:00')], startDate: '2026-10-25' });
    expect(list.map((s) => s.localTime)).toEqual([
      '01:00',
      '01:30',
      '02:00',
      '02:30',
      '02:00',
      '02:30',
      '03:00',
      '03:30',
    ]);
    expect(new Set(list.map((s) => s.start)).size).toBe(8);
    expect(list[2]!.start).toBe('2026-10-25T00:00:00.000Z');
    expect(list[4]!.start).toBe('2026-10-25T01:00:00.000Z');
  });

  it('a week across the change keeps every day at 09:00 local', () => {
    const list = slots({ startDate: '2026-03-27', endDate: '2026-03-31', agents: [agent(A, '09:00', '09:30')] });
    expect(list.map((s) => [s.localDate, s.localTime, s.start])).toEqual([
      ['2026-03-27', '09:00', '2026-03-27T08:00:00.000Z'],
      ['2026-03-28', '09:00', '2026-03-28T08:00:00.000Z'],
      ['2026-03-29', '09:00', '2026-03-29T07:00:00.000Z'],
      ['2026-03-30', '09:00', '2026-03-30T07:00:00.000Z'],
      ['2026-03-31', '09:00', '2026-03-31T07:00:00.000Z'],
    ]);
  });
});

describe('rules', () => {
  const day = '2026-02-02'; // a Monday, CET
  it.each([
    [
      'weekday windows only (weekend closed)',
      {
        agents: [{ userId: A, weeklyAvailability: { mon: [{ start: '09:00', end: '10:00' }] } }],
        startDate: '2026-02-01',
        endDate: '2026-02-03',
      },
      ['2026-02-02 09:00', '2026-02-02 09:30'],
    ],
    [
      'two windows a day',
      {
        agents: [
          {
            userId: A,
            weeklyAvailability: {
              mon: [
                { start: '09:00', end: '10:00' },
                { start: '13:00', end: '13:30' },
              ],
            },
          },
        ],
        startDate: day,
      },
      ['2026-02-02 09:00', '2026-02-02 09:30', '2026-02-02 13:00'],
    ],
    [
      'a meeting longer than the interval must fit the window',
      { rules: { durationMinutes: 60 }, agents: [agent(A, '09:00', '10:30')], startDate: day },
      ['2026-02-02 09:00', '2026-02-02 09:30'],
    ],
    [
      'interval 15 minutes',
      { rules: { slotIntervalMinutes: 15 }, agents: [agent(A, '09:00', '10:00')], startDate: day },
      ['2026-02-02 09:00', '2026-02-02 09:15', '2026-02-02 09:30'],
    ],
    [
      'window until 24:00',
      { agents: [agent(A, '23:00', '24:00')], startDate: day },
      ['2026-02-02 23:00', '2026-02-02 23:30'],
    ],
    [
      'minimum notice hides slots starting too soon',
      {
        rules: { minimumNoticeMinutes: 90 },
        agents: [agent(A, '09:00', '11:00')],
        startDate: day,
        now: new Date('2026-02-02T06:45:00Z'),
      },
      ['2026-02-02 09:30', '2026-02-02 10:00', '2026-02-02 10:30'],
    ],
    // 08:30-09:00Z is 09:30-10:00 local (CET).
    [
      'an existing hold blocks its range',
      {
        agents: [agent(A, '09:00', '11:00')],
        startDate: day,
        loads: new Map([
          [A, load({ holds: [{ start: ms('2026-02-02T08:30:00Z'), end: ms('2026-02-02T09:00:00Z') }] })],
        ]),
      },
      ['2026-02-02 09:00', '2026-02-02 10:00', '2026-02-02 10:30'],
    ],
    [
      "buffers widen the new slot's hold (15 before, 15 after)",
      {
        rules: { bufferBeforeMinutes: 15, bufferAfterMinutes: 15 },
        agents: [agent(A, '09:00', '11:00')],
        startDate: day,
        loads: new Map([
          [A, load({ holds: [{ start: ms('2026-02-02T08:30:00Z'), end: ms('2026-02-02T09:00:00Z') }] })],
        ]),
      },
      ['2026-02-02 10:30'],
    ],
    [
      'a calendar event blocks like a hold',
      {
        agents: [agent(A, '09:00', '11:00')],
        startDate: day,
        loads: new Map([
          [A, load({ events: [{ start: ms('2026-02-02T08:10:00Z'), end: ms('2026-02-02T08:20:00Z') }] })],
        ]),
      },
      ['2026-02-02 09:30', '2026-02-02 10:00', '2026-02-02 10:30'],
    ],
    [
      'a zero-length event blocks nothing',
      {
        agents: [agent(A, '09:00', '10:00')],
        startDate: day,
        loads: new Map([
          [A, load({ events: [{ start: ms('2026-02-02T08:10:00Z'), end: ms('2026-02-02T08:10:00Z') }] })],
        ]),
      },
      ['2026-02-02 09:00', '2026-02-02 09:30'],
    ],
    [
      'maxPerDay reached closes the day',
      {
        rules: { maxPerDay: 2 },
        agents: [agent(A, '09:00', '10:00')],
        startDate: day,
        endDate: '2026-02-03',
        loads: new Map([[A, load({ perDay: new Map([[day, 2]]) })]]),
      },
      ['2026-02-03 09:00', '2026-02-03 09:30'],
    ],
  ] as const)('%s', (_label, q, expected) => {
    const list = slots(q as never);
    expect(list.map((s) => `${s.localDate} ${s.localTime}`)).toEqual(expected);
  });

  it('onlyStart computes just the slot at that instant: the same slot as the full day, or none off the grid', () => {
    const day = '2026-06-10';
    const full = slots({ agents: [agent(A), agent(B)], startDate: day });
    const wanted = full[3]!;
    const one = (at: number) =>
      computeSlots({
        rules: rules(),
        agents: [agent(A), agent(B)],
        loads: new Map(),
        startDate: day,
        endDate: day,
        now: NOW,
        onlyStart: at,
      });
    expect(one(ms(wanted.start))).toEqual([wanted]);
    expect(one(ms(wanted.start) + 60_000)).toEqual([]);
  });

  it('merges agents: a slot lists every free agent in config order', () => {
    const loads = new Map([
      [A, load({ holds: [{ start: ms('2026-02-02T08:00:00Z'), end: ms('2026-02-02T08:30:00Z') }] })],
    ]);
    const list = slots({ agents: [agent(A, '09:00', '10:00'), agent(B, '09:00', '10:00')], loads, startDate: day });
    expect(list.map((s) => [s.localTime, s.agentIds])).toEqual([
      ['09:00', [B]],
      ['09:30', [A, B]],
    ]);
  });
});

describe('helpers', () => {
  it('holdOf adds the buffers', () => {
    expect(holdOf(ms('2026-02-02T09:00:00Z'), 30, 10, 5)).toEqual({
      start: ms('2026-02-02T08:50:00Z'),
      end: ms('2026-02-02T09:35:00Z'),
    });
  });
  it.each([
    [
      [
        { start: 0, end: 10 },
        { start: 5, end: 20 },
        { start: 30, end: 40 },
      ],
      20,
      30,
      false,
    ],
    [
      [
        { start: 0, end: 10 },
        { start: 5, end: 20 },
        { start: 30, end: 40 },
      ],
      19,
      31,
      true,
    ],
    [[{ start: 0, end: 10 }], 10, 20, false],
    [[], 0, 100, false],
  ])('overlapsAny(%j, %i, %i) = %s', (list, s, e, expected) => {
    expect(overlapsAny(mergeIntervals(list), s, e)).toBe(expected);
  });
  it('rankAgents prefers the least busy agent, then config order', () => {
    expect(rankAgents([A, B], (id) => (id === A ? 3 : 1))).toEqual([B, A]);
    expect(rankAgents([A, B], () => 0)).toEqual([A, B]);
  });
});
