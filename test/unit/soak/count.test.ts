import {
  countEffects,
  lateTimers,
  meetsTargets,
  mergeWindows,
  resultLine,
  rssGrowth,
  type Expected,
  type Observed,
} from '../../../scripts/soak/count';
import { FAULT_KINDS, parseSoakArgs, planFaults, rng } from '../../../scripts/soak/plan';

const once = (key: string, kind = 'k'): Expected => ({ key, kind, obligation: 'exactly_once' });
const maybe = (key: string, kind = 'k'): Expected => ({ key, kind, obligation: 'at_most_once' });
const seen = (key: string, identity: string): Observed => ({ key, identity });

describe('soak: countEffects', () => {
  it('counts nothing when every owed effect arrived once', () => {
    const r = countEffects([once('a'), once('b')], [seen('a', '1'), seen('b', '2')]);
    expect(r).toMatchObject({ lost: 0, duplicated: 0, redelivered: 0, unexpected: 0 });
    expect(r.byKind.k).toEqual({ expected: 2, lost: 0, duplicated: 0 });
  });

  it('an owed effect never observed is lost; one in doubt is not', () => {
    const r = countEffects([once('a'), maybe('b'), once('c', 'other')], []);
    expect(r.lost).toBe(2);
    expect(r.examples.lost).toEqual(['a', 'c']);
    expect(r.byKind.other).toEqual({ expected: 1, lost: 1, duplicated: 0 });
  });

  it('two identities for one key are a duplicate, the same identity twice a redelivery', () => {
    const r = countEffects(
      [once('a'), maybe('b'), once('c')],
      [seen('a', '1'), seen('a', '2'), seen('a', '3'), seen('b', 'x'), seen('b', 'y'), seen('c', 'z'), seen('c', 'z')],
    );
    expect(r.duplicated).toBe(3);
    expect(r.redelivered).toBe(1);
    expect(r.lost).toBe(0);
    expect(r.examples.duplicated).toEqual(['a', 'b']);
  });

  it('effects nothing explains are unexpected, and their extra copies duplicates', () => {
    const r = countEffects([once('a')], [seen('a', '1'), seen('ghost', '1'), seen('ghost', '2')]);
    expect(r.unexpected).toBe(1);
    expect(r.duplicated).toBe(1);
    expect(r.examples.unexpected).toEqual(['ghost']);
  });

  it('refuses an effect listed twice (it would hide a duplicate)', () => {
    expect(() => countEffects([once('a'), once('a')], [])).toThrow(/listed twice/);
  });
});

describe('soak: lateTimers', () => {
  it('a timer more than 2 s after its due time is late, within 2 s is not', () => {
    const late = lateTimers(
      [
        { id: 'ok', due: 10_000, fired: 11_999 },
        { id: 'late', due: 10_000, fired: 12_500 },
        { id: 'never', due: 10_000, fired: null },
      ],
      [],
    );
    expect(late).toEqual([{ id: 'late', lateMs: 2500 }]);
  });

  it('a timer due while something was down may fire up to 2 s after the window ends', () => {
    const windows = [{ start: 5_000, end: 20_000 }];
    expect(lateTimers([{ id: 't', due: 10_000, fired: 21_900 }], windows)).toEqual([]);
    expect(lateTimers([{ id: 't', due: 10_000, fired: 23_000 }], windows)).toEqual([{ id: 't', lateMs: 3_000 }]);
    // Due after the window: its own due time counts.
    expect(lateTimers([{ id: 't', due: 25_000, fired: 28_000 }], windows)).toEqual([{ id: 't', lateMs: 3_000 }]);
  });

  it('a timer due less than the slack before a window starts counts as due in it; one due earlier does not', () => {
    const windows = [{ start: 10_000, end: 20_000 }];
    expect(lateTimers([{ id: 't', due: 9_000, fired: 21_500 }], windows)).toEqual([]);
    expect(lateTimers([{ id: 't', due: 7_000, fired: 21_500 }], windows)).toEqual([{ id: 't', lateMs: 14_500 }]);
  });

  it('joins overlapping windows', () => {
    expect(
      mergeWindows([
        { start: 10, end: 20 },
        { start: 0, end: 12 },
        { start: 30, end: 40 },
      ]),
    ).toEqual([
      { start: 0, end: 20 },
      { start: 30, end: 40 },
    ]);
    expect(
      lateTimers(
        [{ id: 't', due: 5, fired: 21 }],
        [
          { start: 10, end: 20 },
          { start: 0, end: 12 },
        ],
        0,
      ),
    ).toEqual([{ id: 't', lateMs: 1 }]);
  });
});

describe('soak: rssGrowth', () => {
  const series = (name: string, values: number[], stepMs = 10_000) =>
    values.map((rssMb, i) => ({ series: name, at: i * stepMs, rssMb }));

  it('measures from after the warm-up to the end, on medians of three', () => {
    const [g] = rssGrowth(series('api', [50, 300, 100, 101, 99, 140, 160, 150]), 20_000, 30_000);
    expect(g).toMatchObject({ series: 'api', baselineMb: 100, endMb: 150, growthMb: 50 });
  });

  it('leaves out lifetimes too short to judge', () => {
    expect(rssGrowth(series('w', [100, 100, 500]), 10_000, 60_000)).toEqual([]);
  });
});

describe('soak: RESULT line', () => {
  it('prints the five counters and judges the targets', () => {
    const r = { lost: 0, duplicated: 0, stuck: 0, lateTimers: 0, rssGrowthMb: 12.34 };
    expect(resultLine(r)).toBe('RESULT lost=0 duplicated=0 stuck=0 late_timers=0 rss_growth_mb=12.3');
    expect(meetsTargets(r)).toBe(true);
    expect(meetsTargets({ ...r, lost: 1 })).toBe(false);
    expect(meetsTargets({ ...r, rssGrowthMb: 50.1 })).toBe(false);
  });
});

describe('soak: fault plan and options', () => {
  it('every kind once per round, one at a time, each over before the next starts', () => {
    const faults = planFaults(rng(7), { durationMs: 600_000, rounds: 2, restartAllowanceMs: 15_000 });
    expect(faults).toHaveLength(FAULT_KINDS.length * 2);
    for (const kind of FAULT_KINDS) expect(faults.filter((f) => f.kind === kind)).toHaveLength(2);
    for (let i = 1; i < faults.length; i++)
      expect(faults[i]!.at).toBeGreaterThanOrEqual(faults[i - 1]!.at + faults[i - 1]!.downMs + 15_000);
    expect(faults[0]!.at).toBeGreaterThanOrEqual(60_000);
    expect(planFaults(rng(7), { durationMs: 600_000, rounds: 2, restartAllowanceMs: 15_000 })).toEqual(faults);
  });

  it('reads --minutes, --short and rejects nonsense', () => {
    expect(parseSoakArgs([]).minutes).toBe(10);
    expect(parseSoakArgs(['--short']).minutes).toBe(2);
    expect(parseSoakArgs(['--minutes', '3']).minutes).toBe(3);
    expect(parseSoakArgs(['--minutes=4', '--seed', '9'])).toMatchObject({ minutes: 4, seed: 9 });
    expect(() => parseSoakArgs(['--minutes', 'x'])).toThrow(/--minutes/);
    expect(() => parseSoakArgs(['--minutes', '0'])).toThrow(/--minutes/);
  });
});
