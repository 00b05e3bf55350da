import { nextFreeStart, walkFreeStart } from '../actions/timeline';

/** The find_next rule as it was, one overlap query per step: the reference the one-read walk must match. */
function stepByStep(events: { start: number; end: number }[], start: number, d: number, steps: number): number {
  const latestOverlap = (s: number) =>
    events.filter((e) => e.start < s + d && e.end > s).reduce((m, e) => Math.max(m, e.end), -Infinity);
  let s = start;
  let conflict = latestOverlap(s);
  for (let i = 0; conflict !== -Infinity && i < steps; i++) {
    s = Math.max(conflict, s + 60_000);
    conflict = latestOverlap(s);
  }
  return s;
}

/** Deterministic pseudo-random calendars (mulberry32). */
function rng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const MIN = 60_000;

/**
 * One random case, drawn in this order: a start within `startMin` minutes, a duration of 1-90 min, up to
 * `events` events starting within `spanMin` minutes (1-120 min long), and a step budget of 1-60.
 */
function calendar(r: () => number, o: { startMin: number; events: number; spanMin: number }) {
  const start = Math.floor(r() * o.startMin) * MIN;
  const d = (1 + Math.floor(r() * 90)) * MIN;
  const events = Array.from({ length: Math.floor(r() * o.events) }, () => {
    const s = Math.floor(r() * o.spanMin) * MIN;
    return { start: s, end: s + (1 + Math.floor(r() * 120)) * MIN };
  });
  const steps = 1 + Math.floor(r() * 60);
  return { start, d, events, steps };
}

describe('nextFreeStart (create_task find_next in one read)', () => {
  it('matches the step-by-step rule on 500 random calendars', () => {
    const r = rng(7);
    for (let c = 0; c < 500; c++) {
      const { start, d, events, steps } = calendar(r, { startMin: 600, events: 80, spanMin: 1200 });
      const sorted = events.filter((e) => e.end > start).sort((a, b) => a.start - b.start);
      const walked = nextFreeStart(sorted, start, d, steps);
      expect([c, walked.done, walked.start]).toEqual([c, true, stepByStep(events, start, d, steps)]);
    }
  });

  it('matches it too when the calendar is read in windows of 1, 3 and 7 events (busy calendars)', async () => {
    const r = rng(11);
    for (let c = 0; c < 300; c++) {
      const { start, d, events, steps } = calendar(r, { startMin: 300, events: 120, spanMin: 900 });
      const byStart = [...events].sort((a, b) => a.start - b.start);
      for (const window of [1, 3, 7]) {
        const walked = await walkFreeStart(
          {
            window,
            read: async (from) => byStart.filter((e) => e.end > from).slice(0, window),
            latestOverlapEnd: async (from) => {
              const ends = events.filter((e) => e.start < from + d && e.end > from).map((e) => e.end);
              return ends.length ? Math.max(...ends) : null;
            },
          },
          start,
          d,
          steps,
        );
        expect([c, window, walked]).toEqual([c, window, stepByStep(events, start, d, steps)]);
      }
    }
  });

  it('stops after the step budget even when the calendar is full', () => {
    const events = Array.from({ length: 100 }, (_, i) => ({ start: i * 30 * MIN, end: (i + 1) * 30 * MIN }));
    expect(nextFreeStart(events, 0, 30 * MIN, 50)).toEqual({ start: 50 * 30 * MIN, done: true, stepsLeft: 0 });
  });

  it('does not decide a slot that reaches past the events read', () => {
    const events = [
      { start: 0, end: 30 * MIN },
      { start: 30 * MIN, end: 60 * MIN },
    ];
    // Events from 30 min on were not all read: a 45-minute slot at 30 min may overlap unseen ones.
    expect(nextFreeStart(events, 0, 45 * MIN, 50, 30 * MIN)).toEqual({ start: 0, done: false, stepsLeft: 50 });
  });
});
