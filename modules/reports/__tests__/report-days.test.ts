import { daysBetween, isTimeZone, localDay } from '../history-days';

describe('report day helpers', () => {
  it.each([
    ['2026-03-28T23:30:00Z', 'Europe/Copenhagen', '2026-03-29'],
    ['2026-03-29T21:59:00Z', 'Europe/Copenhagen', '2026-03-29'],
    ['2026-03-29T22:00:00Z', 'Europe/Copenhagen', '2026-03-30'],
    ['2026-10-25T22:59:00Z', 'Europe/Copenhagen', '2026-10-25'],
    ['2026-10-25T23:00:00Z', 'Europe/Copenhagen', '2026-10-26'],
    ['2026-01-01T03:00:00Z', 'America/New_York', '2025-12-31'],
  ])('localDay(%s, %s) = %s', (at, tz, day) => expect(localDay(new Date(at), tz)).toBe(day));

  it('enumerates days inclusively across DST changes and month ends', () => {
    expect(daysBetween('2026-03-28', '2026-03-30')).toEqual(['2026-03-28', '2026-03-29', '2026-03-30']);
    expect(daysBetween('2024-02-28', '2024-03-01')).toEqual(['2024-02-28', '2024-02-29', '2024-03-01']);
    expect(daysBetween('2026-01-02', '2026-01-01')).toEqual([]);
  });

  it('recognises IANA zones', () => {
    expect(isTimeZone('Europe/Copenhagen')).toBe(true);
    expect(isTimeZone('Mars/Olympus')).toBe(false);
  });
});
