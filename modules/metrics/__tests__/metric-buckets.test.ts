import { bucketLabels, compareWindow, resolveWindow, truncateDay, zonedInstant } from '../buckets';

const CPH = 'Europe/Copenhagen';

describe('metric windows and buckets', () => {
  it.each([
    ['2026-03-29T00:00', '2026-03-28T23:00:00.000Z'],
    ['2026-03-29T03:00', '2026-03-29T01:00:00.000Z'],
    ['2026-10-25T00:00', '2026-10-24T22:00:00.000Z'],
    ['2026-10-26T00:00', '2026-10-25T23:00:00.000Z'],
  ])('local %s in Copenhagen is %s', (local, utc) => expect(zonedInstant(local, CPH).toISOString()).toBe(utc));

  it('resolves bare dates to local midnights, the upper one inclusive', () => {
    const w = resolveWindow('2026-03-28', '2026-03-29', CPH);
    expect(w.from.toISOString()).toBe('2026-03-27T23:00:00.000Z');
    expect(w.to.toISOString()).toBe('2026-03-29T22:00:00.000Z');
    expect(
      resolveWindow('2026-01-01T10:00:00Z', undefined, CPH, new Date('2026-01-02T00:00:00Z')).to.toISOString(),
    ).toBe('2026-01-02T00:00:00.000Z');
  });

  it('day buckets across the spring DST change; the short day is one bucket', () => {
    expect(bucketLabels(resolveWindow('2026-03-28', '2026-03-30', CPH), 'day', CPH)).toEqual([
      '2026-03-28',
      '2026-03-29',
      '2026-03-30',
    ]);
  });

  it('hour buckets: 23 on the spring-forward day, 24 labels (25 hours) on the fall-back day', () => {
    expect(bucketLabels(resolveWindow('2026-03-29', '2026-03-29', CPH), 'hour', CPH)).toHaveLength(23);
    const fall = bucketLabels(resolveWindow('2026-10-25', '2026-10-25', CPH), 'hour', CPH);
    expect(fall).toHaveLength(24);
    expect(fall[0]).toBe('2026-10-25T00:00');
    expect(fall.at(-1)).toBe('2026-10-25T23:00');
  });

  it.each([
    ['2026-11-26', 'week', '2026-11-23'],
    ['2026-11-23', 'week', '2026-11-23'],
    ['2026-11-29', 'week', '2026-11-23'],
    ['2026-11-29', 'month', '2026-11-01'],
    ['2026-11-29', 'quarter', '2026-10-01'],
    ['2026-02-01', 'quarter', '2026-01-01'],
    ['2026-11-29', 'year', '2026-01-01'],
  ] as const)('truncateDay(%s, %s) = %s', (day, g, want) => expect(truncateDay(day, g)).toBe(want));

  it('week, month, quarter and year buckets', () => {
    const w = resolveWindow('2026-01-15', '2026-04-02', CPH);
    expect(bucketLabels(w, 'month', CPH)).toEqual(['2026-01-01', '2026-02-01', '2026-03-01', '2026-04-01']);
    expect(bucketLabels(w, 'quarter', CPH)).toEqual(['2026-01-01', '2026-04-01']);
    expect(bucketLabels(w, 'year', CPH)).toEqual(['2026-01-01']);
    expect(bucketLabels(resolveWindow('2026-11-20', '2026-11-30', CPH), 'week', CPH)).toEqual([
      '2026-11-16',
      '2026-11-23',
      '2026-11-30',
    ]);
  });

  it('comparison windows', () => {
    const w = resolveWindow('2026-03-01', '2026-03-10', CPH);
    const prev = compareWindow(w, 'previous_period');
    expect(prev.to.toISOString()).toBe(w.from.toISOString());
    expect(prev.to.getTime() - prev.from.getTime()).toBe(w.to.getTime() - w.from.getTime());
    expect(compareWindow(w, 'previous_year').from.toISOString()).toBe('2025-02-28T23:00:00.000Z');
  });
});
