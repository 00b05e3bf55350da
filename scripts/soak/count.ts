// The soak's arithmetic (docs/soak.md): pure functions, no I/O, unit-tested in test/unit/soak/count.test.ts
// so that a bug here cannot make the soak pass silently.

/** `exactly_once`: the record is committed, so its side effect is owed once. `at_most_once`: in doubt (0 or 1). */
export type Obligation = 'exactly_once' | 'at_most_once';

export interface Expected {
  /** What the side effect is about, e.g. `webhook:company.created:<id>` or `mail:<to>:<subject>`. */
  key: string;
  /** Group shown in the breakdown (`company.created`, `bulk-mail`, …). */
  kind: string;
  obligation: Obligation;
}

export interface Observed {
  key: string;
  /**
   * Identity of one delivery: the same identity seen twice is a redelivery of one message (a webhook-id or
   * idempotency-key retried after an unanswered attempt), two identities are two side effects.
   */
  identity: string;
}

export interface KindCount {
  expected: number;
  lost: number;
  duplicated: number;
}

export interface EffectCount {
  /** Owed (exactly_once) side effects never observed. */
  lost: number;
  /** Extra side effects: every distinct identity beyond the first, for expected and unexpected keys alike. */
  duplicated: number;
  /** Same identity delivered again (allowed: receivers dedupe on it). */
  redelivered: number;
  /** Keys observed that nothing the driver did (and the database shows) explains. */
  unexpected: number;
  byKind: Record<string, KindCount>;
  /** Up to 20 example keys per problem, for the report. */
  examples: { lost: string[]; duplicated: string[]; unexpected: string[] };
}

/** Compares what the requests owe with what the sinks received. */
export function countEffects(expected: readonly Expected[], observed: readonly Observed[]): EffectCount {
  const seen = new Map<string, Map<string, number>>();
  for (const o of observed) {
    const ids = seen.get(o.key) ?? new Map<string, number>();
    ids.set(o.identity, (ids.get(o.identity) ?? 0) + 1);
    seen.set(o.key, ids);
  }
  const out: EffectCount = {
    lost: 0,
    duplicated: 0,
    redelivered: 0,
    unexpected: 0,
    byKind: {},
    examples: { lost: [], duplicated: [], unexpected: [] },
  };
  const note = (list: string[], key: string): void => void (list.length < 20 && list.push(key));
  const wanted = new Map<string, Expected>();
  for (const e of expected) {
    const prior = wanted.get(e.key);
    // The same key owed twice is a driver bug: it would hide a duplicate.
    if (prior) throw new Error(`expected side effect listed twice: ${e.key}`);
    wanted.set(e.key, e);
  }
  for (const e of wanted.values()) {
    const k = (out.byKind[e.kind] ??= { expected: 0, lost: 0, duplicated: 0 });
    k.expected++;
    const ids = seen.get(e.key);
    if (!ids) {
      if (e.obligation === 'exactly_once') {
        out.lost++;
        k.lost++;
        note(out.examples.lost, e.key);
      }
      continue;
    }
    const extra = ids.size - 1;
    if (extra > 0) {
      out.duplicated += extra;
      k.duplicated += extra;
      note(out.examples.duplicated, e.key);
    }
  }
  for (const [key, ids] of seen) {
    for (const n of ids.values()) out.redelivered += n - 1;
    if (wanted.has(key)) continue;
    out.unexpected++;
    note(out.examples.unexpected, key);
    if (ids.size > 1) {
      out.duplicated += ids.size - 1;
      note(out.examples.duplicated, key);
    }
  }
  return out;
}

export interface Window {
  start: number;
  end: number;
}

/** Overlapping or touching windows joined, sorted by start. */
export function mergeWindows(windows: readonly Window[]): Window[] {
  const sorted = [...windows].filter((w) => w.end >= w.start).sort((a, b) => a.start - b.start);
  const out: Window[] = [];
  for (const w of sorted) {
    const last = out[out.length - 1];
    if (last && w.start <= last.end) last.end = Math.max(last.end, w.end);
    else out.push({ ...w });
  }
  return out;
}

export interface Timer {
  id: string;
  /** When it was due (epoch ms). */
  due: number;
  /** When its effect was recorded (epoch ms); null = never (a stuck run, counted there). */
  fired: number | null;
}

/**
 * When a timer may fire at the latest without counting as late: its due time, or, when it fell due while
 * something it needs was down (a fault window: killed → back and ready), the end of that window; plus `slackMs`.
 * A timer due less than `slackMs` before a window starts counts as due in it: its effect had not had its slack
 * yet when that dependency went down (the soak saw a timer due 0.4 s before Temporal was killed).
 */
export function timerDeadline(due: number, windows: readonly Window[], slackMs: number): number {
  const hit = mergeWindows(windows).find((w) => due >= w.start - slackMs && due <= w.end);
  return (hit ? hit.end : due) + slackMs;
}

export interface LateTimer {
  id: string;
  lateMs: number;
}

/** Timers that fired more than `slackMs` after their due time, or after the fault window they fell due in. */
export function lateTimers(timers: readonly Timer[], windows: readonly Window[], slackMs = 2000): LateTimer[] {
  const merged = mergeWindows(windows);
  const late: LateTimer[] = [];
  for (const t of timers) {
    if (t.fired === null) continue;
    const limit = timerDeadline(t.due, merged, slackMs);
    if (t.fired > limit) late.push({ id: t.id, lateMs: t.fired - (limit - slackMs) });
  }
  return late.sort((a, b) => b.lateMs - a.lateMs);
}

export interface RssSample {
  /** One process lifetime (pid); a restarted process is a new series. */
  series: string;
  at: number;
  rssMb: number;
}

export interface RssGrowth {
  series: string;
  baselineMb: number;
  endMb: number;
  growthMb: number;
  spanMs: number;
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

/**
 * Growth of each process lifetime: median of its last three samples minus the median of its first three
 * after `warmupMs` (start-up, first JIT and pool fills are not growth). Lifetimes observed for less than
 * `minSpanMs` after warm-up are left out (too short to tell growth from noise).
 */
export function rssGrowth(samples: readonly RssSample[], warmupMs: number, minSpanMs: number): RssGrowth[] {
  const bySeries = new Map<string, RssSample[]>();
  for (const s of samples) bySeries.set(s.series, [...(bySeries.get(s.series) ?? []), s]);
  const out: RssGrowth[] = [];
  for (const [series, list] of bySeries) {
    const sorted = [...list].sort((a, b) => a.at - b.at);
    const from = sorted[0]!.at + warmupMs;
    const after = sorted.filter((s) => s.at >= from);
    if (after.length < 2 || after[after.length - 1]!.at - after[0]!.at < minSpanMs) continue;
    const baselineMb = median(after.slice(0, 3).map((s) => s.rssMb));
    const endMb = median(after.slice(-3).map((s) => s.rssMb));
    out.push({
      series,
      baselineMb,
      endMb,
      growthMb: endMb - baselineMb,
      spanMs: after[after.length - 1]!.at - after[0]!.at,
    });
  }
  return out;
}

/** The one RESULT line (targets 0, 0, 0, 0 and ≤ 50 MB). */
export function resultLine(r: {
  lost: number;
  duplicated: number;
  stuck: number;
  lateTimers: number;
  rssGrowthMb: number;
}): string {
  return `RESULT lost=${r.lost} duplicated=${r.duplicated} stuck=${r.stuck} late_timers=${r.lateTimers} rss_growth_mb=${r.rssGrowthMb.toFixed(1)}`;
}

export function meetsTargets(r: {
  lost: number;
  duplicated: number;
  stuck: number;
  lateTimers: number;
  rssGrowthMb: number;
}): boolean {
  return r.lost === 0 && r.duplicated === 0 && r.stuck === 0 && r.lateTimers === 0 && r.rssGrowthMb <= 50;
}
